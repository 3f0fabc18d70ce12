"""Lowering rules for tuples (held in registers as LLVM structs)."""

import operator

from .._support.api import attribute, declare, named_type
from .._support.modules import arith, ir, nvvm, scf, types


@declare("static_getitem").lower("BaseTuple", "IntegerLiteral")
def tuple_static_getitem(lower, sig, args):
    tuple_type = sig.args[0]
    index = args[1]
    if index < 0:
        index += len(tuple_type)
    if not 0 <= index < len(tuple_type):
        raise IndexError(f"tuple index {args[1]} is out of range for {tuple_type}")
    return lower.extract(args[0], tuple_type, index)


@declare("static_getitem").lower("BaseTuple", "SliceLiteral")
def tuple_static_slice(lower, sig, args):
    """``t[1:]``, ``t[::-1]``: a constant slice picks members at compile time (``f(*t[1:])``
    spreads the result)."""
    tuple_type = sig.args[0]
    picked = range(*args[1].indices(len(tuple_type)))
    return lower.make_struct(sig.return_type, [lower.extract(args[0], tuple_type, k) for k in picked])


@declare(tuple).lower("BaseTuple")
def tuple_of_tuple(lower, sig, args):
    # numba reads ``f(a, *t)`` (a list extended, then made a tuple) as tuple(t) added to (a,)
    return lower.cast(args[0], sig.args[0], sig.return_type)


@declare(operator.add).lower("BaseTuple", "BaseTuple")
def tuple_concatenation(lower, sig, args):
    left, right = sig.args
    members = [lower.extract(args[0], left, k) for k in range(len(left))]
    members += [lower.extract(args[1], right, k) for k in range(len(right))]
    result = sig.return_type
    return lower.make_struct(result, [lower.cast(m, t, u) for m, t, u in zip(members, [*left, *right], result)])


@declare(operator.getitem).lower("UniTuple", "Integer")
def unituple_getitem(lower, sig, args):
    """A run-time index picks among the members with a chain of selects (wrapping negatives)."""
    tuple_type, index_type = sig.args
    index = lower.cast(args[1], index_type, types.int64)
    i64 = index.type
    n = len(tuple_type)
    if index_type.signed:
        negative = arith.cmpi(arith.CmpIPredicate.slt, index, arith.constant(i64, 0))
        index = arith.select(negative, arith.addi(index, arith.constant(i64, n)), index)
    _end_thread_if_outside(lower, index, n)
    result = lower.extract(args[0], tuple_type, n - 1)
    for k in range(n - 2, -1, -1):
        hit = arith.cmpi(arith.CmpIPredicate.eq, index, arith.constant(i64, k))
        result = arith.select(hit, lower.extract(args[0], tuple_type, k), result)
    return lower.cast(result, tuple_type.dtype, sig.return_type)


def _end_thread_if_outside(lower, index, n):
    """numba's rule: an index outside the tuple raises IndexError, which (as every raise in
    device code) ends the thread, and with debug=True (or the simulator's checks) is reported
    on the host."""
    # one unsigned comparison also catches indices still negative after wrapping
    outside = arith.cmpi(arith.CmpIPredicate.uge, index, arith.constant(index.type, n))
    branch = scf.IfOp(outside)
    with ir.InsertionPoint(branch.then_block):
        if lower.options.checks_indices:
            lower.record_raise(IndexError, ("tuple index out of range",))
        nvvm.exit()
        scf.YieldOp([])


@declare(len).lower("BaseTuple")
def tuple_len(lower, sig, args):
    return arith.constant(lower.get_mlir_type(sig.return_type), len(sig.args[0]))


@declare(operator.contains).lower("BaseTuple", "Any")
def tuple_contains(lower, sig, args):
    tuple_type, item_type = sig.args
    found = arith.constant(ir.IntegerType.get_signless(1), 0)
    for index, member_type in enumerate(tuple_type.types):
        member = lower.extract(args[0], tuple_type, index)
        equal, equal_type = lower.call_function(operator.eq, (member_type, item_type), [member, args[1]])
        found = arith.ori(found, lower.cast(equal, equal_type, types.boolean))
    return found


@declare(named_type("NamedTupleClass")).lower("*Any")
def make_namedtuple(lower, sig, args):
    ty = sig.return_type
    return lower.make_struct(ty, [lower.cast(v, t, m) for v, t, m in zip(args, sig.args, ty.types)])


@attribute("BaseNamedTuple").lower
def namedtuple_field(lower, ty, value, attr):
    return lower.extract(value, ty, ty.fields.index(attr))


def _members_compared(lower, op, sig, args):
    """Python's comparison of two tuples: at the first index whose members differ (by ==),
    the members compared by *op*; where none does, the lengths compared by *op*."""
    left_type, right_type = sig.args
    i1 = ir.IntegerType.get_signless(1)
    result = arith.constant(i1, int(op(len(left_type), len(right_type))))
    decided = arith.constant(i1, 0)
    for index in range(min(len(left_type), len(right_type))):
        a, b = lower.extract(args[0], left_type, index), lower.extract(args[1], right_type, index)
        pair = (left_type.types[index], right_type.types[index])
        equal, equal_type = lower.call_function(operator.eq, pair, [a, b])
        differ = arith.xori(lower.cast(equal, equal_type, types.boolean), arith.constant(i1, 1))
        if op in (operator.eq, operator.ne):
            here = arith.constant(i1, int(op is operator.ne))  # a difference decides: unequal
        else:
            ordered, ordered_type = lower.call_function(op, pair, [a, b])
            here = lower.cast(ordered, ordered_type, types.boolean)
        first = arith.andi(differ, arith.xori(decided, arith.constant(i1, 1)))
        result = arith.select(first, here, result)
        decided = arith.ori(decided, differ)
    return result


for _op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
    declare(_op).lower("BaseTuple", "BaseTuple")(
        lambda lower, sig, args, op=_op: _members_compared(lower, op, sig, args)
    )
