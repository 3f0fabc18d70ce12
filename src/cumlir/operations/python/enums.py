"""``enum.Enum`` and ``enum.IntEnum`` members, as numba types them (numba's enumdecl):
a member is held as its value, so reading one is a constant of the value's type, and
``.value`` is the member itself. Members of one class compare by value; an IntEnum
member converts wherever its integer value would (arithmetic, indexing, ``int``)."""

import operator

from .._support.api import attribute, cast, constant, declare
from .._support.modules import arith


@constant("EnumMember")
def member_constant(lower, ty, pyval):
    return lower.constant(ty.dtype, pyval.value)


@attribute("EnumClass").lower
def member_by_name(lower, ty, value, attr):
    return member_constant(lower, ty.member_type, getattr(ty.instance_class, attr))


@declare("static_getitem").lower("EnumClass", "Any")
def member_by_key(lower, sig, args):
    enum_class = sig.args[0]
    return member_constant(lower, enum_class.member_type, enum_class.instance_class[args[1]])


@attribute("EnumMember", "value").lower
def member_value(lower, ty, value, attr):
    return value


def _compare_values(op):
    def rule(lower, sig, args):
        left, right = sig.args
        result, result_type = lower.call_function(op, (left.dtype, right.dtype), args)
        return lower.cast(result, result_type, sig.return_type)

    return rule


declare(operator.eq).lower("EnumMember", "EnumMember")(_compare_values(operator.eq))
declare(operator.ne).lower("EnumMember", "EnumMember")(_compare_values(operator.ne))


def _identity(negate):
    """Members are singletons: the same member exactly when the class and the value agree
    (aliases share their value, and are the same object in Python too)."""

    def rule(lower, sig, args):
        left, right = sig.args
        if left != right:
            return arith.constant(lower.get_mlir_type(sig.return_type), int(negate))
        return _compare_values(operator.ne if negate else operator.eq)(lower, sig, args)

    return rule


declare(operator.is_).lower("EnumMember", "EnumMember")(_identity(negate=False))
declare(operator.is_not).lower("EnumMember", "EnumMember")(_identity(negate=True))


@cast("IntEnumMember", "Number")
@cast("IntEnumMember", "Boolean")
def int_member_to_number(lower, fromty, toty, value):
    return lower.cast(value, fromty.dtype, toty)
