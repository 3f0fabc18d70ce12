"""Lowering rules for ``range`` and its iteration (``for i in range(a, b, step)``).

An iterator is a small memref<3xT> of (next value, iterations left, step),
allocated in the entry block so LLVM keeps it in registers. As in numba, the
bounds and step are compared as signed integers whatever the range's type (a
negative literal step of an unsigned range counts down); the iteration count is
computed once, dividing the distance as an unsigned magnitude, so ranges spanning
more than half the type's values do not overflow.
"""

import operator

from mlir import ir
from mlir.dialects import arith, memref
from numba.core import types

from .registry import lower
from .scalars import number_constant
from .signedness import cmpi_predicate


@lower(range, types.VarArg(types.Integer))
def make_range(lower, sig, args):
    ty = sig.return_type
    values = [lower.cast(v, t, ty.dtype) for v, t in zip(args, sig.args)]
    if len(values) == 1:
        start, stop, step = number_constant(lower, ty.dtype, 0), values[0], number_constant(lower, ty.dtype, 1)
    elif len(values) == 2:
        start, stop, step = values[0], values[1], number_constant(lower, ty.dtype, 1)
    else:
        start, stop, step = values
    return lower.make_struct(ty, [start, stop, step])


def _count(start, stop, step):
    ordered = types.int64  # numba orders range bounds as signed, for every range type
    t = start.type
    zero, one = arith.constant(t, 0), arith.constant(t, 1)
    ascending = arith.cmpi(cmpi_predicate(operator.gt, ordered), step, zero)
    # distance and stride as unsigned magnitudes, in the direction of the step
    distance = arith.select(ascending, arith.subi(stop, start), arith.subi(start, stop))
    stride = arith.select(ascending, step, arith.subi(zero, step))
    goes = arith.select(
        ascending,
        arith.cmpi(cmpi_predicate(operator.lt, ordered), start, stop),
        arith.cmpi(cmpi_predicate(operator.gt, ordered), start, stop),
    )
    nonzero_step = arith.cmpi(arith.CmpIPredicate.ne, step, zero)
    valid = arith.andi(goes, nonzero_step)
    safe_stride = arith.select(valid, stride, one)
    count = arith.addi(arith.divui(arith.subi(distance, one), safe_stride), one)
    return arith.select(valid, count, zero)


@lower("getiter", types.RangeType)
def range_iter(lower, sig, args):
    range_type = sig.args[0]
    start, stop, step = (lower.extract(args[0], range_type, i) for i in range(3))
    with lower.alloca_insertion_point():
        state = memref.alloca(lower.get_mlir_type(sig.return_type), [], [])
    for slot, value in enumerate((start, _count(start, stop, step), step)):
        memref.store(value, state, [arith.constant(ir.IndexType.get(), slot)])
    return state


@lower("iternext", types.RangeIteratorType)
def range_next(lower, sig, args):
    (state,) = args
    slots = [arith.constant(ir.IndexType.get(), i) for i in range(3)]
    value, left, step = (memref.load(state, [s]) for s in slots)
    zero = arith.constant(value.type, 0)
    valid = arith.cmpi(arith.CmpIPredicate.ne, left, zero)
    memref.store(arith.addi(value, step), state, [slots[0]])
    memref.store(arith.subi(left, arith.select(valid, arith.constant(value.type, 1), zero)), state, [slots[1]])
    return lower.make_struct(sig.return_type, [value, valid])
