"""Slice objects: ``slice(start, stop, step)`` and the indices a slice selects on an axis.

A slice is held as (start, stop, step), three i64. As in numba, a missing bound is
stored as a sentinel chosen by the step's sign (0 or INT64_MAX for start, INT64_MAX
or INT64_MIN for stop), and ``select`` resolves the bounds against an axis length
the way CPython's ``slice.indices`` does: negative bounds count from the end, and
bounds past either end are clamped.
"""

from ._api import constant, declare
from ._modules import arith, ir, types

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _i64():
    return ir.IntegerType.get_signless(64)


def _const(value):
    return arith.constant(_i64(), value)


def _bounds(lower, step, start, stop):
    """Fill missing bounds (None) with numba's sentinels for the step's direction."""
    negative = arith.cmpi(arith.CmpIPredicate.slt, step, _const(0))
    if start is None:
        start = arith.select(negative, _const(INT64_MAX), _const(0))
    if stop is None:
        stop = arith.select(negative, _const(INT64_MIN), _const(INT64_MAX))
    return start, stop


@declare(slice).lower("*Any")
def make_slice(lower, sig, args):
    values = [
        None if isinstance(t, (types.NoneType, types.Omitted)) else lower.cast(v, t, types.int64)
        for v, t in zip(args, sig.args)
    ]
    if len(values) == 1:
        values = [None, values[0], None]
    start, stop, step = (values + [None] * 3)[:3]
    step = _const(1) if step is None else step
    start, stop = _bounds(lower, step, start, stop)
    return lower.make_struct(sig.return_type, [start, stop, step])


@constant("SliceType")
def slice_constant(lower, ty, pyval):
    step = _const(1 if pyval.step is None else pyval.step)
    start = None if pyval.start is None else _const(pyval.start)
    stop = None if pyval.stop is None else _const(pyval.stop)
    start, stop = _bounds(lower, step, start, stop)
    return lower.make_struct(ty, [start, stop, step])


def _clamp(bound, length, negative_step):
    """One bound resolved against *length* (CPython's PySlice_AdjustIndices)."""
    zero = _const(0)
    below = arith.select(negative_step, _const(-1), zero)
    above = arith.select(negative_step, arith.subi(length, _const(1)), length)
    from_end = arith.addi(bound, length)
    negative = arith.cmpi(arith.CmpIPredicate.slt, bound, zero)
    wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, from_end, zero), below, from_end)
    beyond = arith.cmpi(arith.CmpIPredicate.sge, bound, length)
    return arith.select(negative, wrapped, arith.select(beyond, above, bound))


def select(lower, slice_type, value, length):
    """(first index, number of elements, step), all i64, that the slice picks from an axis of *length*.

    A zero step selects nothing (CPython raises ValueError; a kernel cannot)."""
    start, stop, step = (lower.extract(value, slice_type, k) for k in range(3))
    zero, one = _const(0), _const(1)
    negative = arith.cmpi(arith.CmpIPredicate.slt, step, zero)
    start, stop = _clamp(start, length, negative), _clamp(stop, length, negative)
    span = arith.select(negative, arith.subi(start, stop), arith.subi(stop, start))
    stride = arith.select(negative, arith.subi(zero, step), step)
    nonempty = arith.andi(
        arith.cmpi(arith.CmpIPredicate.sgt, span, zero), arith.cmpi(arith.CmpIPredicate.ne, step, zero)
    )
    safe_stride = arith.select(nonempty, stride, one)
    count = arith.addi(arith.divsi(arith.subi(span, one), safe_stride), one)
    return start, arith.select(nonempty, count, zero), step
