"""Raw pointers (``types.CPointer(T)``, ``types.voidptr``) and arrays over them.

A pointer is an ``!llvm.ptr`` in the generic address space, the same as a C ``T*``
or ``void*`` parameter, so a device function with pointer arguments has the C
signature a library expects. ``p[i]`` addresses whole elements (NumPy's item
size; a record element is held by reference, as in arrays). ``carray``/``farray``
(operations/foreign.py) wrap the memory in an ordinary strided memref without copying.
"""

import operator

from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import types

from ...models import PrimitiveModel, default_manager
from ..elements import pointer_element
from ..registry import lower, lower_cast


class PointerModel(PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, llvm.PointerType.get())


default_manager.register(types.CPointer, PointerModel)
default_manager.register(types.RawPointer, PointerModel)


def _i64():
    return ir.IntegerType.get_signless(64)


def _as_i64(lower, value, ty):
    return lower.cast(value, ty, types.int64 if ty.signed else types.uint64)


@lower(operator.getitem, types.CPointer, types.Integer)
def pointer_getitem(lower, sig, args):
    address = pointer_element(lower, sig.args[0], args[0], sig.args[1], args[1])
    dtype = sig.args[0].dtype
    if isinstance(dtype, types.Record):
        return address
    model = lower.dmm.lookup(dtype)
    return model.from_data(llvm.load(model.get_data_type(), address))


@lower(operator.setitem, types.CPointer, types.Integer, types.Any)
def pointer_setitem(lower, sig, args):
    ptr_type, index_type, value_type = sig.args
    address = pointer_element(lower, ptr_type, args[0], index_type, args[1])
    value = lower.cast(args[2], value_type, ptr_type.dtype)
    if isinstance(ptr_type.dtype, types.Record):
        from .records import copy_record

        copy_record(ptr_type.dtype, value, address)
        return None
    llvm.store(lower.dmm.lookup(ptr_type.dtype).as_data(value), address)
    return None


@lower(operator.add, types.CPointer, types.Integer)
def pointer_add(lower, sig, args):
    return pointer_element(lower, sig.args[0], args[0], sig.args[1], args[1])


@lower(operator.add, types.Integer, types.CPointer)
def integer_add_pointer(lower, sig, args):
    return pointer_element(lower, sig.args[1], args[1], sig.args[0], args[0])


@lower(operator.sub, types.CPointer, types.Integer)
def pointer_sub(lower, sig, args):
    offset = _as_i64(lower, args[1], sig.args[1])
    negated = arith.subi(arith.constant(_i64(), 0), offset)
    return pointer_element(lower, sig.args[0], args[0], types.int64, negated)


@lower_cast(types.CPointer, types.RawPointer)
@lower_cast(types.RawPointer, types.CPointer)
@lower_cast(types.CPointer, types.CPointer)
def pointer_to_pointer(lower, fromty, toty, value):
    return value
