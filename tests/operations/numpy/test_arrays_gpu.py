"""Arrays on the GPU: 1-d to 4-d in every layout and dtype, views, slices, assignment to
views, reshape/view, device functions taking views, bounds checks; compared with NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import array_kernels

pytestmark = pytest.mark.gpu

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
DTYPES += ["float16", "float32", "float64", "complex64", "complex128"]
SHAPES = {1: (37,), 2: (5, 7), 3: (3, 4, 5), 4: (2, 3, 4, 5)}


def _random(shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    values = rng.standard_normal(shape) * 100
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _poisoned_like(a):
    out = np.empty_like(a)
    _bytes(out)[...] = 0xA5
    return out


def _bytes(a):
    """The bytes of a C- or F-contiguous array, in memory order."""
    return a.ravel(order="K").view(np.uint8)


def _launch_copy(ndim, a, out):
    threads = 64
    cuda.jit(array_kernels.COPY_KERNELS[ndim])[(a.size + threads - 1) // threads, threads](a, out)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", DTYPES)
def test_element_access_c_and_f(ndim, dtype, rng):
    for order in "CF":
        a = np.asarray(_random(SHAPES[ndim], dtype, rng), order=order)
        out = np.asarray(_poisoned_like(a), order=order)
        _launch_copy(ndim, a, out)
        np.testing.assert_array_equal(_bytes(out), _bytes(a))


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64", "float16", "float64", "complex64"])
def test_element_access_strided_device_views(ndim, dtype, rng):
    """Layout A with negative and non-unit strides, used in place (CuPy views)."""
    cp = pytest.importorskip("cupy")
    big = _random(tuple(2 * n + 1 for n in SHAPES[ndim]), dtype, rng)
    selection = tuple(slice(None, None, -2) if axis % 2 == 0 else slice(1, None, 2) for axis in range(ndim))
    a = cp.asarray(big)[selection]
    out_big = cp.asarray(_poisoned_like(big))
    out = out_big[selection]
    assert not a.flags.c_contiguous and not a.flags.f_contiguous
    _launch_copy(ndim, a, out)
    cp.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(cp.asnumpy(out), big[selection])
    untouched = np.ones(big.shape, bool)
    untouched[selection] = False
    poison = _poisoned_like(big)
    np.testing.assert_array_equal(cp.asnumpy(out_big)[untouched].view(np.uint8), poison[untouched].view(np.uint8))


def test_zero_dimensional_arrays():
    a = np.array(2.5)
    out = np.array(np.nan)
    cuda.jit(array_kernels.scale_0d)[1, 1](a, out)
    assert out[()] == 7.5


def _compare_program(program, inputs, outputs, reference=None):
    """Run *program* as a one-thread kernel and on the host; every array must agree."""
    device_args = [x.copy() for x in inputs] + [x.copy() for x in outputs]
    host_args = [x.copy() for x in inputs] + [x.copy() for x in outputs]
    cuda.jit(program)[1, 1](*device_args)
    (reference or program)(*host_args)
    for got, expected in zip(device_args, host_args):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("order", "CF")
def test_views_2d(order, rng):
    a = np.asarray(rng.standard_normal((9, 8)), order=order)
    _compare_program(array_kernels.views_2d, [a], [np.full(22, np.nan)])


@pytest.mark.parametrize("order", "CF")
def test_views_4d(order, rng):
    a = np.asarray(rng.standard_normal((3, 4, 5, 6)).astype(np.float32), order=order)
    _compare_program(array_kernels.views_4d, [a], [np.full(8, np.nan)])


def test_views_of_strided_device_arrays(rng):
    cp = pytest.importorskip("cupy")
    host = rng.standard_normal((19, 17))
    a_host = host[::-2, 1::2]
    out = cp.full(22, cp.nan)
    cuda.jit(array_kernels.views_2d)[1, 1](cp.asarray(host)[::-2, 1::2], out)
    expected = np.full(22, np.nan)
    array_kernels.views_2d(a_host, expected)  # same byte strides as the device view
    np.testing.assert_array_equal(cp.asnumpy(out), expected)


@pytest.mark.parametrize("order", "CF")
def test_assignment_to_views(order, rng):
    a = np.asarray(rng.standard_normal((10, 7)), order=order)
    b = np.asarray(rng.standard_normal((10, 7)), order=order)
    _compare_program(array_kernels.assign_views, [a, b], [])


def test_reshape_and_view(rng):
    a = rng.standard_normal(24).astype(np.float32)
    _compare_program(array_kernels.reshape_and_view, [a], [np.full(8, np.nan)])


@pytest.mark.parametrize("order", "CF")
def test_views_passed_to_device_functions(order, rng):
    a = np.asarray(rng.standard_normal((6, 5)), order=order)
    _compare_program(
        array_kernels.views_through_device_function,
        [a],
        [np.full(3, np.nan)],
        array_kernels.host_views_through_device_function,
    )


def test_out_of_bounds_is_an_index_error_in_debug_mode():
    kernel = cuda.jit(debug=True)(array_kernels.out_of_bounds)
    a = np.zeros(10, np.float32)
    kernel[1, 1](a, -10)  # wraps to 0: in bounds
    assert a[0] == 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        kernel[1, 1](a, 10)
    with pytest.raises(IndexError):
        kernel[1, 1](a, -11)
    with pytest.raises(IndexError):
        cuda.jit(debug=True)(array_kernels.out_of_bounds_2d)[1, 1](np.zeros((3, 4), np.float32), 4)
    # the kernel still works after reporting
    kernel[1, 1](a, 9)
    assert a[9] == 1.0


def test_wrong_ndim_for_an_eager_signature():
    kernel = cuda.jit("void(float64[:, :], int64)")(array_kernels.out_of_bounds_2d)
    with pytest.raises(TypeError, match="no compiled signature"):
        kernel[1, 1](np.zeros(4), 1)


def test_read_only_arrays_are_read_and_not_copied_back(rng):
    a = rng.standard_normal(100)
    a.flags.writeable = False
    out = np.full(100, np.nan)
    _launch_copy(1, a, out)
    np.testing.assert_array_equal(out, a)


def test_broadcast_device_arrays_with_zero_strides(rng):
    cp = pytest.importorskip("cupy")
    row = rng.standard_normal(7)
    a = cp.broadcast_to(cp.asarray(row), (5, 7))
    out = cp.full((5, 7), cp.nan)
    _launch_copy(2, a, out)
    np.testing.assert_array_equal(cp.asnumpy(out), np.broadcast_to(row, (5, 7)))


def test_tuples_holding_arrays(rng):
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    _compare_program(array_kernels.tuple_of_arrays, [a, b], [np.full(2, np.nan)], array_kernels.host_tuple_of_arrays)
