"""The warp's matrix multiply-accumulate on the tensor cores (operations/tensor_cores/mma.py:
cuda.intrin's mma_sync; docs/tensor_cores.md): the PTX it gives on both code generators, checked
by ptxas; the fragments kept in registers; the chips it needs; its bad arguments. ldmatrix and
stmatrix are test_ldmatrix.py's."""

import re

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda, types
from cumlir.cuda import intrin

from ... import support
from ...cases import tensor_core_kernels as tk


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _local_memory(ptx):
    return re.findall(r"\b(?:ld|st)\.local\b|\.local\s", ptx)


def _skip_bfloat16_arrays_on_nvvm(backend, *dtypes):
    # libNVVM reads LLVM 7 IR below sm_100, which has no bfloat: arrays of bfloat16 are refused there
    if backend == "nvvm" and types.bfloat16 in dtypes:
        pytest.skip("arrays of bfloat16 need backend='nvptx' below sm_100")


def _compiled(kernel, sig, backend, cc=(8, 0)):
    """PTX for *cc*, assembled by ptxas for it and for sm_90 (PTX of an older target runs on newer chips)."""
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    for chip in sorted({f"sm_{cc[0]}{cc[1]}", "sm_90"}):
        support.ptxas(ptx, chip)
    return ptx


@pytest.mark.parametrize("case", tk.CASES, ids=tk.case_id)
def test_each_mma_assembles(backend, case):
    shape, a, b, c = case
    _skip_bfloat16_arrays_on_nvvm(backend, a, b)
    kernel = tk.mma_kernel(shape, a, b, c)
    accumulator = tk.ACCUMULATOR_PTX_TYPE[str(c)]
    expected = (
        f"mma.sync.aligned.{shape}.row.col.{accumulator}.{tk.PTX_TYPE[str(a)]}.{tk.PTX_TYPE[str(b)]}.{accumulator}"
    )
    m, n, k = tk.dims(shape)
    registers_of = {"f16": 2, "s32": 1, "f32": 1, "f64": 1}
    per_register = max(1, 32 // tk.register_bits(a)) if str(a) != "float64" else 1
    d_count = m * n // 32 // registers_of[accumulator]
    cc = (8, 9) if str(a).startswith("f8") else (8, 0)
    ptx = _compiled(kernel, tk.mma_signature(a, b, c), backend, cc)
    (line,) = _instructions(ptx, r"^mma\.sync")
    assert line.startswith(expected + " "), line
    # D, A, B, C: as many registers as PTX's fragments have for the shape
    groups = [len(g.split(",")) for g in re.findall(r"\{([^}]*)\}", line)]
    assert groups == [d_count, m * k // 32 // per_register, k * n // 32 // per_register, d_count], line


def test_satfinite(backend):
    sig = "void(int32[::1], int8[::1], int8[::1], int32[::1])"
    ptx = _compiled(tk.saturating_product, sig, backend)
    (line,) = _instructions(ptx, r"^mma\.sync")
    assert line.startswith("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 "), line


def test_fragments_stay_in_registers(backend):
    # the fragments are carried round a loop: the mma's accumulator is read and written on every trip
    sig = "void(float16[:, ::1], float16[:, ::1], float32[:, ::1])"
    ptx = _compiled(tk.registers_stay_in_registers, sig, backend)
    assert len(_instructions(ptx, r"^mma\.sync")) >= 1
    assert not _local_memory(ptx), ptx


def test_the_chips_and_ptx_versions_they_need(backend):
    shape, a, b, c = "m16n8k32", types.f8E4M3FN, types.f8E4M3FN, types.float32
    kernel = tk.mma_kernel(shape, a, b, c)
    with pytest.raises(ValueError, match=r"intrin\.mma_sync\(m16n8k32, f8E4M3FN\) needs sm_89 or newer; .* sm_80"):
        cuda.compile_ptx(kernel, tk.mma_signature(a, b, c), cc=(8, 0), backend=backend)
    bf16 = tk.mma_kernel("m16n8k16", types.float16, types.float16, types.float32)
    with pytest.raises(ValueError, match=r"intrin\.mma_sync\(m16n8k16, float16\) needs sm_80 or newer; .* sm_75"):
        cuda.compile_ptx(bf16, tk.mma_signature(types.float16, types.float16, types.float32), cc=(7, 5))
    if backend == "nvptx":
        ptx, _ = cuda.compile_ptx(kernel, tk.mma_signature(a, b, c), cc=(8, 9), backend=backend)
        assert tuple(map(int, re.search(r"^\.version (\d+)\.(\d+)", ptx, re.M).groups())) >= (8, 4)


def test_the_names_are_cuda_intrin_stubs():
    assert intrin.mma_sync.__name__ == "mma_sync" and "mma_sync" in dir(intrin)
    with pytest.raises(RuntimeError, match="cuda.mma_sync can only be used inside"):
        intrin.mma_sync(None, None, None, None, "m16n8k16")


def _bad(body, arrays):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np, "types": types}
    lines = [f"    {name} = cuda.local.array({n}, {dtype})" for name, (n, dtype) in arrays.items()]
    exec("def kernel(out, sm):\n" + "\n".join(lines) + f"\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], "void(float32[:], uint16[:, ::1])", cc=(9, 0))


_F16 = {"a": (8, "np.float16"), "b": (4, "np.float16"), "c": (4, "np.float32"), "d": (4, "np.float32")}


@pytest.mark.parametrize(
    "body, arrays, message",
    [
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k9')",
            _F16,
            r"no shape 'm16n8k9' for float16 inputs; the shapes are m16n8k8, m16n8k16",
        ),
        ("intrin.mma_sync(d, a, b, c, out[0])", _F16, r"the shape must be a literal string"),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k16')",
            {**_F16, "b": (4, "types.bfloat16")},
            r"with a of float16, b's dtype must be one of float16, got bfloat16",
        ),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k16')",
            {**_F16, "a": (8, "np.int16")},
            r"a's dtype must be one of float16, bfloat16, float32, tf32, int8, uint8, f8E4M3FN, f8E5M2, float64, got int16",
        ),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k16')",
            {**_F16, "c": (4, "np.float64")},
            r"intrin\.mma_sync\(m16n8k16\): with float16 inputs, c's dtype must be float32 or float16, got float64",
        ),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k16')",
            {**_F16, "d": (4, "np.float16")},
            r"c and d must have the same dtype, got float32 and float16",
        ),
        ("intrin.mma_sync(d, a, b, c, 'm16n8k16', True)", _F16, r"satfinite applies to int8 and uint8 inputs only"),
        ("intrin.mma_sync(d, a, b, out[0], 'm16n8k16')", _F16, r"c must be a 1-d local array of numbers, got float32"),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k16')",
            {**_F16, "a": (4, "np.float16")},
            r"intrin\.mma_sync\(m16n8k16\): a must hold 8 elements of float16, got a local array of 4",
        ),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k16')",
            {**_F16, "d": (8, "np.float32")},
            r"intrin\.mma_sync\(m16n8k16\): d must hold 4 elements of float32, got a local array of 8",
        ),
        (
            "intrin.mma_sync(d, a, b, c, 'm16n8k8')",
            {**_F16, "a": (8, "np.float32"), "b": (2, "types.tf32")},
            r"intrin\.mma_sync\(m16n8k8\): a must hold 4 elements of float32, got a local array of 8",
        ),
    ],
)
def test_bad_arguments(body, arrays, message):
    with pytest.raises(TypingError, match=message):
        _bad(body, arrays)()


@pytest.mark.parametrize("case", tk.CASES, ids=tk.case_id)
def test_the_fragment_layouts_cover_each_tile_once(case):
    # the host's statement of the layouts (docs/tensor_cores.md), which the GPU tests gather by
    shape, a, _, _ = case
    m, n, k = tk.dims(shape)
    for operand, (rows, cols) in zip("abc", ((m, k), (k, n), (m, n))):
        places = tk.fragment_layout(shape, a, operand).reshape(-1, 2)
        assert len(places) == rows * cols
        assert sorted(map(tuple, places.tolist())) == [(r, c) for r in range(rows) for c in range(cols)]
