"""Arrays over raw pointers: ``cuda.carray(ptr, shape, dtype=None)`` and ``cuda.farray``.

The pointer is a ``CPointer(T)``, or a ``voidptr`` given with a dtype; the array is an
ordinary strided memref over the same memory, without copying (pointer arithmetic and
indexing live in lowering/rules/pointers.py and typing/declarations/pointerdecl.py).
"""

from .. import Stub
from .._support.modules import arith, errors, ir, npydecl, types

carray = Stub(
    "carray",
    "carray(ptr, shape, dtype=None): a C-ordered array over the memory at *ptr* (a CPointer, or a "
    "voidptr with a dtype), without copying.",
)
farray = Stub(
    "farray",
    "farray(ptr, shape, dtype=None): as carray, in Fortran order.",
)
nrt_array = Stub(
    "nrt_array",
    "nrt_array(meminfo, shape, dtype): a C-ordered array over the data of the device runtime's MemInfo "
    "*meminfo* (a voidptr, from CUDA C++ linked with nrt=True), taking over the reference it was handed "
    "(docs/nrt.md). Needs NRT.",
)


def _extents(name, shape):
    """The number of axes of a shape given as an integer or a tuple of integers."""
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    raise errors.TypingError(f"{name}: the shape must be an integer or a tuple of integers, got {shape}")


def _element(name, ptr, dtype):
    """The array's element type from the pointer and the optional dtype."""
    given = None
    if dtype is not None and not isinstance(dtype, (types.NoneType, types.Omitted)):
        try:
            given = npydecl.parse_dtype(dtype)
        except errors.TypingError as e:
            raise errors.TypingError(f"{name}: {e}") from None
        if given is None:
            shown = getattr(dtype, "literal_value", dtype)
            raise errors.TypingError(f"{name}: the dtype must be a NumPy dtype or a numba type, got {shown}")
    if isinstance(ptr, types.CPointer):
        if given is not None and given != ptr.dtype:
            raise errors.TypingError(f"{name}: the dtype {given} does not match the pointer's element type {ptr.dtype}")
        return ptr.dtype
    if isinstance(ptr, types.RawPointer):
        if given is None:
            raise errors.TypingError(f"{name}: a voidptr needs a dtype, as in {name}(ptr, shape, numba.int32)")
        return given
    raise errors.TypingError(f"{name}: the first argument must be a CPointer or a voidptr, got {ptr}")


def _array_typer(name, layout):
    def typer(ptr, shape, dtype=None):
        return types.Array(_element(name, ptr, dtype), _extents(name, shape), layout)

    return typer


def _i64():
    return ir.IntegerType.get_signless(64)


def _array_over_pointer(lower, sig, args):
    """A memref over the pointer, with contiguous strides for the shape."""
    lower.require_wide_addresses(f"{sig.return_type} over a pointer")  # of any size
    array_type = sig.return_type
    extents = _shape_values(lower, sig.args[1], args[1])
    unit = lower.dmm.lookup(array_type.dtype).memref_element()[1]
    order = extents[::-1] if array_type.layout == "C" else extents
    strides, step = [], arith.constant(_i64(), unit)
    for extent in order:
        strides.append(step)
        step = arith.muli(step, extent)
    if array_type.layout == "C":
        strides.reverse()
    zero = arith.constant(_i64(), 0)
    return lower.memref_from_params(array_type, [args[0], zero, *extents, *strides])


@nrt_array.typer
def _nrt_array_typing(meminfo, shape, dtype):
    if not isinstance(meminfo, (types.RawPointer, types.CPointer)):
        raise errors.TypingError(f"nrt_array: the MemInfo must be a voidptr, got {meminfo}")
    element = npydecl.parse_dtype(dtype)
    if not isinstance(element, (types.Number, types.Boolean)):
        raise errors.TypingError(f"nrt_array: the dtype must be a number or bool type, got {dtype}")
    return types.Array(element, _extents("nrt_array", shape), "C")


@nrt_array.lower("Any", "Any", "Any")
def _nrt_array_lowering(lower, sig, args):
    return lower.meminfo_array(sig.return_type, args[0], _shape_values(lower, sig.args[1], args[1]))


def _shape_values(lower, shape_type, shape):
    if isinstance(shape_type, types.BaseTuple):
        return [lower.cast(lower.extract(shape, shape_type, i), t, types.int64) for i, t in enumerate(shape_type.types)]
    return [lower.cast(shape, shape_type, types.int64)]


for _stub, _layout in ((carray, "C"), (farray, "F")):
    _stub.typer(_array_typer(_stub.__name__, _layout))
    _stub.lower("Any", "Any")(_array_over_pointer)
    _stub.lower("Any", "Any", "Any")(_array_over_pointer)
