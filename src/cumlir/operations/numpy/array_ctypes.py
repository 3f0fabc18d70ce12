"""``a.ctypes``: the address of an array's data, as Numba-CUDA gives it.

numba types ``a.ctypes`` as ``ArrayCTypes`` and its ``.data`` as a ``uintp``; the value
converts implicitly to ``voidptr`` and to ``CPointer`` of the array's dtype (a device
function or ``cuda.declare_device`` function taking a pointer). It is held as the
``!llvm.ptr`` of the array's first element (models.PointerModel): the view's own start,
as NumPy's ``a.ctypes.data`` is. Unlike NumPy's object it keeps no reference to the array:
an array made in the kernel must outlive the addresses taken of it.
"""

from .._support import arrayviews as arrayviews
from .._support.api import attribute, cast
from .._support.modules import llvm


@attribute("Array", "ctypes").lower
def array_ctypes(lower, ty, array, attr):
    return arrayviews.data_pointer(lower, ty, array)


@attribute("ArrayCTypes", "data").lower
def ctypes_data(lower, ty, pointer, attr):
    return llvm.ptrtoint(lower.get_mlir_type(lower.typing_context.resolve_getattr(ty, "data")), pointer)


@cast("ArrayCTypes", "CPointer")
@cast("ArrayCTypes", "RawPointer")
def ctypes_to_pointer(lower, fromty, toty, pointer):
    # numba's ArrayCTypes allows only its own dtype's pointer and voidptr: the same address
    return pointer
