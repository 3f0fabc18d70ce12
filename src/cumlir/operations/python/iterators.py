"""Lowering rules for ``range`` and its iteration (``for i in range(a, b, step)``).

An iterator is a small memref<3xT> of (next value, iterations left, step),
allocated in the entry block so LLVM keeps it in registers. As in numba, the
bounds and step are compared as signed integers whatever the range's type (a
negative literal step of an unsigned range counts down); the iteration count is
computed once, dividing the distance as an unsigned magnitude, so ranges spanning
more than half the type's values do not overflow.
"""

import operator

from .._support.api import declare
from .._support.elements import dim
from .._support.modules import arith, ir, memref, templates, types
from ._signedness import cmpi_predicate
from .scalars import number_constant


@declare(range).lower("*Integer")
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


@declare("getiter").lower("RangeType")
def range_iter(lower, sig, args):
    range_type = sig.args[0]
    start, stop, step = (lower.extract(args[0], range_type, i) for i in range(3))
    with lower.alloca_insertion_point():
        state = memref.alloca(lower.get_mlir_type(sig.return_type), [], [])
    for slot, value in enumerate((start, _count(start, stop, step), step)):
        memref.store(value, state, [arith.constant(ir.IndexType.get(), slot)])
    return state


@declare("iternext").lower("RangeIteratorType")
def range_next(lower, sig, args):
    (state,) = args
    slots = [arith.constant(ir.IndexType.get(), i) for i in range(3)]
    value, left, step = (memref.load(state, [s]) for s in slots)
    zero = arith.constant(value.type, 0)
    valid = arith.cmpi(arith.CmpIPredicate.ne, left, zero)
    memref.store(arith.addi(value, step), state, [slots[0]])
    memref.store(arith.subi(left, arith.select(valid, arith.constant(value.type, 1), zero)), state, [slots[1]])
    return lower.make_struct(sig.return_type, [value, valid])


# ---- iterators over other iterables: enumerate, zip, tuples, arrays ---------------------


def _new_counter(lower, start):
    """A mutable i64 position, allocated in the entry block, set to *start*."""
    i64 = ir.IntegerType.get_signless(64)
    with lower.alloca_insertion_point():
        counter = memref.alloca(ir.MemRefType.get([1], i64), [], [])
    memref.store(start, counter, [arith.constant(ir.IndexType.get(), 0)])
    return counter


def _advance(counter, valid):
    """Read the position and move it on by one if *valid*; returns the position read."""
    zero = arith.constant(ir.IndexType.get(), 0)
    position = memref.load(counter, [zero])
    step = arith.extui(position.type, valid)
    memref.store(arith.addi(position, step), counter, [zero])
    return position


def _pair(lower, pair_type, value, valid):
    return lower.make_struct(pair_type, [value, valid])


@declare("getiter").lower("IteratorType")
def iterator_iterates_itself(lower, sig, args):
    return args[0]


@declare(enumerate).lower("IterableType")
@declare(enumerate).lower("IterableType", "Integer")
def make_enumerate(lower, sig, args):
    ty = sig.return_type
    source = lower.call("getiter", templates.signature(ty.source_type, sig.args[0]), [args[0]])
    start = (
        lower.cast(args[1], sig.args[1], types.int64)
        if len(args) > 1
        else arith.constant(ir.IntegerType.get_signless(64), 0)
    )
    return (_new_counter(lower, start), source)


@declare("iternext").lower("EnumerateType")
def enumerate_next(lower, sig, args):
    ty = sig.args[0]
    counter, source = args[0]
    inner_pair = types.Pair(ty.source_type.yield_type, types.boolean)
    pair = lower.call("iternext", templates.signature(inner_pair, ty.source_type), [source])
    value, valid = lower.extract(pair, inner_pair, 0), lower.extract(pair, inner_pair, 1)
    item = lower.make_struct(ty.yield_type, [_advance(counter, valid), value])
    return _pair(lower, sig.return_type, item, valid)


@declare(zip).lower("*Any")
def make_zip(lower, sig, args):
    ty = sig.return_type
    return tuple(
        lower.call("getiter", templates.signature(source, iterable), [value])
        for source, iterable, value in zip(ty.source_types, sig.args, args)
    )


@declare("iternext").lower("ZipType")
def zip_next(lower, sig, args):
    ty = sig.args[0]
    values, valid = [], arith.constant(ir.IntegerType.get_signless(1), 1)
    for source, state in zip(ty.source_types, args[0]):
        inner_pair = types.Pair(source.yield_type, types.boolean)
        pair = lower.call("iternext", templates.signature(inner_pair, source), [state])
        values.append(lower.extract(pair, inner_pair, 0))
        valid = arith.andi(valid, lower.extract(pair, inner_pair, 1))
    return _pair(lower, sig.return_type, lower.make_struct(ty.yield_type, values), valid)


def _sequence_next(lower, sig, args, length, item_at):
    counter, container = args[0]
    zero = arith.constant(ir.IndexType.get(), 0)
    position = memref.load(counter, [zero])
    valid = arith.cmpi(arith.CmpIPredicate.slt, position, length(container))
    memref.store(arith.addi(position, arith.extui(position.type, valid)), counter, [zero])
    # clamp so that the item read past the end (and never used) stays in bounds
    safe = arith.select(valid, position, arith.constant(position.type, 0))
    return _pair(lower, sig.return_type, item_at(container, safe), valid)


@declare("getiter").lower("UniTuple")
@declare("getiter").lower("Array")
def sequence_iter(lower, sig, args):
    return (_new_counter(lower, arith.constant(ir.IntegerType.get_signless(64), 0)), args[0])


@declare("iternext").lower("UniTupleIter")
def tuple_next(lower, sig, args):
    tuple_type = sig.args[0].container

    def length(container):
        return arith.constant(ir.IntegerType.get_signless(64), len(tuple_type))

    def item_at(container, position):
        getitem = templates.signature(tuple_type.dtype, tuple_type, types.int64)
        return lower.call(operator.getitem, getitem, [container, position])

    return _sequence_next(lower, sig, args, length, item_at)


@declare("iternext").lower("ArrayIterator")
def array_next(lower, sig, args):
    array_type = sig.args[0].array_type

    def length(container):
        return dim(container, 0)

    def item_at(container, position):
        getitem = templates.signature(sig.args[0].yield_type, array_type, types.int64)
        return lower.call(operator.getitem, getitem, [container, position])

    return _sequence_next(lower, sig, args, length, item_at)
