"""Lowering rules for arrays: element access, shape, size and len.

Arrays are strided memrefs. C and F arrays (contiguous, positive strides) use
memref.load/store directly; arrays of layout A may have negative strides, which
memref's own address arithmetic (no-unsigned-wrap) does not allow, so their
element offset is computed here with plain signed arithmetic.
"""

import operator

from mlir import ir
from mlir.dialects import arith, memref
from numba.core import types

from .registry import lower, lower_constant, lower_getattr
from .signedness import int_op


def _index_type():
    return ir.IndexType.get()


def _i64():
    return ir.IntegerType.get_signless(64)


def dim(array, axis):
    """The extent of *axis* as an i64."""
    extent = memref.dim(array, arith.constant(_index_type(), axis))
    return arith.index_cast(_i64(), extent)


def _wrap_index(lower, array, axis, index, index_type):
    """Numba's wraparound: a negative signed index counts from the end of the axis."""
    if isinstance(index_type, types.Integer) and index_type.signed:
        index = lower.cast(index, index_type, types.int64)
        negative = arith.cmpi(arith.CmpIPredicate.slt, index, arith.constant(_i64(), 0))
        index = arith.select(negative, arith.addi(index, dim(array, axis)), index)
        return arith.index_cast(_index_type(), index)
    return int_op("to_index", index_type)(_index_type(), index)


def _indices(lower, array, array_type, index, index_type):
    if isinstance(index_type, types.BaseTuple):
        members = [lower.extract(index, index_type, i) for i in range(len(index_type))]
        return [
            _wrap_index(lower, array, axis, m, t) for axis, (m, t) in enumerate(zip(members, index_type.types))
        ]
    return [_wrap_index(lower, array, 0, index, index_type)]


def _element_view(array, indices):
    """A one-element memref at *indices*, with the offset computed in signed arithmetic."""
    base, offset, *rest = memref.extract_strided_metadata(array)
    strides = rest[len(rest) // 2 :]
    linear = offset
    for index, stride in zip(indices, strides):
        linear = arith.addi(linear, arith.muli(index, stride))
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    element_type = ir.MemRefType(array.type).element_type
    layout = ir.StridedLayoutAttr.get(dynamic, [1])
    view_type = ir.MemRefType.get([1], element_type, layout)
    return memref.reinterpret_cast(view_type, base, [linear], [], [], [dynamic], [1], [1])


def _access(lower, array_type, array, index, index_type):
    """(memref, indices) through which the element at *index* is loaded or stored."""
    indices = _indices(lower, array, array_type, index, index_type)
    if len(indices) != array_type.ndim:
        raise NotImplementedError(f"indexing {array_type} with {index_type} (sub-array views) is not supported yet")
    if array_type.layout in "CF":
        return array, indices
    return _element_view(array, indices), [arith.constant(_index_type(), 0)]


def _is_integer_index(ty):
    if isinstance(ty, types.BaseTuple):
        return all(isinstance(t, types.Integer) for t in ty.types)
    return isinstance(ty, types.Integer)


@lower(operator.getitem, types.Array, types.Integer)
@lower(operator.getitem, types.Array, types.BaseTuple)
def getitem(lower, sig, args):
    array_type, index_type = sig.args
    if not _is_integer_index(index_type):
        raise NotImplementedError(f"indexing an array with {index_type} is not supported yet")
    target, indices = _access(lower, array_type, args[0], args[1], index_type)
    return load_element(lower, array_type.dtype, target, indices)


@lower(operator.setitem, types.Array, types.Integer, types.Any)
@lower(operator.setitem, types.Array, types.BaseTuple, types.Any)
def setitem(lower, sig, args):
    array_type, index_type, value_type = sig.args
    if not _is_integer_index(index_type):
        raise NotImplementedError(f"assigning to an array indexed by {index_type} is not supported yet")
    value = lower.cast(args[2], value_type, array_type.dtype)
    target, indices = _access(lower, array_type, args[0], args[1], index_type)
    store_element(lower, array_type.dtype, value, target, indices)


def load_element(lower, dtype, target, indices):
    """The element of *target* at *indices*; a model may define ``load_element`` (records
    yield a reference to the element rather than its loaded value)."""
    model = lower.dmm.lookup(dtype)
    custom = getattr(model, "load_element", None)
    if custom is not None:
        return custom(lower, target, indices)
    return model.from_data(memref.load(target, indices))


def store_element(lower, dtype, value, target, indices):
    model = lower.dmm.lookup(dtype)
    custom = getattr(model, "store_element", None)
    if custom is not None:
        return custom(lower, value, target, indices)
    memref.store(model.as_data(value), target, indices)


@lower_getattr(types.Array, "shape")
def array_shape(lower, ty, array, attr):
    shape_type = types.UniTuple(types.intp, ty.ndim)
    return lower.make_struct(shape_type, [dim(array, axis) for axis in range(ty.ndim)])


@lower_getattr(types.Array, "size")
def array_size(lower, ty, array, attr):
    size = arith.constant(_i64(), 1)
    for axis in range(ty.ndim):
        size = arith.muli(size, dim(array, axis))
    return size


@lower_getattr(types.Array, "ndim")
def array_ndim(lower, ty, array, attr):
    return arith.constant(_i64(), ty.ndim)


@lower(len, types.Array)
def array_len(lower, sig, args):
    (array_type,) = sig.args
    if array_type.ndim == 0:
        raise TypeError("len() of a 0-d array")
    return dim(args[0], 0)


CONSTANT_MEMORY = 4  # the NVPTX address space of __constant__ data


@lower_constant(types.Array)
def array_constant(lower, ty, pyval):
    """A global NumPy array captured by a kernel lives in constant memory."""
    import numpy as np

    data = np.asfortranarray(pyval) if ty.layout == "F" else np.ascontiguousarray(pyval)
    if data.dtype == np.bool_:
        data = data.view(np.uint8)
    element = lower.dmm.lookup(ty.dtype).get_data_type()
    strides = [s // data.itemsize for s in data.strides]
    layout = ir.StridedLayoutAttr.get(0, strides)
    space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), CONSTANT_MEMORY)
    global_type = ir.MemRefType.get(list(data.shape), element, layout, space)
    symbol = lower.module.constant_array(data, global_type)
    value = memref.get_global(global_type, symbol)
    generic = memref.memory_space_cast(ir.MemRefType.get(list(data.shape), element, layout), value)
    return memref.cast(lower.get_mlir_type(ty), generic)
