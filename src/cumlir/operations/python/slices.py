"""Slice objects: ``slice(start, stop, step)`` and the indices a slice selects on an axis.

A slice is held as (start, stop, step), three i64. As in numba, a missing bound is
stored as a sentinel chosen by the step's sign (0 or INT64_MAX for start, INT64_MAX
or INT64_MIN for stop), and ``select`` resolves the bounds against an axis length
the way CPython's ``slice.indices`` does (``_support/slicing.py``).
"""

from .._support.api import attribute, constant, declare
from .._support.modules import arith, ir, nvvm, scf, types
from .._support.slicing import clamp as _clamp
from .._support.slicing import const as _const

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


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


def _member(position):
    def rule(lower, ty, value, attr):
        # numba's: a missing bound reads as its sentinel, not None
        return lower.extract(value, ty, position)

    return rule


for _position, _name in enumerate(("start", "stop", "step")):
    attribute("SliceType", _name).lower(_member(_position))


@declare("slice.indices").lower("SliceType", "Integer")  # numba types it as this bound function
def slice_indices(lower, sig, args):
    """CPython's ``slice.indices(n)``: the bounds resolved against a length *n*. With
    debug=True a zero step raises CPython's ValueError; without, it is returned as it is."""
    ty = sig.args[0]
    start, stop, step = (lower.extract(args[0], ty, k) for k in range(3))
    length = lower.cast(args[1], sig.args[1], types.int64)
    if lower.options.debug:
        branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, step, _const(0)))
        with ir.InsertionPoint(branch.then_block):
            lower.record_raise(ValueError, ("slice step cannot be zero",))
            nvvm.exit()
            scf.YieldOp([])
    negative = arith.cmpi(arith.CmpIPredicate.slt, step, _const(0))
    bounds = [_clamp(start, length, negative), _clamp(stop, length, negative), step]
    return lower.make_struct(sig.return_type, bounds)
