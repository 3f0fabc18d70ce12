"""Loads and stores with cache hints (``cuda.ldcg``, ``cuda.stcs`` ...): the PTX each emits
on both code generators, assembled by ptxas, and the typing errors; on the GPU, the values
they read and write."""

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support

LOADS = ["ldca", "ldcg", "ldcs", "ldlu", "ldcv"]
STORES = ["stcg", "stcs", "stwb", "stwt"]
DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]


def _bits(dtype):
    return np.dtype(dtype).itemsize * 8


def _load_kernel(name):
    hint = getattr(cuda, name)

    def kernel(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = hint(a, i)

    return kernel


def _store_kernel(name):
    hint = getattr(cuda, name)

    def kernel(a, out):
        i = cuda.grid(1)
        if i < out.size:
            hint(out, i, a[i])

    return kernel


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", LOADS)
def test_load_emits_its_hint(name, dtype, backend):
    ptx, _ = cuda.compile_ptx(_load_kernel(name), f"void({dtype}[::1], {dtype}[::1])", cc=(9, 0), backend=backend)
    width = "u8" if _bits(dtype) == 8 else f"b{_bits(dtype)}"
    assert f"ld.global.{name[2:]}.{width}" in ptx
    support.ptxas(ptx)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", STORES)
def test_store_emits_its_hint(name, dtype, backend):
    ptx, _ = cuda.compile_ptx(_store_kernel(name), f"void({dtype}[::1], {dtype}[::1])", cc=(9, 0), backend=backend)
    assert f"st.global.{name[2:]}.b{_bits(dtype)}" in ptx
    support.ptxas(ptx)


def test_tuple_indices_and_pointers(backend):
    def kernel2d(a, out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            cuda.stwt(out, (i, j), cuda.ldcs(a, (i, j)))

    ptx, _ = cuda.compile_ptx(kernel2d, "void(float64[:, :], float64[:, :])", cc=(9, 0), backend=backend)
    assert "ld.global.cs.b64" in ptx and "st.global.wt.b64" in ptx
    support.ptxas(ptx)

    def through_pointer(p, i, v):
        cuda.stcs(p, i, v)  # v is converted to the element type
        return cuda.ldcg(p, i + 1)

    ptx, result = cuda.compile_ptx(
        through_pointer,
        (types.CPointer(types.float32), types.int64, types.float64),
        device=True,
        cc=(9, 0),
        backend=backend,
    )
    assert result == types.float32
    assert "st.global.cs.b32" in ptx and "ld.global.cg.b32" in ptx


@pytest.mark.parametrize(
    "body, sig, message",
    [
        ("cuda.ldcg(a, 0)", "void(float32[:, :])", "needs a tuple of 2 integers"),
        ("cuda.ldcg(a, (0, 1))", "void(float32[:])", "needs an integer"),
        ("cuda.ldcg(a, 0)", "void(complex64[:])", "integers or floats of 8, 16, 32 or 64 bits"),
        ("cuda.ldcg(a, 0)", "void(boolean[:])", "integers or floats"),
        ("cuda.stcg(a, 0, 1)", "void(Array(float32, 1, 'C', readonly=True))", "read-only"),
        ("cuda.stcg(a, 0, a)", "void(float32[:])", "must be a number"),
        ("cuda.ldcg(a, 1.5)", "void(float32[:])", "needs an integer"),
        ("cuda.ldcg(1.0, 0)", "void(float32[:])", "operates on arrays or pointers"),
    ],
)
def test_typing_errors(body, sig, message):
    namespace = {"cuda": cuda}
    exec(f"def kernel(a):\n    {body}\n", namespace)
    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(namespace["kernel"], sig, cc=(9, 0))


# ---- on the GPU -----------------------------------------------------------------------------


def _random(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_loads_and_stores_move_the_values(dtype, rng):
    n = 1000
    values = _random(rng, dtype, n)
    for name in LOADS:
        out = cuda.to_device(support.poisoned(n, dtype))
        cuda.jit(_load_kernel(name))[8, 128](cuda.to_device(values), out)
        np.testing.assert_array_equal(
            out.copy_to_host().view(f"u{np.dtype(dtype).itemsize}"),
            values.view(f"u{np.dtype(dtype).itemsize}"),
            err_msg=name,
        )
    for name in STORES:
        out = cuda.to_device(support.poisoned(n, dtype))
        cuda.jit(_store_kernel(name))[8, 128](cuda.to_device(values), out)
        np.testing.assert_array_equal(
            out.copy_to_host().view(f"u{np.dtype(dtype).itemsize}"),
            values.view(f"u{np.dtype(dtype).itemsize}"),
            err_msg=name,
        )


@pytest.mark.gpu
def test_gpu_2d_negative_indices_and_conversion(rng):
    @cuda.jit
    def flip(a, out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            # negative indices wrap, as a[-1 - i, -1 - j] does; the int64 value is converted
            cuda.stcg(out, (i, j), np.int64(cuda.ldcv(a, (-1 - i, -1 - j))) * 3)

    a = rng.integers(-1000, 1000, (33, 65)).astype(np.int32)
    out = cuda.to_device(support.poisoned(a.size, np.int32).reshape(a.shape))
    flip[(3, 5), (16, 16)](cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), a[::-1, ::-1] * 3)
