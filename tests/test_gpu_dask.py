"""GPU ufuncs applied to Dask arrays through NumPy's ``__array_ufunc__`` protocol, on Dask's
threaded scheduler in this process: arrays of CuPy chunks and of NumPy chunks, a
generalized ufunc over unchunked core axes, and a ``@cuda.jit`` kernel through
``map_blocks`` (the multi-GPU cluster runs in examples/dask_multi_gpu.py)."""

import numpy as np
import pytest

from cumlir import cuda

pytestmark = pytest.mark.gpu

da = pytest.importorskip("dask.array")
cupy = pytest.importorskip("cupy")


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def hypot2(x, y):
    return x * x + y * y


@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(x, y, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    out[0] = acc


@cuda.jit
def shifted(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_ufunc_on_dask_arrays_of_cupy_chunks(rng, dtype):
    x, y = (rng.standard_normal(100_003).astype(dtype) for _ in range(2))
    dx = da.from_array(cupy.asarray(x), chunks=30_000, asarray=False)
    dy = da.from_array(cupy.asarray(y), chunks=30_000, asarray=False)
    result = hypot2(dx, dy)
    assert isinstance(result, da.Array) and result.dtype == dtype
    got = result.compute(scheduler="threads")
    assert isinstance(got, cupy.ndarray)
    expected = x.astype(np.float64) ** 2 + y.astype(np.float64) ** 2
    np.testing.assert_allclose(cupy.asnumpy(got), expected, rtol=4 * np.finfo(dtype).eps)


def test_a_ufunc_on_a_dask_array_of_numpy_chunks_and_a_scalar(rng):
    x = rng.standard_normal(5000)
    got = hypot2(da.from_array(x, chunks=1024), 2.0).compute(scheduler="threads")
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, x * x + 4.0, rtol=1e-15)


def test_a_generalized_ufunc_on_dask_arrays(rng):
    x, y = rng.standard_normal((3000, 16)), rng.standard_normal((3000, 16))
    dx = da.from_array(cupy.asarray(x), chunks=(700, 16), asarray=False)
    dy = da.from_array(cupy.asarray(y), chunks=(700, 16), asarray=False)
    got = dot(dx, dy).compute(scheduler="threads")
    np.testing.assert_allclose(cupy.asnumpy(got), np.einsum("ij,ij->i", x, y), rtol=1e-12)


def test_a_kernel_through_map_blocks(rng):
    x = rng.standard_normal(10_000).astype(np.float32)

    def block(chunk):
        out = cupy.empty_like(chunk)
        shifted[(chunk.size + 255) // 256, 256](chunk, out)
        return out

    dx = da.from_array(cupy.asarray(x), chunks=3000, asarray=False)
    got = dx.map_blocks(block, dtype=np.float32, meta=cupy.empty((0,), np.float32)).compute(scheduler="threads")
    np.testing.assert_array_equal(cupy.asnumpy(got), x + 1)
