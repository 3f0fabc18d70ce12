"""The examples: their kernels compile on both back ends (CPU), and run and match NumPy (GPU)."""

import importlib.util
import math
import warnings
from pathlib import Path

import pytest

from cumlir import cuda

from . import support

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REDUCTION_KERNELS = {
    "block_sum": "void(float64[:], float64[:])",
    "histogram": "void(int32[:], int32[:])",
    "block_scan": "void(int64[:], int64[:])",
}


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_reduction_kernels_assemble(backend, cc):
    example = _load("reductions")
    expected = {"block_sum": "atom.global.add.f64", "histogram": "atom.shared.add", "block_scan": "shfl.sync.up.b32"}
    for name, sig in REDUCTION_KERNELS.items():
        ptx, _ = cuda.compile_ptx(getattr(example, name), sig, cc=cc, backend=backend)
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
        assert expected[name] in ptx, name


@pytest.mark.gpu
@pytest.mark.nondeterministic  # the blocks' float64 partial sums are added by atomics in any order
def test_reductions_match_numpy(rng):
    _load("reductions").run(rng, n=300_007)


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_monte_carlo_pi_kernel_assembles(backend, cc):
    example = _load("monte_carlo_pi")
    sig = (cuda.random.xoroshiro128p_type[::1], cuda.int64, cuda.int64[::1])
    ptx, _ = cuda.compile_ptx(example.count_hits, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert "cvt.rn.f32.f64" in ptx  # the float32 uniforms


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [1, 2**40 + 3])
def test_monte_carlo_pi_is_within_five_standard_errors(seed):
    estimate, sigma = _load("monte_carlo_pi").estimate_pi(generators=16_384, draws=512, seed=seed)
    assert abs(estimate - math.pi) < 5 * sigma, (estimate, sigma)


def test_hopper_gemm_compiles_to_tma_and_wgmma():
    example = _load("gemm_hopper")
    sig = "void(tensor_map, tensor_map, bfloat16[:, ::1], int64)"
    ptx, _ = cuda.compile_ptx(example.gemm_kernel.py_func, sig, cc=(9, 0, "a"))
    notes = support.ptxas(ptx, "sm_90a")
    # the last wait ties the accumulator: no read of it is moved into the pipeline, which
    # would make ptxas serialize every wgmma (its note C7514)
    assert "serialized" not in notes and "C7514" not in notes, notes
    # nor, linked by nvJitLink as every kernel is, a 64-bit division's call (C7509)
    from cumlir.linking import PerformanceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        kernel = cuda.jit(sig, chip="sm_90a", backend="nvptx")(example.gemm_kernel.py_func)
        (overload,) = kernel.overloads.values()
        assert overload.output("cubin")[:4] == b"\x7fELF"
    # the epilogue rounds pairs of neighbours together and stores each pair as one word
    assert ptx.count("cvt.rn.bf16x2.f32") == example.ACC // 2 and "st.global.b16" not in ptx
    wgmmas = ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16")
    assert wgmmas and wgmmas % (example.BK // 16) == 0  # per stage, in a loop LLVM may unroll
    assert ptx.count("cp.async.bulk.tensor.2d") >= 4  # A and B, in the prologue and the loop
    assert "ld.local" not in ptx and "st.local" not in ptx  # the accumulator stays in registers


@pytest.mark.not_simulated("tensor cores have no host form")
@pytest.mark.gpu
@pytest.mark.parametrize("m, n, k", [(256, 256, 256), (384, 512, 640)])
def test_hopper_gemm_matches_numpy(m, n, k):
    if cuda.get_current_device().compute_capability != (9, 0):
        pytest.skip("wgmma needs sm_90a")
    _load("gemm_hopper").check(m, n, k)


GEMM_SIGNATURE = "void(float16[:, ::1], float16[:, ::1], float32[:, ::1])"


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_gemm_kernel_assembles_with_its_fragments_in_registers(backend, cc):
    example = _load("gemm_ampere")
    ptx, _ = cuda.compile_ptx(example.gemm_kernel, GEMM_SIGNATURE, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    # the k16 steps of a K step, unrolled: a warp's 4 x 8 tiles; A's 4 fragments and B's 4 pairs
    steps = example.BK // 16
    assert ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == steps * example.MT * example.NT
    assert ptx.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") == steps * example.MT
    assert ptx.count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == steps * example.NT_PAIRS
    assert "cp.async.cg.shared.global" in ptx and f"cp.async.wait_group {example.IN_FLIGHT};" in ptx
    assert ".local" not in ptx  # the 128 accumulators and the fragments stay in registers
    # the tiles' columns are known to fit their rows: no clamping of a slice in the loop
    loop = ptx[ptx.index("ldmatrix") : ptx.rindex("ldmatrix")]
    assert "min.u64" not in loop and "min.s64" not in loop


@pytest.mark.not_simulated("tensor cores have no host form")
@pytest.mark.gpu
@pytest.mark.parametrize("m, n, k", [(200, 300, 100), (1024, 768, 512)])
def test_gemm_matches_numpy(rng, m, n, k):
    _load("gemm_ampere").check(m, n, k, rng)
