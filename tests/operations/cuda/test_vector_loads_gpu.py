"""``cuda.vector.load``/``store`` (numba-cuda-mlir's) on the GPU: vectors of 1 to 4 elements
read from and written to 1-d and 2-d arrays, strided views and raw pointers, with and without
an alignment, against NumPy; what the index checks raise."""

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

pytestmark = pytest.mark.gpu

LANES = {1: "x", 2: "xy", 3: "xyz", 4: "xyzw"}


def _kernel(count, aligned):
    """out[k] = the vector from a[k * count] on, lanes reversed, stored into b there."""
    make = getattr(cuda, f"float32x{count}")
    alignment = 4 if count == 3 else 4 * count  # a 3-lane group is aligned to its elements only

    def reverse(v):
        if count == 1:
            return make(v.x)
        if count == 2:
            return make(v.y, v.x)
        if count == 3:
            return make(v.z, v.y, v.x)
        return make(v.w, v.z, v.y, v.x)

    reverse = cuda.jit(device=True)(reverse)

    @cuda.jit
    def kernel(a, b):
        i = cuda.grid(1)
        if (i + 1) * count <= a.shape[0]:
            if aligned:
                v = cuda.vector.load(a, i * count, count, alignment=alignment)
                cuda.vector.store(b, i * count, reverse(v), alignment)
            else:
                v = cuda.vector.load(a, i * count, (count,))
                cuda.vector.store(b, i * count, reverse(v))

    return kernel


@pytest.mark.parametrize("count", [1, 2, 3, 4])
@pytest.mark.parametrize("aligned", [True, False], ids=["aligned", "lane by lane"])
def test_load_and_store_reverse_each_group(count, aligned, rng):
    a = rng.standard_normal(count * 40).astype(np.float32)
    b = np.full_like(a, np.nan)
    _kernel(count, aligned)[2, 32](a, b)
    np.testing.assert_array_equal(b, a.reshape(-1, count)[:, ::-1].ravel())


@cuda.jit
def _rows(m, out):
    """Each row's elements 1..4 of a 2-d array (a strided view too), as ints into a float row."""
    i = cuda.grid(1)
    if i < m.shape[0]:
        v = cuda.vector.load(m, (i, 1), 4)
        cuda.vector.store(out, (i, 0), v)  # int16 lanes into float64 elements, converted


def test_2d_arrays_and_strided_views(rng):
    m = rng.integers(-30000, 30000, (12, 9), dtype=np.int16)
    for view in (cuda.to_device(m), cuda.to_device(m)[::2, ::2]):
        host = view.copy_to_host()
        out = np.full((host.shape[0], 4), np.nan)
        _rows[1, 32](view, out)
        np.testing.assert_array_equal(out, host[:, 1:5].astype(np.float64))


@cuda.jit("void(CPointer(float64), float64[::1])")
def _through_a_pointer(p, out):
    i = cuda.grid(1)
    if 2 * i + 1 < out.shape[0]:
        v = cuda.vector.load(p, 2 * i, 2, alignment=16)
        out[2 * i] = v.y
        out[2 * i + 1] = v.x


def test_raw_pointers(rng):
    a = cuda.to_device(rng.standard_normal(64))
    out = np.zeros(64)
    _through_a_pointer[1, 32](a, out)
    np.testing.assert_array_equal(out, a.copy_to_host().reshape(-1, 2)[:, ::-1].ravel())


@cuda.jit(debug=True, opt=False)
def _past_the_end(a, out):
    v = cuda.vector.load(a, a.shape[0] - 2, 4)
    out[0] = v.x


@cuda.jit(debug=True, opt=False)
def _misaligned(a, out):
    v = cuda.vector.load(a, 1, 4, alignment=16)
    out[0] = v.x


def test_the_index_checks(rng):
    a = np.zeros(16, np.float32)
    out = np.zeros(1, np.float32)
    with pytest.raises(IndexError, match="vector index is out of bounds"):
        _past_the_end[1, 1](a, out)
    with pytest.raises(ValueError, match="alignment=16: the 4 elements are not contiguous and aligned"):
        _misaligned[1, 1](a, out)


def test_through_the_namespace_module():
    from cumlir.cuda.vector import load, store

    assert load is cuda.vector.load and store is cuda.vector.store
    assert types.float32 is not None  # numba loaded alongside
