"""CUDA vector types on the GPU: vectors built in every way Numba-CUDA allows, copies of
vector arrays (host structured arrays and device arrays), device functions and vector
kernel arguments, against NumPy, bit for bit."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.types import vector_types

from ... import support
from ...cases import vector_kernels as K

pytestmark = pytest.mark.gpu

THREADS = 64


def _random(dtype, n, rng):
    """n random values of a scalar dtype: any bits for integers, normal values for floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(n) * 1000).astype(dtype)
    return rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype)


def _random_vectors(name, n, rng):
    """n random vectors as a structured array: every byte random, NaN payloads included."""
    dtype = vector_types[name].numpy_dtype()
    return rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype)


def _poisoned_vectors(name, n):
    return np.full(n * vector_types[name].size, 0x5A, np.uint8).view(vector_types[name].numpy_dtype())


def _assert_same_bytes(actual, expected):
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


def test_basic():
    @cuda.jit("void(float64[:])")
    def kernel(arr):
        K.put4(arr, 0, cuda.float64x4(1.0, 3.0, 5.0, 7.0))
        K.put2(arr, 4, cuda.short2(10, 11))

    out = support.poisoned(6, np.float64)
    kernel[1, 1](out)
    np.testing.assert_array_equal(out, [1.0, 3.0, 5.0, 7.0, 10.0, 11.0])


@pytest.mark.parametrize("base", K.BASE_TYPES)
def test_compositions(base, rng):
    src = _random(base, 4, rng)
    out = support.poisoned(K.COMPOSED_LANES, base)
    cuda.jit(K.compositions_kernel(base))[1, 1](src, out)
    _assert_same_bytes(out, K.compositions_reference(src))


def test_scalar_conversions(rng):
    src = rng.standard_normal(4) * 1e6
    out = support.poisoned(9, np.float64)
    cuda.jit(K.conversions)[1, 1](src, out)
    np.testing.assert_array_equal(out, K.conversions_reference(src))


@pytest.mark.parametrize("name", ["float32x4", "float32x2", "float64x2", "float64x4", "int8x4", "uint16x3", "int64x1"])
def test_grid_stride_copy(name, backend, rng):
    n = 5000
    src = _random_vectors(name, n, rng)
    dst = _poisoned_vectors(name, n)
    kernel = cuda.jit(f"void({name}[::1], {name}[::1])", backend=backend)(K.grid_stride_copy)
    kernel[8, THREADS](src, dst)  # fewer threads than vectors: each copies several
    _assert_same_bytes(dst, src)


def test_float4_grid_stride_copy_of_device_arrays(rng):
    n = 1 << 16
    src = _random_vectors("float32x4", n, rng)
    d_src = cuda.to_device(src)
    d_dst = cuda.to_device(_poisoned_vectors("float32x4", n))
    cuda.jit("void(float4[::1], float4[::1])")(K.grid_stride_copy)[32, 128](d_src, d_dst)
    _assert_same_bytes(d_dst.copy_to_host(), src)


@pytest.mark.parametrize("name", K.TYPE_NAMES)
def test_reverse_lanes(name, backend, rng):
    n = 300
    src = _random_vectors(name, n, rng)
    dst = _poisoned_vectors(name, n)
    base, count = name.split("x")
    kernel = cuda.jit(f"void({name}[:], {name}[::1])", backend=backend)(K.reverse_lanes_kernel(base, int(count)))
    kernel[(n + THREADS - 1) // THREADS, THREADS](src, dst)
    _assert_same_bytes(dst, K.reverse_lanes_reference(src))


@pytest.mark.parametrize("order", ["C", "F"])
def test_two_dimensional_copy(order, rng):
    shape = (37, 21)
    src = np.asarray(_random_vectors("int32x4", 37 * 21, rng).reshape(shape), order=order)
    dst = np.asarray(_poisoned_vectors("int32x4", 37 * 21).reshape(shape), order=order)
    layout = "::1, :" if order == "F" else ":, ::1"
    kernel = cuda.jit(f"void(int4[{layout}], int4[{layout}])")(K.copy_2d)
    kernel[(5, 3), (8, 8)](src, dst)
    _assert_same_bytes(np.ascontiguousarray(dst), np.ascontiguousarray(src))


def test_views_and_iteration(backend, rng):
    src = np.zeros(101, vector_types["float32x4"].numpy_dtype())
    for lane in "xyzw":
        src[lane] = _random("float32", 101, rng)
    out = support.poisoned(2, np.float64)
    cuda.jit("void(float4[:], float64[::1])", backend=backend)(K.views_and_iteration)[1, 1](src, out)
    np.testing.assert_array_equal(out, K.views_and_iteration_reference(src))


def test_strided_vector_array(rng):
    n = 200
    src = _random_vectors("float64x2", 2 * n, rng)[::2]  # every other vector
    dst = _poisoned_vectors("float64x2", n)
    kernel = cuda.jit("void(double2[:], double2[::1])")(K.reverse_lanes_kernel("float64", 2))
    kernel[(n + THREADS - 1) // THREADS, THREADS](src, dst)
    _assert_same_bytes(dst, K.reverse_lanes_reference(src))


def test_device_functions(rng):
    n = 500
    src = np.zeros(n, vector_types["float32x4"].numpy_dtype())
    for lane in "xyzw":
        src[lane] = _random("float32", n, rng)
    k = np.float32(rng.standard_normal())
    out = _poisoned_vectors("float32x4", n)
    dots = support.poisoned(n, np.float64)
    kernel = cuda.jit("void(float4[::1], float32, float4[::1], float64[::1])")(K.device_functions)
    kernel[(n + THREADS - 1) // THREADS, THREADS](src, k, out, dots)
    expected, expected_dots = K.device_functions_reference(src, k)
    _assert_same_bytes(out, expected)
    np.testing.assert_array_equal(dots, expected_dots)


def test_vector_arguments(rng):
    n = 100
    v = np.array(tuple(_random("float32", 4, rng)), vector_types["float32x4"].numpy_dtype())[()]
    w = np.array(tuple(rng.integers(-1000, 1000, 2)), vector_types["int32x2"].numpy_dtype())[()]
    out = _poisoned_vectors("float32x4", n)
    kernel = cuda.jit("void(float4, int2, float4[::1])")(K.vector_argument)
    kernel[(n + THREADS - 1) // THREADS, THREADS](v, w, out)
    _assert_same_bytes(out, K.vector_argument_reference(v, w, n))
