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


# ---- scalar arrays viewed as vectors ------------------------------------------------------------


@pytest.mark.parametrize("name", ["float32x2", "float32x4", "int16x4", "float64x2", "uint8x3", "int64x1", "float16x2"])
@pytest.mark.parametrize("ndim", [1, 2])
def test_scalar_arrays_viewed_as_vectors(name, ndim, rng):
    vty = vector_types[name]
    base = str(vty.base_type)
    shape = (vty.count * 6,) if ndim == 1 else (3, vty.count * 4)
    a = _random(base, int(np.prod(shape)), rng).reshape(shape)
    out = support.poisoned(a.size, base)
    reversed_ = support.poisoned(a.size, base).reshape(shape)
    facts = np.zeros(4, np.int64)
    K.viewed_kernel(name)[1, 1](a, out, reversed_, facts)
    expected, expected_reversed = K.viewed_reference(a, vty.count)
    np.testing.assert_array_equal(out.view(np.uint8), expected.view(np.uint8))
    np.testing.assert_array_equal(reversed_.view(np.uint8), expected_reversed.view(np.uint8))
    numpy_view = a.view(vty.numpy_dtype())  # NumPy's view of the same bytes as records of the lanes
    assert tuple(facts) == (numpy_view.shape[-1], numpy_view.strides[-1], vty.size, numpy_view.strides[0])


@cuda.jit
def _quarters(a, out):
    v = a.view(cuda.float32x4)
    i = cuda.grid(1)
    if i < v.size:
        out[i] = v[i].x + v[i].y + v[i].z + v[i].w


def test_device_array_viewed_as_float4(rng):
    a = rng.standard_normal(4 * 64).astype(np.float32)
    out = cuda.device_array(64, np.float32)
    _quarters[2, 32](cuda.to_device(a), out)
    groups = a.reshape(64, 4)
    expected = ((groups[:, 0] + groups[:, 1]) + groups[:, 2]) + groups[:, 3]
    np.testing.assert_array_equal(out.copy_to_host(), expected)


@cuda.jit(debug=True, opt=False)
def _misaligned(a, out):
    v = a[1:].view(cuda.float32x4)  # 4 bytes past an aligned start: not aligned to 16
    out[0] = v[0].x


def test_misaligned_view_as_a_vector_type_raises_with_debug():
    a = np.zeros(17, np.float32)
    out = np.zeros(1, np.float32)
    with pytest.raises(ValueError, match="cannot view .* as float32x4: 16 does not divide its data's address"):
        _misaligned[1, 1](a, out)


@cuda.jit(debug=True, opt=False)
def _strided_view(a, out):
    v = a.view(cuda.float32x2)
    out[0] = v[0, 0].x


def test_view_changing_a_strided_axis_raises_with_debug():
    a = cuda.to_device(np.zeros((4, 8), np.float32))  # a device array's views are passed as they are
    out = np.zeros(1, np.float32)
    _strided_view[1, 1](a[:, :4], out)  # rows of 4 floats, a layout-A view: fine
    with pytest.raises(ValueError, match="the axis it changes is not contiguous"):
        _strided_view[1, 1](a[:, ::2], out)


@cuda.jit
def _fortran_pairs(a, out):
    v = a.view(np.float64)  # an F array: its first axis halves, as Numba-CUDA's view
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            out[i, j] = v[i, j]


def test_fortran_array_view_changes_its_first_axis(rng):
    a = np.asfortranarray(rng.standard_normal((6, 3)).astype(np.float32))
    out = np.zeros((3, 3), np.float64)
    _fortran_pairs[1, 1](a, out)
    expected = a.T.copy().view(np.float64).T  # the same bytes, paired down each column
    np.testing.assert_array_equal(out, expected)
