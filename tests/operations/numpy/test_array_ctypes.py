"""``a.ctypes`` on the CPU (operations/numpy/array_ctypes.py): ``.data`` read and handed to
functions taking ``voidptr`` or a typed pointer, on every kind of array, in PTX that ptxas
accepts from both code generators; what typing refuses."""

import numpy as np
import pytest
from numba import from_dtype
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support

RECORD = from_dtype(np.dtype([("x", np.float32), ("y", np.int8)], align=True))
ARRAYS = [
    types.float32[:],
    types.float64[:, ::1],
    types.int8[::1, :],
    types.complex128[:, :],
    types.boolean[:],
    types.Array(RECORD, 1, "C"),
]


def addresses(a, out):
    out[0] = a.ctypes.data
    out[1] = a[1:].ctypes.data


@pytest.mark.parametrize("array", ARRAYS, ids=str)
def test_data_is_an_unsigned_address(array, backend):
    ptx = support.checked_ptx(addresses, (array, types.uint64[:]), backend, (9, 0))
    assert "st.global" in ptx


takes_float_pointer = cuda.declare_device("takes_float_pointer", types.float32(types.CPointer(types.float32)))
takes_void_pointer = cuda.declare_device("takes_void_pointer", types.float32(types.voidptr))


def passes_pointers(a, out):
    out[0] = takes_float_pointer(a[2:].ctypes) + takes_void_pointer(a.ctypes)


def test_converts_to_its_pointer_and_voidptr(backend):
    ptx, _ = cuda.compile_ptx(passes_pointers, (types.float32[:], types.float32[:]), cc=(9, 0), backend=backend)
    support.ptxas(ptx, relocatable=True)
    assert "takes_float_pointer" in ptx and "takes_void_pointer" in ptx


def test_another_dtype_pointer_is_refused():
    takes_int_pointer = cuda.declare_device("takes_int_pointer", types.int32(types.CPointer(types.int32)))

    def kernel(a, out):
        out[0] = takes_int_pointer(a.ctypes)

    with pytest.raises(TypingError, match="takes_int_pointer|ArrayCTypes"):
        cuda.compile_ptx(kernel, (types.float32[:], types.int32[:]), cc=(9, 0))


def test_unknown_attribute_names_it():
    def kernel(a, out):
        out[0] = a.ctypes.shape[0]

    with pytest.raises(TypingError, match="shape") as caught:
        cuda.compile_ptx(kernel, (types.float32[:], types.int64[:]), cc=(9, 0))
    assert "out[0] = a.ctypes.shape[0]" in str(caught.value)
