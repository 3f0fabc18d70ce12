"""Numbers and booleans: constants, casts, arithmetic, comparisons (numba types them).

Division and remainder follow Python (floor, sign of the divisor) and numba-cuda's
error model without debug: an integer division or remainder by zero gives 0, as
does the one overflowing case MIN // -1.
"""

import operator

from .._support.api import cast, constant, declare, named_type
from .._support.modules import arith, errors, ir, mlir_math, scf, templates, types
from ._signedness import cmpi_predicate, int_op


def _const(mlir_type, value):
    if isinstance(mlir_type, ir.IntegerType):
        width = mlir_type.width
        value = int(value) & ((1 << width) - 1)
        if width > 1 and value >= 1 << (width - 1):
            value -= 1 << width  # the attribute stores two's complement
        return arith.constant(mlir_type, value)
    return arith.constant(mlir_type, float(value))


# ---- constants ---------------------------------------------------------------------

# significand bits and the power of two that overflows, per float width
_FLOAT_FORMATS = {16: (11, 16), 32: (24, 128), 64: (53, 1024)}


def nearest_float(value, bitwidth):
    """The float of *bitwidth* bits nearest the integer *value* (ties to even), exactly:
    float(value) rounds once to double, and rounding that to float32 again could miss."""
    digits, overflow = _FLOAT_FORMATS[bitwidth]
    magnitude = abs(value)
    shift = magnitude.bit_length() - digits
    if shift > 0:
        kept, dropped = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        kept += dropped > half or (dropped == half and kept & 1)
        magnitude = kept << shift
    result = float("inf") if magnitude >= 1 << overflow else float(magnitude)
    return -result if value < 0 else result


@constant("Integer")
@constant("Float")
@constant("Boolean")
def number_constant(lower, ty, pyval):
    return _const(lower.get_mlir_type(ty), pyval)


@constant("BaseTuple")
def tuple_constant(lower, ty, pyval):
    return lower.make_struct(ty, [lower.constant(t, v) for t, v in zip(ty.types, pyval)])


# ---- casts -------------------------------------------------------------------------


@cast("Integer", "Integer")
@cast("Boolean", "Integer")
def int_to_int(lower, fromty, toty, value):
    src, dst = value.type.width, lower.get_mlir_type(toty)
    if dst.width < src:
        return arith.trunci(dst, value)
    if dst.width > src:
        return int_op("ext", fromty)(dst, value)
    return value


@cast("Integer", "Boolean")
def int_to_bool(lower, fromty, toty, value):
    return arith.cmpi(arith.CmpIPredicate.ne, value, _const(value.type, 0))


@cast("Float", "Boolean")
def float_to_bool(lower, fromty, toty, value):
    # unordered-or-not-equal: NaN is true, as in Python
    return arith.cmpf(arith.CmpFPredicate.UNE, value, _const(value.type, 0.0))


@cast("Boolean", "Boolean")
def bool_to_bool(lower, fromty, toty, value):
    return value


@cast("Integer", "Float")
@cast("Boolean", "Float")
def int_to_float(lower, fromty, toty, value):
    return int_op("to_float", fromty)(lower.get_mlir_type(toty), value)


@cast("Float", "Integer")
def float_to_int(lower, fromty, toty, value):
    return int_op("from_float", toty)(lower.get_mlir_type(toty), value)


@cast("Float", "Float")
def float_to_float(lower, fromty, toty, value):
    dst = lower.get_mlir_type(toty)
    if fromty.bitwidth < toty.bitwidth:
        return arith.extf(dst, value)
    if fromty.bitwidth > toty.bitwidth:
        return arith.truncf(dst, value)
    return value


@cast("BaseTuple", "BaseTuple")
def tuple_to_tuple(lower, fromty, toty, value):
    if len(fromty) != len(toty):
        raise TypeError(f"cannot convert {fromty} to {toty}")
    members = [
        lower.cast(lower.extract(value, fromty, i), f, t) for i, (f, t) in enumerate(zip(fromty.types, toty.types))
    ]
    return lower.make_struct(toty, members)


# ---- conversions called as functions: bool(x), int(x), float(x), np.float32(x) -------


@declare(bool).lower("Any")
@declare(int).lower("Any")
@declare(float).lower("Any")
@declare(named_type("NumberClass")).lower("Any")
def convert_call(lower, sig, args):
    if isinstance(sig.args[0], types.StringLiteral):  # float("inf"): known when compiled
        return lower.constant(sig.return_type, _parsed(sig.args[0].literal_value, sig.return_type, lower.loc))
    return lower.cast(args[0], sig.args[0], sig.return_type)


def _parsed(text, ty, loc):
    parse = float if isinstance(ty, types.Float) else int if isinstance(ty, types.Integer) else bool
    try:
        return parse(text)
    except ValueError as exc:
        raise errors.LoweringError(f"{parse.__name__}({text!r}) has no value: {exc}", loc) from None


def _truth_of_none(x):
    # numba's bool(None) is an @overload inlined as Numba IR (inline="always"), which cumlir
    # does not take: `if x:` on a None (a default argument, a global) is typed here
    return templates.signature(types.boolean, x) if isinstance(x, types.NoneType) else None


declare(bool).typer(_truth_of_none)


@declare(bool).lower("NoneType")
def none_is_false(lower, sig, args):
    return lower.constant(types.boolean, False)


# numba's float() and int() know its own numbers only: bfloat16, tf32 and the narrow floats
# convert as a float does (float() to float64, int() truncating to int64)
def _convert_cumlir_float(result):
    def typer(x):
        if isinstance(x, (types.Bfloat16, types.NarrowFloat, types.Tf32)):
            return templates.signature(getattr(types, result), x)
        return None

    return typer


for _builtin, _result in ((float, "float64"), (int, "int64")):
    _conversion = declare(_builtin, name=f"{_builtin.__name__}() of cumlir's floats")
    _conversion.typer(_convert_cumlir_float(_result))
    _conversion.lower("Any")(convert_call)


# ---- integer arithmetic --------------------------------------------------------------


def _operands(lower, sig, args):
    """Both operands converted to the result type, in which the operation is done."""
    return [lower.cast(v, t, sig.return_type) for v, t in zip(args, sig.args)]


# operations done directly in the result type: (operator, operand classes, arith builder)
_DIRECT = [
    (operator.add, ("Integer",), "addi"),
    (operator.sub, ("Integer",), "subi"),
    (operator.mul, ("Integer",), "muli"),
    (operator.and_, ("Integer", "Boolean"), "andi"),
    (operator.or_, ("Integer", "Boolean"), "ori"),
    (operator.xor, ("Integer", "Boolean"), "xori"),
    (operator.add, ("Float",), "addf"),
    (operator.sub, ("Float",), "subf"),
    (operator.mul, ("Float",), "mulf"),
    (operator.truediv, ("Float",), "divf"),
]


def _register_direct():
    for op, classes, build in _DIRECT:

        def rule(lower, sig, args, build=build):
            return getattr(arith, build)(*_operands(lower, sig, args))

        for cls in classes:
            declare(op).lower(cls, cls)(rule)


_register_direct()


def _guarded_divisor(ty, a, b):
    """(divisor safe to divide by, condition under which the result must be 0)."""
    zero = _const(b.type, 0)
    bad = arith.cmpi(arith.CmpIPredicate.eq, b, zero)
    if ty.signed:
        min_value = _const(a.type, -(1 << (a.type.width - 1)))
        overflow = arith.andi(
            arith.cmpi(arith.CmpIPredicate.eq, a, min_value),
            arith.cmpi(arith.CmpIPredicate.eq, b, _const(b.type, -1)),
        )
        bad = arith.ori(bad, overflow)
    safe = arith.select(bad, _const(b.type, 1), b)
    return safe, bad


@declare(operator.floordiv).lower("Integer", "Integer")
def int_floordiv(lower, sig, args):
    a, b = _operands(lower, sig, args)
    ty = sig.return_type
    safe, bad = _guarded_divisor(ty, a, b)
    quotient = int_op("floordiv", ty)(a, safe)
    return arith.select(bad, _const(a.type, 0), quotient)


@declare(operator.mod).lower("Integer", "Integer")
def int_mod(lower, sig, args):
    a, b = _operands(lower, sig, args)
    ty = sig.return_type
    safe, bad = _guarded_divisor(ty, a, b)
    rem = int_op("rem", ty)(a, safe)
    if ty.signed:
        # Python: a nonzero remainder takes the divisor's sign
        zero = _const(a.type, 0)
        signs_differ = arith.cmpi(arith.CmpIPredicate.slt, arith.xori(rem, safe), zero)
        nonzero = arith.cmpi(arith.CmpIPredicate.ne, rem, zero)
        rem = arith.select(arith.andi(signs_differ, nonzero), arith.addi(rem, safe), rem)
    return arith.select(bad, _const(a.type, 0), rem)


@declare(operator.truediv).lower("Integer", "Integer")
def int_truediv(lower, sig, args):
    return arith.divf(*_operands(lower, sig, args))


@declare(operator.pow).lower("Integer", "Integer")
def int_pow(lower, sig, args):
    base, exponent = _operands(lower, sig, args)
    return _integer_power(lower, sig.return_type, base, exponent)


def _integer_power(lower, ty, base, exponent):
    """Exponentiation by squaring; a negative exponent gives numba's integer results."""
    t = base.type
    one, zero = _const(t, 1), _const(t, 0)
    negative = arith.cmpi(arith.CmpIPredicate.slt, exponent, zero) if ty.signed else None
    magnitude = arith.select(negative, zero, exponent) if negative is not None else exponent
    loop = scf.WhileOp([t, t, t], [one, base, magnitude])
    before = loop.before.blocks.append(t, t, t)
    with ir.InsertionPoint(before):
        result, b, e = before.arguments
        scf.ConditionOp(arith.cmpi(arith.CmpIPredicate.ne, e, zero), [result, b, e])
    after = loop.after.blocks.append(t, t, t)
    with ir.InsertionPoint(after):
        result, b, e = after.arguments
        odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(e, one), zero)
        result = arith.select(odd, arith.muli(result, b), result)
        scf.YieldOp([result, arith.muli(b, b), arith.shrui(e, one)])
    power = loop.results[0]
    if negative is None:
        return power
    # x ** -n: 1 and -1 stay exact, 0 gives MIN (numba's value for the error), others 0
    minus_one = _const(t, -1)
    is_one = arith.cmpi(arith.CmpIPredicate.eq, base, one)
    is_minus_one = arith.cmpi(arith.CmpIPredicate.eq, base, minus_one)
    is_zero = arith.cmpi(arith.CmpIPredicate.eq, base, zero)
    odd_exponent = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(exponent, one), zero)
    inverse = arith.select(is_one, one, zero)
    inverse = arith.select(is_minus_one, arith.select(odd_exponent, minus_one, one), inverse)
    inverse = arith.select(is_zero, _const(t, -(1 << (t.width - 1))), inverse)
    return arith.select(negative, inverse, power)


def _shift(lower, sig, args, left):
    """Shifts as the GPU's shl/shr instructions do them: an amount of the width or more
    (negative amounts read unsigned) gives 0, or the sign fill for a right shift of a
    signed value. The amount is masked or clamped first, so LLVM never sees a shift
    it may treat as undefined."""
    value, amount = _operands(lower, sig, args)
    ty = sig.return_type
    t = value.type
    last_bit = _const(t, t.width - 1)
    in_range = arith.cmpi(cmpi_predicate(operator.lt, types.uint64), amount, _const(t, t.width))  # read unsigned
    keep = arith.extsi(t, in_range) if t.width > 1 else in_range  # all ones when in range
    if left:
        return arith.andi(arith.shli(value, arith.andi(amount, last_bit)), keep)
    shift = int_op("shr", ty)
    if ty.signed:
        return shift(value, int_op("min", types.uint64)(amount, last_bit))  # width-1 or more: sign fill
    return arith.andi(shift(value, arith.andi(amount, last_bit)), keep)


@declare(operator.lshift).lower("Integer", "Integer")
def shift_left(lower, sig, args):
    return _shift(lower, sig, args, left=True)


@declare(operator.rshift).lower("Integer", "Integer")
def shift_right(lower, sig, args):
    return _shift(lower, sig, args, left=False)


# ---- float arithmetic ----------------------------------------------------------------


def _float_divmod(a, b):
    """Python's float floor division and modulo (CPython's float_divmod algorithm)."""
    t = a.type
    zero = _const(t, 0.0)
    mod = arith.remf(a, b)
    div = arith.divf(arith.subf(a, mod), b)
    mod_nonzero = arith.cmpf(arith.CmpFPredicate.UNE, mod, zero)
    signs_differ = arith.xori(
        arith.cmpf(arith.CmpFPredicate.OLT, b, zero), arith.cmpf(arith.CmpFPredicate.OLT, mod, zero)
    )
    adjust = arith.andi(mod_nonzero, signs_differ)
    mod = arith.select(adjust, arith.addf(mod, b), mod)
    div = arith.select(adjust, arith.subf(div, _const(t, 1.0)), div)
    mod = arith.select(mod_nonzero, mod, mlir_math.copysign(zero, b))
    floor_div = mlir_math.floor(div)
    round_up = arith.cmpf(arith.CmpFPredicate.OGT, arith.subf(div, floor_div), _const(t, 0.5))
    floor_div = arith.select(round_up, arith.addf(floor_div, _const(t, 1.0)), floor_div)
    div_nonzero = arith.cmpf(arith.CmpFPredicate.UNE, div, zero)
    floor_div = arith.select(div_nonzero, floor_div, mlir_math.copysign(zero, arith.divf(a, b)))
    # a zero divisor, as numba does without raising: the quotient is a / b (an infinity, or
    # NaN for 0 / 0) and the remainder NaN (fmod by zero)
    by_zero = arith.cmpf(arith.CmpFPredicate.OEQ, b, zero)
    return arith.select(by_zero, arith.divf(a, b), floor_div), mod


@declare(operator.floordiv).lower("Float", "Float")
def float_floordiv(lower, sig, args):
    return _float_divmod(*args)[0]


@declare(operator.mod).lower("Float", "Float")
def float_mod(lower, sig, args):
    return _float_divmod(*args)[1]


@declare(operator.pow).lower("Float", "Float")
def float_pow(lower, sig, args):
    return mlir_math.powf(*args)


# ---- unary -------------------------------------------------------------------------


# As numba does, unsigned negation and all inversion happen in the operand's own
# width and the result is widened after: -uint32(1) is 2**32 - 1, not 2**64 - 1.
# A signed operand is widened first: ptxas treats the overflow of a narrow signed
# negation as undefined, so -int16(-32768) is 32768, as in Python.


@declare(operator.neg).lower("Integer")
def int_neg(lower, sig, args):
    value = args[0]
    if sig.args[0].signed:
        value = lower.cast(value, sig.args[0], sig.return_type)
        return arith.subi(_const(value.type, 0), value)
    return lower.cast(arith.subi(_const(value.type, 0), value), sig.args[0], sig.return_type)


@declare(operator.neg).lower("Boolean")
def bool_neg(lower, sig, args):
    value = lower.cast(args[0], sig.args[0], sig.return_type)  # -True is -1
    return arith.subi(_const(value.type, 0), value)


@declare(operator.neg).lower("Float")
def float_neg(lower, sig, args):
    return arith.negf(args[0])


@declare(operator.pos).lower("Number")
@declare(operator.pos).lower("Boolean")
def positive(lower, sig, args):
    return lower.cast(args[0], sig.args[0], sig.return_type)


@declare(operator.invert).lower("Integer")
@declare(operator.invert).lower("Boolean")
def int_invert(lower, sig, args):
    value = args[0]
    return lower.cast(arith.xori(value, _const(value.type, -1)), sig.args[0], sig.return_type)


@declare(operator.not_).lower("Number")
@declare(operator.not_).lower("Boolean")
def logical_not(lower, sig, args):
    truth = lower.cast(args[0], sig.args[0], types.boolean)
    return arith.xori(truth, _const(truth.type, 1))


# ---- comparisons ---------------------------------------------------------------------

_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)

# comparison -> the name of its arith.CmpFPredicate
FLOAT_PREDICATES = {
    operator.eq: "OEQ",
    operator.ne: "UNE",  # NaN != x is true
    operator.lt: "OLT",
    operator.le: "OLE",
    operator.gt: "OGT",
    operator.ge: "OGE",
}


def _register_comparisons():
    for op in _COMPARISONS:

        def int_compare(lower, sig, args, op=op):
            return arith.cmpi(cmpi_predicate(op, sig.args[0]), *args)

        def float_compare(lower, sig, args, op=op):
            return arith.cmpf(getattr(arith.CmpFPredicate, FLOAT_PREDICATES[op]), *args)

        declare(op).lower("Integer", "Integer")(int_compare)
        declare(op).lower("Boolean", "Boolean")(int_compare)
        declare(op).lower("Float", "Float")(float_compare)


_register_comparisons()


@cast("WideIntegerConstant", "Float")
def wide_integer_to_float(lower, fromty, toty, value):
    return _const(lower.get_mlir_type(toty), nearest_float(fromty.value, toty.bitwidth))


@cast("WideIntegerConstant", "Integer")
def wide_integer_to_integer(lower, fromty, toty, value):
    raise errors.TypingError(f"the integer constant {fromty.value} does not fit {toty}", loc=lower.loc)


@cast("Omitted", "Any")
def omitted_argument(lower, fromty, toty, value):
    # an argument left out of a call takes its default value, a compile-time constant
    return lower.constant(toty, fromty.value)


@declare(named_type("ExceptionClass")).lower("*Any")
def make_exception(lower, sig, args):
    # exceptions have no run-time value: raising one ends the thread (see MLIRLower._raise)
    return None


def _identity(negate):
    """``x is None`` and friends: decided by the types, as only None has an identity here;
    booleans are the two singletons True and False, the same where their values are."""

    def rule(lower, sig, args):
        left, right = sig.args
        if isinstance(left, types.Boolean) and isinstance(right, types.Boolean):
            predicate = arith.CmpIPredicate.ne if negate else arith.CmpIPredicate.eq
            return arith.cmpi(predicate, args[0], args[1])
        if not (isinstance(left, types.NoneType) or isinstance(right, types.NoneType)):
            raise NotImplementedError(f"'is' between values of types {left} and {right} is not supported")
        same = isinstance(left, types.NoneType) and isinstance(right, types.NoneType)
        return _const(lower.get_mlir_type(types.boolean), same != negate)

    return rule


declare(operator.is_).lower("Any", "Any")(_identity(negate=False))
declare(operator.is_not).lower("Any", "Any")(_identity(negate=True))
