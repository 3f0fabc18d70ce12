"""``order=`` on the CPU (operations/numpy/_order.py): every function and method taking it
compiles in every order, on C, F and layout-A arrays, to PTX that ptxas accepts from both code
generators; the orders each refuses, and how, naming the call and its line."""

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError, UnsupportedError

from cumlir import cuda

from ... import support

ARRAYS = [types.float32[:, ::1], types.float32[::1, :], types.float32[:, :]]


def _checked(kernel, argtypes, backend):
    """The kernel's PTX, which ptxas accepts (the device runtime, which new arrays call, is
    linked later)."""
    ptx, _ = cuda.compile_ptx(kernel, argtypes, cc=(9, 0), backend=backend)
    support.ptxas(ptx, relocatable=True)
    return ptx


def _kernel(make):
    def kernel(a, out):
        b = make(a)
        out[0] = b[0, 0]

    return kernel


def _flat_kernel(flat):
    def kernel(a, out):
        out[0] = flat(a)[0]

    return kernel


def _makers(order):
    def copied(a):
        return a.copy(order=order)

    def like(a):
        return np.zeros_like(a, order=order)

    def full_like(a):
        return np.full_like(a, 2.0, np.float64, order)

    return [copied, like, full_like]


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("array", ARRAYS, ids=str)
def test_new_arrays_in_each_order(order, array, backend):
    for make in _makers(order):
        make = cuda.jit(device=True)(make)
        _checked(_kernel(make), (array, types.float64[:]), backend)


def _flatteners(order):
    def raveled(a):
        return a.ravel(order=order)

    def np_raveled(a):
        return np.ravel(a, order=order)

    def flattened(a):
        return a.flatten(order)

    return [raveled, np_raveled, flattened]


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("array", ARRAYS, ids=str)
def test_flattened_in_each_order(order, array, backend):
    if order == "K" and array.layout == "A":
        pytest.skip("refused: see test_memory_order_of_a_layout_a_array_is_refused")
    for flat in _flatteners(order):
        flat = cuda.jit(device=True)(flat)
        _checked(_flat_kernel(flat), (array, types.float64[:]), backend)


@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_reshaped_in_its_own_order(order, backend):
    def kernel(a, out):
        out[0] = a.reshape((2, -1), order=order)[1, 0] + a.reshape(a.size, order=order)[3]

    for array in (types.float32[:, ::1], types.float32[::1, :], types.float32[::1]):
        layout = array.layout if array.ndim > 1 else order
        if order in ("A", layout):
            _checked(kernel, (array, types.float64[:]), backend)


@pytest.mark.parametrize("order", ["C", "F"])
def test_constructors_in_c_or_fortran_order(order, backend):
    def kernel(out, n):
        a = np.empty((n, 3), np.float32, order=order)  # on the heap
        b = np.zeros((4, 3), order=order)  # in the kernel's stack
        a[...] = 1
        out[0] = a[0, 0] + b[1, 2] + np.ones(n, order=order)[0] + np.full((n, 2), 3.0, np.float32, order)[0, 1]

    _checked(kernel, (types.float64[:], types.int64), backend)


def _refusal(kernel, argtypes, match, error=TypingError):
    with pytest.raises(error, match=match) as caught:
        cuda.compile_ptx(kernel, argtypes, cc=(9, 0))
    return str(caught.value)


def test_an_unknown_order_is_refused_first_naming_it():
    def kernel(a, out):
        out[0] = a.copy(order="Q")[0, 0]

    text = _refusal(kernel, (types.float32[:, :], types.float32[:]), "array.copy: order must be one of")
    assert text.startswith("array.copy: order must be one of 'C', 'F', 'A', 'K', got 'Q'")
    assert 'out[0] = a.copy(order="Q")[0, 0]' in text


def test_constructors_take_c_or_f_only():
    def kernel(out):
        out[0] = np.empty((2, 2), order="A")[0, 0]

    _refusal(kernel, (types.float64[:],), "np.empty: order must be one of 'C', 'F', got 'A'")


def test_order_must_be_a_constant():
    def kernel(a, out, fortran):
        order = "F" if fortran else "C"
        out[0] = a.ravel(order=order)[0]

    _refusal(kernel, (types.float32[:, :], types.float32[:], types.boolean), "order must be a constant string")


def test_memory_order_of_a_layout_a_array_is_refused():
    def kernel(a, out):
        out[0] = a.ravel(order="K")[0]

    _refusal(kernel, (types.float32[:, :], types.float32[:]), "order='K' of array.*known only at run time")


def test_reshape_in_another_order_than_the_memory_s_is_refused():
    def kernel(a, out):
        out[0] = a.reshape(a.size, order="F")[0]

    text = _refusal(kernel, (types.float32[:, ::1], types.float32[:]), "needs a copy", UnsupportedError)
    assert "reshape() in Fortran order of an array in C order" in text

    def keep(a, out):
        out[0] = a.reshape(a.size, order="K")[0]

    _refusal(keep, (types.float32[:, ::1], types.float32[:]), "array.reshape: order must be one of 'C', 'F', 'A'")

    def strided(a, out):
        out[0] = a.reshape(a.size, order="A")[0]

    _refusal(strided, (types.float32[:, :], types.float32[:]), "reshape\\(\\) supports contiguous array only")
