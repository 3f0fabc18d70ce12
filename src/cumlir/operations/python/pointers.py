"""Raw pointers (``types.CPointer(T)``, ``types.voidptr``) and arrays over them.

A pointer is an ``!llvm.ptr`` in the generic address space, the same as a C ``T*``
or ``void*`` parameter, so a device function with pointer arguments has the C
signature a library expects. ``p[i]`` addresses whole elements (NumPy's item
size; a record element is held by reference, as in arrays). ``carray``/``farray``
(operations/foreign.py) wrap the memory in an ordinary strided memref without copying.

Typing: ``p[i]`` and ``p[i] = v`` are numba's own; ``p + n``, ``n + p`` and ``p - n`` move
by whole elements. ``types.voidptr`` has no element type: it is only passed on, or
turned into an array with ``cuda.carray(p, shape, dtype)``. The data model is
``models.PointerModel``.
"""

import operator

from .._support.api import attribute, cast, declare
from .._support.elements import complex_pair, pointer_element
from .._support.modules import arith, cx, errors, ir, llvm, templates, types
from .records import copy_record


@declare(operator.iadd, "pointer += integer").generic
@declare(operator.add, "pointer + integer").generic
def _add_typing(context, args, kws):
    if len(args) != 2 or kws:
        return None
    left, right = args
    _refuse_void_arithmetic("+", left, right)
    if isinstance(left, types.CPointer) and isinstance(right, types.Integer):
        return templates.signature(left, left, right)
    if isinstance(right, types.CPointer) and isinstance(left, types.Integer):
        return templates.signature(right, left, right)
    return None


@declare(operator.isub, "pointer -= integer").generic
@declare(operator.sub, "pointer - integer").generic
def _sub_typing(context, args, kws):
    if len(args) == 2:
        _refuse_void_arithmetic("-", *args)
    if len(args) == 2 and not kws and isinstance(args[0], types.CPointer) and isinstance(args[1], types.Integer):
        return templates.signature(args[0], *args)
    return None


def _refuse_void_arithmetic(op, left, right):
    if any(isinstance(t, types.RawPointer) for t in (left, right)) and any(
        isinstance(t, types.Integer) for t in (left, right)
    ):
        raise errors.TypingError(
            f"a voidptr {op} an integer: a voidptr has no element type to move by; make it an array with "
            "cuda.carray(p, shape, dtype), or take a typed pointer (CPointer(float32), ...)"
        )


def _i64():
    return ir.IntegerType.get_signless(64)


def _as_i64(lower, value, ty):
    return lower.cast(value, ty, types.int64 if ty.signed else types.uint64)


@declare(operator.getitem).lower("CPointer", "Integer")
def pointer_getitem(lower, sig, args):
    address = pointer_element(lower, sig.args[0], args[0], sig.args[1], args[1])
    dtype = sig.args[0].dtype
    if isinstance(dtype, types.Record):
        return address
    if isinstance(dtype, types.Complex):
        complex_type = lower.get_mlir_type(dtype)
        pair = llvm.load(complex_pair(complex_type), address)
        part = complex_type.element_type
        return cx.create_(complex_type, llvm.extractvalue(part, pair, [0]), llvm.extractvalue(part, pair, [1]))
    model = lower.dmm.lookup(dtype)
    return model.from_data(llvm.load(model.get_data_type(), address))


@declare(operator.setitem).lower("CPointer", "Integer", "Any")
def pointer_setitem(lower, sig, args):
    ptr_type, index_type, value_type = sig.args
    address = pointer_element(lower, ptr_type, args[0], index_type, args[1])
    value = lower.cast(args[2], value_type, ptr_type.dtype)
    if isinstance(ptr_type.dtype, types.Record):
        copy_record(ptr_type.dtype, value, address)
        return None
    if isinstance(ptr_type.dtype, types.Complex):
        pair = complex_pair(lower.get_mlir_type(ptr_type.dtype))
        stored = llvm.insertvalue(llvm.insertvalue(llvm.UndefOp(pair).result, cx.re(value), [0]), cx.im(value), [1])
        llvm.store(stored, address)
        return None
    llvm.store(lower.dmm.lookup(ptr_type.dtype).as_data(value), address)
    return None


@declare(operator.iadd).lower("CPointer", "Integer")
@declare(operator.add).lower("CPointer", "Integer")
def pointer_add(lower, sig, args):
    return pointer_element(lower, sig.args[0], args[0], sig.args[1], args[1])


@declare(operator.add).lower("Integer", "CPointer")
def integer_add_pointer(lower, sig, args):
    return pointer_element(lower, sig.args[1], args[1], sig.args[0], args[0])


@declare(operator.isub).lower("CPointer", "Integer")
@declare(operator.sub).lower("CPointer", "Integer")
def pointer_sub(lower, sig, args):
    offset = _as_i64(lower, args[1], sig.args[1])
    negated = arith.subi(arith.constant(_i64(), 0), offset)
    return pointer_element(lower, sig.args[0], args[0], types.int64, negated)


@cast("CPointer", "RawPointer")
@cast("RawPointer", "CPointer")
@cast("CPointer", "CPointer")
def pointer_to_pointer(lower, fromty, toty, value):
    return value


@attribute("Module", "cast").typer
def _ctypes_cast_typing(module):
    if getattr(module.pymod, "__name__", None) == "ctypes":
        raise errors.TypingError(
            "ctypes.cast is not supported in device code: an array's address is a.ctypes.data, which passes "
            "where a voidptr or a pointer of its dtype is taken; cuda.carray(p, shape, dtype) makes an array "
            "of a pointer"
        )
    return None
