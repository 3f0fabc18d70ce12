"""numpy.datetime64 and numpy.timedelta64: an int64 count of their unit, NaT the smallest int64.

numba types the operators (units combined by numba.np.npdatetime_helpers, as NumPy
combines them); the values follow NumPy: operands are brought to the result's unit
first (a datetime in years or months through the proleptic Gregorian calendar), NaT in
any operand gives NaT (a float NaN, 0 for ``//``, False for comparisons but ``!=``), and a
timedelta divided by a number truncates toward zero, dividing by zero giving NaT.
"""

import operator

import numpy as np

from .._support.api import cast, constant, declare, implementation
from .._support.modules import arith, errors, ir, npdatetime_helpers, templates, types

NAT = -(1 << 63)
_WEEKS_UNIT_CODE = 2  # numba.np.npdatetime_helpers.DATETIME_UNITS["W"]: Y and M come before it


def _i64():
    return ir.IntegerType.get_signless(64)


def _const(value):
    return arith.constant(_i64(), value)


def _is_nat(value):
    return arith.cmpi(arith.CmpIPredicate.eq, value, _const(NAT))


def _any_nat(values):
    found = _is_nat(values[0])
    for value in values[1:]:
        found = arith.ori(found, _is_nat(value))
    return found


def _nat_unless(operands, result):
    """*result*, or NaT where any operand is NaT."""
    return arith.select(_any_nat(operands), _const(NAT), result)


def _scaled(value, factor):
    return value if factor == 1 else arith.muli(value, _const(factor))


def _unit_name(unit):
    return unit or "generic"


def _factor(kind, from_unit, unit):
    """The count of *unit* in one *from_unit*; refused where there is none or it overflows an
    int64 (weeks in attoseconds), as NumPy refuses such pairs."""
    factor = npdatetime_helpers.get_timedelta_conversion_factor(from_unit, unit)
    if factor is None:
        raise errors.NumbaTypeError(
            f"cannot convert {kind}64[{_unit_name(from_unit)}] to {kind}64[{_unit_name(unit)}]: "
            "years and months have no fixed length in finer units"
        )
    if factor > np.iinfo(np.int64).max:
        raise errors.NumbaTypeError(
            f"cannot convert {kind}64[{_unit_name(from_unit)}] to {kind}64[{_unit_name(unit)}]: "
            f"one {from_unit} is {factor} {unit}, more than an int64 holds"
        )
    return factor


def _timedelta_in(value, fromty, unit):
    """A timedelta of *fromty* counted in *unit* (finer, or the same)."""
    return _scaled(value, _factor("timedelta", fromty.unit, unit))


@implementation
def days_since_epoch(year, month):
    """Days from 1970-01-01 to the first day of *month* (1 to 12) of *year*, in the proleptic
    Gregorian calendar (counted from 0000-03-01 in eras of 400 years, so that leap days
    end each counted year)."""
    if month <= 2:
        year -= 1
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * ((month + 9) % 12) + 2) // 5
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def days_of_years(years):
    return days_since_epoch(years + 1970, 1)


def days_of_months(months):
    return days_since_epoch(months // 12 + 1970, months % 12 + 1)


def _datetime_in(lower, value, fromty, unit):
    """A datetime of *fromty* counted in *unit* (finer, or the same); NaT gives an unspecified
    count, which callers replace."""
    src, dst = fromty.unit_code, npdatetime_helpers.DATETIME_UNITS[unit]
    from_unit = fromty.unit
    if src < _WEEKS_UNIT_CODE <= dst and unit != "":
        calendar = days_of_years if fromty.unit == "Y" else days_of_months
        value = lower.call_python(calendar, templates.signature(types.int64, types.int64), [value])
        from_unit = "D"
        if dst == _WEEKS_UNIT_CODE:
            value, from_unit = arith.floordivsi(value, _const(7)), "W"
    return _scaled(value, _factor("datetime", from_unit, unit))


# ---- constants and conversions (numba converts no unit to another implicitly) ---------------------------------------------------------


@constant("NPDatetime")
@constant("NPTimedelta")
def datetime_constant(lower, ty, pyval):
    kind = "M" if isinstance(ty, types.NPDatetime) else "m"
    count = np.asarray(pyval).astype(f"{kind}8[{ty.unit}]" if ty.unit else f"{kind}8").view(np.int64)
    return _const(int(count))


@cast("NPDatetime", "Integer")
@cast("NPTimedelta", "Integer")
def datetime_to_integer(lower, fromty, toty, value):
    # the count itself, NaT the smallest int64, as NumPy's astype(int64)
    return lower.cast(value, types.int64, toty)


@declare(int).generic
def _int_typing(context, args, kws):
    """int(x): the count of a timedelta, of a datetime only in nanoseconds (as Numba-CUDA)."""
    if kws or len(args) != 1 or not isinstance(args[0], (types.NPDatetime, types.NPTimedelta)):
        return None
    if isinstance(args[0], types.NPDatetime) and args[0].unit != "ns":
        raise errors.TypingError(f"int() takes a datetime64[ns] only, got {args[0]}: convert it to nanoseconds first")
    return templates.signature(types.int64, *args)


# ---- timedelta arithmetic ---------------------------------------------------------------


def _timedelta_operands(sig, args, unit):
    return [_timedelta_in(v, t, unit) for v, t in zip(args, sig.args)]


@declare(operator.add).lower("NPTimedelta", "NPTimedelta")
def timedelta_add(lower, sig, args):
    a, b = _timedelta_operands(sig, args, sig.return_type.unit)
    return _nat_unless(args, arith.addi(a, b))


@declare(operator.sub).lower("NPTimedelta", "NPTimedelta")
def timedelta_sub(lower, sig, args):
    a, b = _timedelta_operands(sig, args, sig.return_type.unit)
    return _nat_unless(args, arith.subi(a, b))


@declare(operator.neg).lower("NPTimedelta")
def timedelta_neg(lower, sig, args):
    # -NaT wraps to NaT
    return arith.subi(_const(0), args[0])


@declare(operator.pos).lower("NPTimedelta")
def timedelta_pos(lower, sig, args):
    return args[0]


@declare(abs).lower("NPTimedelta")
def timedelta_abs(lower, sig, args):
    # abs(NaT) wraps to NaT
    value = args[0]
    negative = arith.cmpi(arith.CmpIPredicate.slt, value, _const(0))
    return arith.select(negative, arith.subi(_const(0), value), value)


def _truncated(value):
    """A float count truncated toward zero, NaN giving NaT (NumPy's cast)."""
    count = arith.fptosi(_i64(), value)
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, value, value)
    return arith.select(is_nan, _const(NAT), count)


def _times(lower, td, tdty, number, numty, result_ty):
    if isinstance(numty, types.Float):
        product = arith.mulf(lower.cast(td, types.int64, types.float64), lower.cast(number, numty, types.float64))
        count = _truncated(product)
    else:
        count = arith.muli(td, lower.cast(number, numty, types.int64))
    return _nat_unless([td], _timedelta_in(count, tdty, result_ty.unit))


@declare(operator.mul).lower("NPTimedelta", "Integer")
@declare(operator.mul).lower("NPTimedelta", "Float")
def timedelta_times_number(lower, sig, args):
    return _times(lower, args[0], sig.args[0], args[1], sig.args[1], sig.return_type)


@declare(operator.mul).lower("Integer", "NPTimedelta")
@declare(operator.mul).lower("Float", "NPTimedelta")
def number_times_timedelta(lower, sig, args):
    return _times(lower, args[1], sig.args[1], args[0], sig.args[0], sig.return_type)


@declare(operator.truediv).lower("NPTimedelta", "Integer")
@declare(operator.floordiv).lower("NPTimedelta", "Integer")
def timedelta_over_integer(lower, sig, args):
    td, number = args[0], lower.cast(args[1], sig.args[1], types.int64)
    zero = arith.cmpi(arith.CmpIPredicate.eq, number, _const(0))
    safe = arith.select(zero, _const(1), number)
    quotient = _timedelta_in(arith.divsi(td, safe), sig.args[0], sig.return_type.unit)
    return arith.select(arith.ori(zero, _is_nat(td)), _const(NAT), quotient)


@declare(operator.truediv).lower("NPTimedelta", "Float")
@declare(operator.floordiv).lower("NPTimedelta", "Float")
def timedelta_over_float(lower, sig, args):
    td, number = args[0], lower.cast(args[1], sig.args[1], types.float64)
    zero = arith.cmpf(arith.CmpFPredicate.UEQ, number, arith.constant(number.type, 0.0))  # NaN too
    count = _truncated(arith.divf(lower.cast(td, types.int64, types.float64), number))
    quotient = _timedelta_in(count, sig.args[0], sig.return_type.unit)
    return arith.select(arith.ori(zero, _is_nat(td)), _const(NAT), quotient)


def _common_unit(sig):
    left, right = sig.args
    return npdatetime_helpers.get_best_unit(left.unit, right.unit)


@declare(operator.truediv).lower("NPTimedelta", "NPTimedelta")
def timedelta_over_timedelta(lower, sig, args):
    a, b = (lower.cast(v, types.int64, types.float64) for v in _timedelta_operands(sig, args, _common_unit(sig)))
    quotient = lower.cast(arith.divf(a, b), types.float64, sig.return_type)
    return arith.select(_any_nat(args), lower.constant(sig.return_type, float("nan")), quotient)


@declare(operator.floordiv).lower("NPTimedelta", "NPTimedelta")
def timedelta_floordiv_timedelta(lower, sig, args):
    # numba types the result as a float64; NumPy's value: the floored quotient, 0 for NaT or / 0
    a, b = _timedelta_operands(sig, args, _common_unit(sig))
    zero = arith.cmpi(arith.CmpIPredicate.eq, b, _const(0))
    quotient = arith.floordivsi(a, arith.select(zero, _const(1), b))
    quotient = arith.select(arith.ori(zero, _any_nat(args)), _const(0), quotient)
    return lower.cast(quotient, types.int64, sig.return_type)


@declare(operator.mod).generic
def _timedelta_mod_typing(context, args, kws):
    if len(args) != 2 or not all(isinstance(a, types.NPTimedelta) for a in args):
        return None
    left, right = args
    if not (
        npdatetime_helpers.can_cast_timedelta_units(left.unit, right.unit)
        or npdatetime_helpers.can_cast_timedelta_units(right.unit, left.unit)
    ):
        raise errors.TypingError(
            f"cannot take timedelta64[{_unit_name(left.unit)}] % timedelta64[{_unit_name(right.unit)}]: "
            "years and months have no fixed length in finer units"
        )
    return templates.signature(types.NPTimedelta(npdatetime_helpers.get_best_unit(left.unit, right.unit)), *args)


@declare(operator.mod).lower("NPTimedelta", "NPTimedelta")
def timedelta_mod(lower, sig, args):
    # Python's remainder (the divisor's sign); NaT for NaT or % 0, as NumPy
    a, b = _timedelta_operands(sig, args, sig.return_type.unit)
    zero = arith.cmpi(arith.CmpIPredicate.eq, b, _const(0))
    safe = arith.select(zero, _const(1), b)
    rem = arith.remsi(a, safe)
    signs_differ = arith.cmpi(arith.CmpIPredicate.slt, arith.xori(rem, safe), _const(0))
    nonzero = arith.cmpi(arith.CmpIPredicate.ne, rem, _const(0))
    rem = arith.select(arith.andi(signs_differ, nonzero), arith.addi(rem, safe), rem)
    return arith.select(arith.ori(zero, _any_nat(args)), _const(NAT), rem)


# ---- datetime arithmetic ------------------------------------------------------------------


def _datetime_and_timedelta(lower, sig, dt, dtty, td, tdty, op):
    unit = sig.return_type.unit
    result = op(_datetime_in(lower, dt, dtty, unit), _timedelta_in(td, tdty, unit))
    return _nat_unless([dt, td], result)


@declare(operator.add).lower("NPDatetime", "NPTimedelta")
def datetime_plus_timedelta(lower, sig, args):
    return _datetime_and_timedelta(lower, sig, args[0], sig.args[0], args[1], sig.args[1], arith.addi)


@declare(operator.add).lower("NPTimedelta", "NPDatetime")
def timedelta_plus_datetime(lower, sig, args):
    return _datetime_and_timedelta(lower, sig, args[1], sig.args[1], args[0], sig.args[0], arith.addi)


@declare(operator.sub).lower("NPDatetime", "NPTimedelta")
def datetime_minus_timedelta(lower, sig, args):
    return _datetime_and_timedelta(lower, sig, args[0], sig.args[0], args[1], sig.args[1], arith.subi)


@declare(operator.sub).lower("NPDatetime", "NPDatetime")
def datetime_minus_datetime(lower, sig, args):
    unit = sig.return_type.unit
    a, b = (_datetime_in(lower, v, t, unit) for v, t in zip(args, sig.args))
    return _nat_unless(args, arith.subi(a, b))


# ---- comparisons and np.isnat ---------------------------------------------------------------

_PREDICATES = {
    operator.eq: "eq",
    operator.ne: "ne",
    operator.lt: "slt",
    operator.le: "sle",
    operator.gt: "sgt",
    operator.ge: "sge",
}


def _compare(op, a, b, operands):
    """NaT compares unequal to everything, itself included, and unordered."""
    result = arith.cmpi(getattr(arith.CmpIPredicate, _PREDICATES[op]), a, b)
    nat = _any_nat(operands)
    if op is operator.ne:
        return arith.ori(nat, result)
    return arith.andi(arith.xori(nat, arith.constant(ir.IntegerType.get_signless(1), 1)), result)


def _register_comparisons():
    for op in _PREDICATES:

        def timedeltas(lower, sig, args, op=op):
            return _compare(op, *_timedelta_operands(sig, args, _common_unit(sig)), args)

        def datetimes(lower, sig, args, op=op):
            unit = _common_unit(sig)
            a, b = (_datetime_in(lower, v, t, unit) for v, t in zip(args, sig.args))
            return _compare(op, a, b, args)

        declare(op).lower("NPTimedelta", "NPTimedelta")(timedeltas)
        declare(op).lower("NPDatetime", "NPDatetime")(datetimes)


_register_comparisons()


@declare(np.isnat).lower("NPDatetime")
@declare(np.isnat).lower("NPTimedelta")
def isnat(lower, sig, args):
    return _is_nat(args[0])
