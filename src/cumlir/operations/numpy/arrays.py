"""Lowering rules for arrays: element access, indexing, attributes and methods.

Arrays are strided memrefs (models.ArrayModel). Indexing that selects one element
loads or stores it; any other basic index (slices, None, Ellipsis, fewer integers
than axes) makes a view (arrayviews.py), and assigning to such an index fills the
view (fill.py).
"""

import inspect
import operator

import numpy as np

from .._support import arrayviews as arrayviews
from .._support import fill
from .._support.api import attribute, cast, constant, declare, method
from .._support.dtypes import named_dtype
from .._support.elements import dim, element_offset, i64, load_element, store_element, wrap_index
from .._support.modules import arith, errors, ir, memref, templates, types
from . import _order
from ._captured import captured_array


def _element_indices(lower, array, index, index_type):
    if isinstance(index_type, types.BaseTuple):
        members = [lower.extract(index, index_type, i) for i in range(len(index_type))]
        member_types = index_type.types
    else:
        members, member_types = [index], [index_type]
    return [wrap_index(lower, dim(array, axis), m, t) for axis, (m, t) in enumerate(zip(members, member_types))]


def _selects_element(array_type, index_type):
    """Whether *index_type* is one integer per axis (the element fast path)."""
    members = index_type.types if isinstance(index_type, types.BaseTuple) else (index_type,)
    return len(members) == array_type.ndim and all(isinstance(t, types.Integer) for t in members)


def _access(lower, array_type, array, index, index_type):
    """(memref, indices) through which the element at *index* is loaded or stored.

    C and F arrays (positive strides) use memref's own addressing; arrays of layout A
    may have negative strides, which memref's address arithmetic (no-unsigned-wrap)
    does not allow, so their element offset is computed with signed arithmetic, as every
    array's is with 32-bit offsets (memref's is 64-bit)."""
    if _selects_element(array_type, index_type):
        indices = _element_indices(lower, array, index, index_type)
        if array_type.layout in "CF" and not lower.options.narrow_addresses:
            return array, indices
        base, offset, _, strides = arrayviews.parts(array, array_type.ndim)
        offset = element_offset(lower, offset, indices, strides)
    else:
        base, offset, sizes, _ = arrayviews.select(lower, array_type, array, index_type, index)
        if sizes:
            raise TypeError(f"{array_type}[{index_type}] selects an array, not an element")
    return arrayviews.element_at(lower, array_type.dtype, base, offset)


@declare(operator.getitem).lower("Array", "Any")
def getitem(lower, sig, args):
    array_type, index_type = sig.args
    if isinstance(sig.return_type, types.Array):
        base, offset, sizes, strides = arrayviews.select(lower, array_type, args[0], index_type, args[1])
        return arrayviews.make_view(lower, sig.return_type, base, offset, sizes, strides)
    target, indices = _access(lower, array_type, args[0], args[1], index_type)
    return load_element(lower, array_type.dtype, target, indices)


@declare(operator.setitem).lower("Array", "Any", "Any")
def setitem(lower, sig, args):
    array_type, index_type, value_type = sig.args
    if _selects_element(array_type, index_type) or isinstance(index_type, types.Integer) and array_type.ndim == 1:
        value = lower.cast(args[2], value_type, array_type.dtype)
        target, indices = _access(lower, array_type, args[0], args[1], index_type)
        store_element(lower, array_type.dtype, value, target, indices)
        return
    base, offset, sizes, strides = arrayviews.select(lower, array_type, args[0], index_type, args[1])
    view_type = array_type.copy(ndim=len(sizes), layout="A")
    view = arrayviews.make_view(lower, view_type, base, offset, sizes, strides)
    fill.assign(lower, view_type, view, value_type, args[2])


@cast("Array", "Array")
def array_to_array(lower, fromty, toty, value):
    """Layout and read-only changes (C -> A, say): the same memory, another memref type."""
    if fromty.dtype != toty.dtype or fromty.ndim != toty.ndim:
        raise TypeError(f"cannot convert {fromty} to {toty}")
    target = lower.get_mlir_type(toty)
    return value if value.type == target else memref.cast(target, value)


# ---- attributes and methods ---------------------------------------------------------------


def _part_of_complex_without_numpy_dtype(ty):
    # numba types the parts of arrays of its own complex types only; complex32's are float16
    if isinstance(ty.dtype, types.Complex) and ty.dtype not in types.complex_domain:
        return ty.copy(dtype=ty.dtype.underlying_float, layout="A")
    return None


attribute("Array", "real").typer(_part_of_complex_without_numpy_dtype)
attribute("Array", "imag").typer(_part_of_complex_without_numpy_dtype)


@attribute("Array", "real").lower
@attribute("Array", "imag").lower
def array_complex_part(lower, ty, array, attr):
    if isinstance(ty.dtype, types.Complex):
        return arrayviews.complex_part(lower, ty, array, attr == "imag")
    if attr == "real":
        return array  # numba types the real part of a real array as the array itself
    raise errors.UnsupportedError(
        f"the imaginary part of a {ty.dtype} array is a new array of zeros, which kernels cannot allocate", lower.loc
    )


@attribute("Array", "shape").lower
def array_shape(lower, ty, array, attr):
    shape_type = types.UniTuple(types.intp, ty.ndim)
    return lower.make_struct(shape_type, [dim(array, axis) for axis in range(ty.ndim)])


@attribute("Array", "strides").lower
def array_strides(lower, ty, array, attr):
    _, _, _, strides = arrayviews.parts(array, ty.ndim)
    unit = arith.constant(i64(), arrayviews.unit_bytes(lower, ty.dtype))
    return lower.make_struct(types.UniTuple(types.intp, ty.ndim), [arith.muli(s, unit) for s in strides])


@attribute("Array", "size").lower
def array_size(lower, ty, array, attr):
    size = arith.constant(i64(), 1)
    for axis in range(ty.ndim):
        size = arith.muli(size, dim(array, axis))
    return size


@attribute("Array", "ndim").lower
def array_ndim(lower, ty, array, attr):
    return arith.constant(i64(), ty.ndim)


@attribute("Array", "itemsize").lower
def array_itemsize(lower, ty, array, attr):
    return arith.constant(i64(), arrayviews.itemsize(ty.dtype))


@attribute("Array", "nbytes").lower
def array_nbytes(lower, ty, array, attr):
    return arith.muli(array_size(lower, ty, array, attr), array_itemsize(lower, ty, array, attr))


@attribute("Array", "T").lower
def array_transposed(lower, ty, array, attr):
    result_type = lower.typing_context.resolve_getattr(ty, "T")
    return arrayviews.transpose(lower, ty, array, result_type)


@declare("array.transpose").lower("Array")
def array_transpose(lower, sig, args):
    return arrayviews.transpose(lower, sig.args[0], args[0], sig.return_type)


# ---- a.reshape(shape, order="C") ------------------------------------------------------------

array_reshape_method = method("Array", "reshape")


def _shape_count(shape):
    """How many extents *shape* (the one argument) gives: 1 for an integer, a tuple's length
    where it holds integers; None otherwise."""
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape):
        return len(shape)
    return None


@array_reshape_method.typer
def _reshape_typing(receiver, *shape, **kws):
    """numba's typing (a shape tuple or integers; C and F arrays only), and NumPy's order=
    ("C", "F", or "A": the array's own order), placing elements in that order."""
    order = kws.pop("order", None)
    if kws:
        raise errors.TypingError(f"array.reshape() got an unexpected keyword argument {next(iter(kws))!r}")
    if receiver.layout not in "CF":
        raise errors.TypingError("reshape() supports contiguous array only")
    if not shape:
        raise errors.TypingError("reshape() take at least one arg")
    if len(shape) == 1:
        ndim = _shape_count(shape[0])
    else:
        ndim = len(shape) if all(isinstance(t, types.Integer) for t in shape) else None
    if ndim is None:
        raise errors.TypingError(f"reshape({', '.join(str(t) for t in shape)}) is not supported: give integers")
    placed = _order.known(_order.order_of("array.reshape", order, "CFA", "C"), receiver)
    result = templates.signature(receiver.copy(ndim=ndim, layout=placed), *shape, *([order] if order else []))
    names = [f"shape{k}" for k in range(len(shape))] + (["order"] if order else [])
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return result.replace(recvr=receiver, pysig=inspect.Signature([inspect.Parameter(n, positional) for n in names]))


@array_reshape_method.lower("Array", "*Any")
def array_reshape(lower, sig, args):
    array_type, *shape_types = sig.args
    values = list(args[1:])
    if shape_types and isinstance(shape_types[-1], (types.StringLiteral, types.NoneType, types.Omitted)):
        shape_types, values = shape_types[:-1], values[:-1]
    if len(shape_types) == 1 and isinstance(shape_types[0], types.BaseTuple):
        tuple_type = shape_types[0]
        shape = [lower.cast(lower.extract(values[0], tuple_type, k), t, types.int64) for k, t in enumerate(tuple_type)]
    else:
        shape = [lower.cast(v, t, types.int64) for v, t in zip(values, shape_types)]
    return arrayviews.reshape(lower, array_type, args[0], shape, sig.return_type, sig.return_type.layout)


# ---- a.view(dtype) ---------------------------------------------------------------------------

array_view_method = method("Array", "view")


@array_view_method.typer
def _view_typing(receiver, *args, **kws):
    if kws or len(args) != 1:
        raise errors.TypingError(f"array.view() takes one dtype, got {len(args)} arguments and {sorted(kws)}")
    element = named_dtype(args[0])
    if element is None:
        raise errors.TypingError(
            f"array.view(): {args[0]} names no dtype (give a NumPy type, an np.dtype or cuda.float32x2 ...)"
        )
    return templates.signature(receiver.copy(dtype=element), *args, recvr=receiver)


@array_view_method.lower("Array", "Any")
def array_view(lower, sig, args):
    return arrayviews.view_as(lower, sig.args[0], args[0], sig.return_type)


@declare(len).lower("Array")
def array_len(lower, sig, args):
    (array_type,) = sig.args
    if array_type.ndim == 0:
        raise TypeError("len() of a 0-d array")
    return dim(args[0], 0)


CONSTANT_MEMORY = 4  # the NVPTX address space of __constant__ data


@constant("Array")
def array_constant(lower, ty, pyval):
    """A global NumPy array captured by a kernel lives in constant memory; a device array
    is used where it is."""
    interface = getattr(pyval, "__cuda_array_interface__", None)
    if interface is not None:
        return captured_array(lower, ty, interface)
    data = np.asfortranarray(pyval) if ty.layout == "F" else np.ascontiguousarray(pyval)
    if data.dtype == np.bool_:
        data = data.view(np.uint8)
    element = lower.dmm.lookup(ty.dtype).get_data_type()
    strides = [s // data.itemsize for s in data.strides]
    layout = ir.StridedLayoutAttr.get(0, strides)
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), CONSTANT_MEMORY)
    # the global is 1-D (LLVM lowering takes only identity layouts), viewed with the array's shape
    flat = data.ravel(order="K")
    global_type = ir.MemRefType.get([flat.size], element, memory_space=space)
    symbol = lower.module.constant_array(flat, global_type)
    value = memref.get_global(global_type, symbol)
    shape = list(data.shape)
    view = memref.reinterpret_cast(
        ir.MemRefType.get(shape, element, layout, space), value, [], [], [], [0], shape, strides
    )
    generic = memref.memory_space_cast(ir.MemRefType.get(shape, element, layout), view)
    return lower.unowned(memref.cast(lower.get_mlir_type(ty), generic))
