"""Where a slice falls on an axis: ``select`` resolves a slice's bounds against an axis
length the way CPython's ``slice.indices`` does (negative bounds count from the end, bounds
past either end are clamped). Array views and slice objects both read it."""

from .modules import arith, ir


def i64():
    return ir.IntegerType.get_signless(64)


def const(value):
    return arith.constant(i64(), value)


def clamp(bound, length, negative_step):
    """One bound resolved against *length* (CPython's PySlice_AdjustIndices)."""
    zero = const(0)
    below = arith.select(negative_step, const(-1), zero)
    above = arith.select(negative_step, arith.subi(length, const(1)), length)
    from_end = arith.addi(bound, length)
    negative = arith.cmpi(arith.CmpIPredicate.slt, bound, zero)
    wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, from_end, zero), below, from_end)
    beyond = arith.cmpi(arith.CmpIPredicate.sge, bound, length)
    return arith.select(negative, wrapped, arith.select(beyond, above, bound))


def select(lower, slice_type, value, length):
    """(first index, number of elements, step), all i64, that the slice picks from an axis of *length*.

    A zero step selects nothing (CPython raises ValueError; a kernel cannot)."""
    start, stop, step = (lower.extract(value, slice_type, k) for k in range(3))
    zero, one = const(0), const(1)
    negative = arith.cmpi(arith.CmpIPredicate.slt, step, zero)
    start, stop = clamp(start, length, negative), clamp(stop, length, negative)
    span = arith.select(negative, arith.subi(start, stop), arith.subi(stop, start))
    stride = arith.select(negative, arith.subi(zero, step), step)
    nonempty = arith.andi(
        arith.cmpi(arith.CmpIPredicate.sgt, span, zero), arith.cmpi(arith.CmpIPredicate.ne, step, zero)
    )
    safe_stride = arith.select(nonempty, stride, one)
    count = arith.addi(arith.divsi(arith.subi(span, one), safe_stride), one)
    return start, arith.select(nonempty, count, zero), step
