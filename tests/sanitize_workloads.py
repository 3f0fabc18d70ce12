"""The programs tests/sanitize.py runs under compute-sanitizer, each checked against NumPy:

    python3 tests/sanitize_workloads.py NAME [NAME ...]      (names: see ``expand``)

- ``canary:TOOL``: a kernel with a bug planted for TOOL (memcheck: a write past the end of an
  array, and a leaked allocation; racecheck: a shared-memory race; synccheck: a syncwarp
  whose mask leaves out a thread that calls it; initcheck: a read of memory nobody wrote);
- ``bench:NAME``: a kernel of benchmarks/kernels at its quick size, checked by its module;
- ``example:NAME``: an example of examples/ at a small size, with its own check;
- ``nrt:K/N``: the K-th of N parts of tests/cases/nrt_kernels.py's allocation patterns,
  each against NumPy with the device runtime's counters balanced;
- ``ufuncs``: cuda.vectorize, cuda.guvectorize, cuda.reduce and ufunc.reduce;
- ``cg``: cooperative launches: grid.sync in a kernel and in a device function, forall.

Each program says which one runs (``@@sanitize workload NAME``) and how it ended (``ok``,
``failed NAME: why``, ``skip NAME: why``); at the end (``teardown``) every array is dropped
and the context closed, so that memcheck's leak check sees only what was not freed.
Exits 1 if any program failed.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib.util
import io
import math
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "src", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import numpy as np  # noqa: E402

from cumlir import cuda  # noqa: E402

MARK = "@@sanitize"
_PLANTED: list[object] = []  # the memcheck canary's leaked allocation, kept past the teardown's collection


class Skip(Exception):
    """The program cannot run here (what it needs is missing): not a failure."""


def say(verb: str, text: str = "") -> None:
    print(f"{MARK} {verb} {text}".rstrip(), flush=True)


def poisoned(n: int, dtype: Any) -> np.ndarray:
    kind = np.dtype(dtype).kind
    return np.full(n, np.nan if kind in "fc" else -7, dtype)


# -------------------------------------------------------------------------------------------
# canaries: one planted bug per tool


def planted_out_of_bounds(out):
    i = cuda.grid(1)
    out[i] = i  # no bounds check: the last block writes past the end


def planted_race(x, out):
    s = cuda.shared.array(64, np.float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    if i > 0:
        out[i] = s[i - 1]  # no syncthreads between the writes and this read


def planted_bad_syncwarp(out):
    # the example of compute-sanitizer's guide for synccheck: thread 32 is in the branch, and
    # its warp's mask (no thread of that warp is below 32) leaves it out
    i = cuda.threadIdx.x
    mask = cuda.ballot_sync(0xFFFFFFFF, i < 32)
    if i <= 32:
        out[i] = i
        cuda.syncwarp(mask)


def planted_uninitialized_read(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i]  # x was allocated and never written


def canary(tool: str) -> None:
    if tool == "memcheck":
        _PLANTED.append(cuda.device_array(4219, np.uint8))  # never freed before the context closes
        out = cuda.device_array(100, np.float32)
        kernel = cuda.jit("void(float32[::1])")(planted_out_of_bounds)
        with contextlib.suppress(Exception):  # the sanitizer ends the kernel; the driver may say so
            kernel[2, 64](out)
            cuda.synchronize()
    elif tool == "racecheck":
        x = np.arange(1, 65, dtype=np.float32)
        cuda.jit("void(float32[::1], float32[::1])")(planted_race)[1, 64](x, np.zeros(64, np.float32))
    elif tool == "synccheck":
        kernel = cuda.jit("void(int32[::1])")(planted_bad_syncwarp)
        with contextlib.suppress(Exception):
            kernel[1, 64](np.zeros(64, np.int32))
            cuda.synchronize()
    elif tool == "initcheck":
        x = cuda.device_array(256, np.float32)
        out = cuda.to_device(np.zeros(256, np.float32))
        cuda.jit("void(float32[::1], float32[::1])")(planted_uninitialized_read)[2, 128](x, out)
        cuda.synchronize()
    else:
        raise ValueError(f"no canary for {tool}")


# -------------------------------------------------------------------------------------------
# the benchmark suite


def bench(name: str) -> None:
    from benchmarks.kernels import suite

    module = suite.load(name)
    kernels = suite.build(module, cuda)
    inputs = module.setup(np, np.random.default_rng(sum(map(ord, name))), quick=True)
    for key, value in module.OUTPUTS.items():
        inputs[key].fill(suite.poison_value(inputs[key].dtype) if value is None else value)
    before = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
    # NumPy arrays: the launch copies them to the device and the outputs back
    module.launch(cuda, kernels, inputs)
    cuda.synchronize()
    module.check(before, {k: inputs[k] for k in module.OUTPUTS})


# -------------------------------------------------------------------------------------------
# the examples


def _example_module(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _OneRank:
    """An MPI communicator of one rank (mpi_multi_gpu's run without MPI)."""

    def Get_rank(self) -> int:
        return 0

    def Get_size(self) -> int:
        return 1

    def allreduce(self, value, op=None):
        return value

    def bcast(self, value, root=0):
        return value


def example(name: str) -> None:
    if name in ("dask_multi_gpu", "ray_multi_gpu"):
        raise Skip("its kernels run in worker processes it starts (one per GPU), outside the sanitized one")
    module = _example_module(name)
    if name == "vector_add":
        with contextlib.redirect_stdout(io.StringIO()):  # it prints its PTX
            module.main()
    elif name == "reductions":
        module.run(np.random.default_rng(0), n=100_003)
    elif name == "monte_carlo_pi":
        estimate, sigma = module.estimate_pi(generators=4096, draws=256, seed=1)
        assert abs(estimate - math.pi) < 6 * sigma, (estimate, sigma)
    elif name == "mpi_multi_gpu":
        with contextlib.redirect_stdout(io.StringIO()):
            assert module.run(_OneRank(), 1 << 16)
    elif name == "gemm_ampere":
        module.check(200, 300, 100, np.random.default_rng(0))
    elif name == "gemm_hopper":
        if module.missing():
            raise Skip(module.missing())
        module.check(128, 256, 256)  # one tile of C, K the smallest the pipeline takes
    elif name == "cccl_reduce":
        if module.missing():
            raise Skip(module.missing())
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            module.main()
        got, expected = re.findall(r"-?\d+", printed.getvalue())[:2]
        assert got == expected, printed.getvalue()
    else:
        raise ValueError(f"no example {name}")


# -------------------------------------------------------------------------------------------
# the device runtime


def nrt_cases(part: int, parts: int) -> list[tuple[str, Callable[[], None]]]:
    from tests.cases import nrt_kernels as nk

    cases = nk.CASES + [nk.dtype_case(d) for d in nk.DTYPES]
    return [(f"nrt:{case.__name__}", functools.partial(nrt_case, case)) for case in cases[part::parts]]


def nrt_case(case) -> None:
    from tests.cases import nrt_kernels as nk

    rows, block = 64, 32
    rng = np.random.default_rng(sum(map(ord, case.__name__)))
    x = rng.uniform(-1.0, 1.0, (rows, nk.N))
    x[::2, 0] = np.abs(x[::2, 0])  # both paths of the cases that branch on the sign
    x[1::2, 0] = -np.abs(x[1::2, 0])
    out = poisoned(rows * nk.OUT, np.float64).reshape(rows, nk.OUT)
    before = out.copy()
    kernel = cuda.jit(nrt=True)(nk.per_thread(case))
    kernel[rows // block, block](out, x, nk.N)
    for i in range(rows):
        np.testing.assert_array_equal(out[i], nk.reference(case, x[i], nk.N, before[i]), err_msg=f"row {i}")
    stats = kernel.nrt_stats()
    assert stats.alloc == stats.free and stats.mi_alloc == stats.mi_free, stats


# -------------------------------------------------------------------------------------------
# GPU ufuncs and reductions


def ufuncs() -> None:
    from tests.cases import ufunc_cases as cases

    rng = np.random.default_rng(7)
    for dtype in ("int32", "int64", "uint8", "float32", "float64", "complex128"):
        for shape in ((37,), (5, 7), (3, 4, 5)):
            if np.dtype(dtype).kind in "iu":
                a, b = (rng.integers(0, 100, shape).astype(dtype) for _ in range(2))
            else:
                a, b = ((rng.standard_normal(shape) * 100).astype(dtype) for _ in range(2))
            np.testing.assert_array_equal(cases.twice_plus(a, b), cases.twice_plus_reference(a, b))
    x = rng.standard_normal((3, 1, 5)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)
    z = rng.standard_normal(5).astype(np.float32)
    cases.check_fused(cases.fused(x, y, z), x, y, z, np.float32)  # broadcast to (3, 4, 5)
    a, b = rng.standard_normal((64, 33)), rng.standard_normal((64, 33))
    out = cuda.to_device(poisoned(64 * 33, np.float64).reshape(64, 33))
    cases.fused(cuda.to_device(a), cuda.to_device(b), 0.5, out=out)  # device operands and output
    cases.check_fused(out.copy_to_host(), a, b, 0.5, np.float64)
    strided = cases.fused(a[::2, ::3], b[::2, ::3], 1.0)
    cases.check_fused(strided, a[::2, ::3], b[::2, ::3], 1.0, np.float64)
    np.testing.assert_array_equal(cases.less(a, b), a < b)
    # guvectorize
    m, n = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(cases.matmul(m, n), np.matmul(m, n), rtol=1e-13, atol=1e-13)
    p, q = rng.integers(-1000, 1000, (4, 5, 9)), rng.integers(-1000, 1000, (5, 9))
    np.testing.assert_array_equal(cases.dot(p, q), np.einsum("ijk,jk->ij", p, q))
    s = rng.standard_normal(3)
    np.testing.assert_array_equal(cases.scaled(a[:3, :8], s), a[:3, :8] * s[:, None])
    # cuda.reduce: sizes around the block size and the grid's, an init, device arrays
    for size in (1, 31, 256, 257, 4099, 100_003):
        values = rng.integers(-(2**40), 2**40, size)
        assert cases.sum_reduce(values) == values.sum()
        assert cases.sum_reduce(cuda.to_device(values), init=5) == values.sum() + 5
    floats = rng.standard_normal(100_003).astype(np.float32)
    assert cases.max_reduce(floats, init=floats.min()) == floats.max()
    res = cuda.to_device(np.full(2, -1, np.int64))
    ints = rng.integers(0, 100, 5000)
    cases.sum_reduce(ints, res=res)
    assert res.copy_to_host()[0] == ints.sum()
    assert cases.sum_reduce(ints, size=1000) == ints[:1000].sum()
    add = cuda.vectorize(["int64(int64, int64)", "float64(float64, float64)"])(lambda a, b: a + b)
    big = rng.integers(-(2**40), 2**40, 100_003)
    assert add.reduce(big) == big.sum()


# -------------------------------------------------------------------------------------------
# cooperative launches


def cooperative() -> None:
    from tests.cases import cg_kernels as ck

    rng = np.random.default_rng(11)
    threads = 128
    smooth = cuda.jit("void(float64[::1], float64[::1], int64)")(ck.smooth)
    n, steps = 5000, 20
    blocks = min(smooth.max_cooperative_grid_blocks(threads), (n + threads - 1) // threads)
    a = rng.uniform(-100, 100, n)
    d_a = cuda.to_device(a)
    smooth[blocks, threads](d_a, cuda.to_device(poisoned(n, np.float64)), steps)
    np.testing.assert_allclose(d_a.copy_to_host(), _smoothed(a, steps), rtol=1e-12, atol=1e-12)

    rotate = cuda.jit("void(int32[::1], int32[::1], int64, int64)")(ck.rotate)
    blocks = min(rotate.max_cooperative_grid_blocks(threads), 16)
    n, shift, steps = blocks * threads - 5, 3 * threads + 1, 10
    values = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)
    rotated = values.copy()
    rotate[blocks, threads](rotated, poisoned(n, np.int32), shift, steps)
    np.testing.assert_array_equal(rotated, np.roll(values, -shift * steps))

    callee = cuda.jit("void(int32[::1], int32[::1])")(ck.synced_by_callee)
    out = poisoned(threads * 2, np.int32)
    callee[2, threads](values[: threads * 2].copy(), out)
    np.testing.assert_array_equal(out, np.roll(values[: threads * 2], -1))

    add_one = cuda.jit(ck.add_one)
    for size, tpb in ((10_003, 0), (1000, 32)):
        ones = rng.integers(-1000, 1000, size).astype(np.float64)
        expected_ones = ones + 1
        add_one.forall(size, tpb=tpb)(ones)
        np.testing.assert_array_equal(ones, expected_ones)
    smoothed = rng.uniform(-1, 1, 1000)
    expected = _smoothed(smoothed, 5)
    smooth.forall(1000, tpb=threads)(smoothed, poisoned(1000, np.float64), 5)
    np.testing.assert_allclose(smoothed, expected, rtol=1e-12, atol=1e-12)


def _smoothed(a: np.ndarray, steps: int) -> np.ndarray:
    """ck.smooth on the host."""
    a = a.copy()
    for _ in range(steps):
        b = a.copy()
        b[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
        a = b
    return a


# -------------------------------------------------------------------------------------------
# running them


def expand(name: str) -> list[tuple[str, Callable[[], None]]]:
    """The programs a name given on the command line stands for, each (its name, its function)."""
    kind, _, what = name.partition(":")
    if kind == "canary" and what:
        return [(name, lambda: canary(what))]
    if kind == "bench" and what:
        return [(name, lambda: bench(what))]
    if kind == "example" and what:
        return [(name, lambda: example(what))]
    if kind == "nrt" and re.fullmatch(r"\d+/\d+", what):
        part, parts = (int(v) for v in what.split("/"))
        return nrt_cases(part, parts)
    if name == "ufuncs":
        return [(name, ufuncs)]
    if name == "cg":
        return [(name, cooperative)]
    raise ValueError(f"no program {name!r}")


def run_one(name: str, function: Callable[[], None]) -> bool:
    say("workload", name)
    try:
        function()
    except Skip as e:
        say("skip", f"{name}: {e}")
        return True
    except Exception as e:
        traceback.print_exc()
        first = (str(e).strip().splitlines() or [""])[0]
        say("failed", f"{name}: {type(e).__name__}: {first}"[:300])
        return False
    say("ok", name)
    return True


def teardown() -> bool:
    """Drops every array, checks the device runtime freed everything it allocated, and
    closes the context (where memcheck reports what is still allocated)."""
    say("teardown")
    ok = True
    gc.collect()
    try:
        if cuda.is_available():
            stats = cuda.nrt_stats()
            if stats.alloc != stats.free or stats.mi_alloc != stats.mi_free:
                say("failed", f"teardown: the device runtime's counters do not balance: {stats}")
                ok = False
            if "cupy" in sys.modules:  # CuPy's pool keeps freed blocks
                sys.modules["cupy"].get_default_memory_pool().free_all_blocks()
            cuda.close()
    except Exception as e:
        traceback.print_exc()
        say("failed", f"teardown: {type(e).__name__}: {e}"[:300])
        ok = False
    return ok


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    ok = True
    for name in argv:
        try:
            programs = expand(name)
        except Exception as e:
            traceback.print_exc()
            say("failed", f"{name}: {type(e).__name__}: {e}"[:300])
            ok = False
            continue
        for program_name, function in programs:
            ok = run_one(program_name, function) and ok
    ok = teardown() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
