"""``order=`` on the GPU (operations/numpy/_order.py): ``a.copy``, ``np.*_like``, ``np.empty``
and the other constructors, ``a.ravel``/``np.ravel``, ``a.flatten`` and ``a.reshape`` in each
order, on C, F and layout-A arrays (Fortran-contiguous, C-contiguous and strided ones, whose
order is read at run time); the elements and strides compared with NumPy's."""

import functools

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

pytestmark = pytest.mark.gpu

SHAPE = (4, 6)


def _sources(rng):
    """(name, host array, numba type it is passed as) for each kind of source."""
    c = rng.standard_normal(SHAPE).astype(np.float32)
    f = np.asfortranarray(c)
    wide = rng.standard_normal((8, 6)).astype(np.float32)
    wide_f = np.asfortranarray(rng.standard_normal((4, 12)).astype(np.float32))
    return [
        ("C", c, types.float32[:, ::1]),
        ("F", f, types.float32[::1, :]),
        ("A of a C array", c, types.float32[:, :]),
        ("A of an F array", f, types.float32[:, :]),
        ("A strided like C", wide[::2], types.float32[:, :]),
        ("A strided like F", wide_f[:, ::2], types.float32[:, :]),
    ]


@functools.cache
def _copier(order, how):
    """A kernel storing a's copy (by *how*, in *order*) and its strides."""
    if how == "copy":

        def make(a):
            return a.copy(order=order)

    elif how == "empty_like":

        def make(a):
            b = np.empty_like(a, order=order)
            b[...] = a
            return b

    else:

        def make(a):
            return np.full_like(a, 7.5, order=order)

    make = cuda.jit(device=True)(make)

    def kernel(a, values, strides):
        b = make(a)
        for i in range(b.shape[0]):
            for j in range(b.shape[1]):
                values[i, j] = b[i, j]
        strides[0] = b.strides[0]
        strides[1] = b.strides[1]

    return kernel


@functools.cache
def _eager(pyfunc, *argtypes):
    """*pyfunc* compiled for *argtypes* alone: a launch passes its arrays as those types (a
    contiguous array as layout A)."""
    return cuda.jit(types.void(*argtypes))(pyfunc)


def _run_copy(order, how, source, numba_type):
    kernel = _eager(_copier(order, how), numba_type, types.float32[:, ::1], types.int64[::1])
    values = np.full(source.shape, np.nan, np.float32)
    strides = np.zeros(2, np.int64)
    kernel[1, 1](source, values, strides)
    return values, tuple(strides)


@pytest.mark.parametrize("how", ["copy", "empty_like", "full_like"])
@pytest.mark.parametrize("order", ["C", "F", "A", "K", "a", "f"])
def test_copies_have_numpy_s_elements_and_strides(order, how, rng):
    for name, source, numba_type in _sources(rng):
        values, strides = _run_copy(order, how, source, numba_type)
        if how == "copy":
            expected = source.copy(order=order)
        else:
            expected = np.empty_like(source, order=order)
            expected[...] = source if how == "empty_like" else 7.5
        np.testing.assert_array_equal(values, expected, err_msg=f"{name}, order={order}")
        if order.upper() != "K" or "strided" not in name:
            # K of a strided array: NumPy follows the strides' order, cumlir gives C unless F-contiguous
            assert strides == expected.strides, f"{name}, order={order}"


@functools.cache
def _flattener(order, how):
    @cuda.jit(device=True)
    def flat(a):
        if how == "ravel":
            return a.ravel(order=order)
        if how == "np.ravel":
            return np.ravel(a, order)
        return a.flatten(order=order)

    def kernel(a, out):
        b = flat(a)
        for k in range(b.size):
            out[k] = b[k]

    return kernel


@pytest.mark.parametrize("how", ["ravel", "np.ravel", "flatten"])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_flattened_in_numpy_s_order(order, how, rng):
    for name, source, numba_type in _sources(rng):
        if order == "K" and numba_type.layout == "A":
            continue  # refused: the memory order of a layout-A array is known only at run time
        out = np.full(source.size, np.nan, np.float32)
        kernel = _eager(_flattener(order, how), numba_type, types.float32[::1])
        kernel[1, 1](source, out)
        np.testing.assert_array_equal(out, source.ravel(order=order), err_msg=f"{name}, {how}(order={order})")


@cuda.jit
def _ravel_view(a, out):
    b = a.ravel(order="A")  # an F array read in its own order: a view
    b[0] = 42.0
    out[0] = a[0, 0]


def test_ravel_in_the_array_s_own_order_is_a_view(rng):
    f = np.asfortranarray(rng.standard_normal(SHAPE).astype(np.float32))
    out = np.zeros(1, np.float32)
    _ravel_view[1, 1](f, out)
    assert out[0] == 42.0


@functools.cache
def _reshaper(order):
    @cuda.jit
    def kernel(a, out):
        b = a.reshape((3, 8), order=order)
        c = a.reshape(24, order=order)
        for i in range(3):
            for j in range(8):
                out[i, j] = b[i, j]
        for k in range(24):
            out[3 + k // 8, k % 8] = c[k]

    return kernel


@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_reshape_places_elements_in_the_order(order, rng):
    c = rng.standard_normal(SHAPE).astype(np.float32)
    for source in (c, np.asfortranarray(c), c.ravel()):
        layout = "F" if source.ndim > 1 and source.flags.f_contiguous else "C"
        if source.ndim > 1 and order not in ("A", layout):
            continue  # another order than the memory's: a copy in NumPy, refused
        out = np.full((6, 8), np.nan, np.float32)
        _reshaper(order)[1, 1](source, out)
        expected = np.concatenate([source.reshape((3, 8), order=order), source.reshape(24, order=order).reshape(3, 8)])
        np.testing.assert_array_equal(out, expected, err_msg=f"{source.ndim}-d {layout} array, order={order}")


@functools.cache
def _constructor(order):
    @cuda.jit
    def kernel(values, strides):
        z = np.zeros((3, 5), np.float32, order=order)
        o = np.ones((3, 5), order=order)
        f = np.full((3, 5), 2.5, np.float32, order)
        e = np.empty((3, 5), np.int32, order=order)
        e[...] = 4
        for i in range(3):
            for j in range(5):
                values[i, j] = z[i, j] + o[i, j] + f[i, j] + e[i, j]
        strides[0], strides[1] = z.strides[0], z.strides[1]
        strides[2], strides[3] = o.strides[0], o.strides[1]
        strides[4], strides[5] = e.strides[0], e.strides[1]

    return kernel


@pytest.mark.parametrize("order", ["C", "F"])
def test_constructors_in_c_or_fortran_order(order):
    values = np.zeros((3, 5), np.float32)
    strides = np.zeros(6, np.int64)
    _constructor(order)[1, 1](values, strides)
    np.testing.assert_array_equal(values, np.full((3, 5), 7.5, np.float32))
    expected = [np.zeros((3, 5), np.float32, order=order).strides, np.ones((3, 5), order=order).strides]
    expected.append(np.empty((3, 5), np.int32, order=order).strides)
    assert tuple(strides) == sum(expected, ())
