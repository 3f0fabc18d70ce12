"""Python builtins on numbers: abs, min, max, int, round, divmod, pow.

numba types most of them; ``min``/``max`` and ``int`` are typed here, since numba's
overloads of them call llvmlite intrinsics.
"""

import math
import operator

import numpy as np

from .._support.api import declare
from .._support.modules import arith, mlir_math, templates, types
from ._signedness import cmpi_predicate

_REAL = ("Integer", "Float", "Boolean")


def _real(ty):
    return isinstance(ty, tuple(getattr(types, name) for name in _REAL))


def _min_max_typing(context, args, kws):
    """max(a, b, ...) and max(tuple) on real numbers, as Python compares them."""
    if kws or not args:
        return None
    members = list(args[0].types) if len(args) == 1 and isinstance(args[0], types.BaseTuple) else list(args)
    if not members or not all(_real(t) for t in members):
        return None
    result = context.unify_types(*members)
    return templates.signature(result, *args) if result is not None else None


declare(max).generic(_min_max_typing)
declare(min).generic(_min_max_typing)


@declare(int).generic
def _int_typing(context, args, kws):
    """int(x) of a bool or real number is an intp."""
    if not kws and len(args) == 1 and _real(args[0]):
        return templates.signature(types.intp, *args)


@declare(abs).lower("Integer")
def int_abs(lower, sig, args):
    value = lower.cast(args[0], sig.args[0], sig.return_type)
    if not sig.return_type.signed:
        return value
    zero = arith.constant(value.type, 0)
    negative = arith.cmpi(cmpi_predicate(operator.lt, sig.return_type), value, zero)
    return arith.select(negative, arith.subi(zero, value), value)


@declare(abs).lower("Float")
def float_abs(lower, sig, args):
    return mlir_math.absf(args[0])


def _fold(lower, sig, args, compare):
    """Python's max/min: keep the running result unless a later value compares better
    (so NaNs are skipped after the first value, as CPython does)."""
    if len(sig.args) == 1 and isinstance(sig.args[0], types.BaseTuple):
        tuple_type = sig.args[0]
        argtypes = list(tuple_type.types)
        args = [lower.extract(args[0], tuple_type, i) for i in range(len(argtypes))]
    else:
        argtypes = list(sig.args)
    ty = sig.return_type
    values = [lower.cast(v, t, ty) for v, t in zip(args, argtypes)]
    result = values[0]
    for value in values[1:]:
        better = lower.call(compare, templates.signature(types.boolean, ty, ty), [value, result])
        result = arith.select(better, value, result)
    return result


@declare(max).lower("*Any")
def builtin_max(lower, sig, args):
    return _fold(lower, sig, args, operator.gt)


@declare(min).lower("*Any")
def builtin_min(lower, sig, args):
    return _fold(lower, sig, args, operator.lt)


def _fmax_fmin(op):
    """max/min of two float32/float64 values are C's fmax/fmin, as Numba-CUDA lowers them
    (to libdevice): a NaN operand is ignored unless both are NaN."""

    def rule(lower, sig, args):
        ty = sig.return_type
        return getattr(arith, op)(*(lower.cast(v, t, ty) for v, t in zip(args, sig.args)))

    return rule


for _a in ("float32", "float64"):
    for _b in ("float32", "float64"):
        declare(max).lower(_a, _b)(_fmax_fmin("maxnumf"))
        declare(min).lower(_a, _b)(_fmax_fmin("minnumf"))


@declare(round).lower("Float")
def round_to_int(lower, sig, args):
    # round half to even, as Python's round()
    nearest = lower.call_external("__nv_rint" if sig.args[0].bitwidth == 64 else "__nv_rintf", args[0].type, [args[0]])
    return lower.cast(nearest, sig.args[0], sig.return_type)


def round_ndigits(x, ndigits):
    """round(x, ndigits) for floats: scale, round half to even, scale back (CPython's classic algorithm)."""
    if math.isinf(x) or math.isnan(x):
        return x
    if ndigits >= 0:
        if ndigits > 22:
            # 10**ndigits alone would overflow; scale in two steps
            pow1 = 10.0 ** (ndigits - 22)
            pow2 = 1e22
        else:
            pow1 = 10.0**ndigits
            pow2 = 1.0
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1 = 10.0 ** (-ndigits)
        pow2 = 1.0
        y = x / pow1
    z = np.rint(y)
    if math.fabs(y - z) == 0.5:
        z = 2.0 * np.rint(y / 2.0)
    if ndigits >= 0:
        return (z / pow2) / pow1
    return z * pow1


@declare(round).lower("Float", "Integer")
def round_to_digits(lower, sig, args):
    return lower.call_python(round_ndigits, sig, args)


@declare(divmod).lower("Number", "Number")
def builtin_divmod(lower, sig, args):
    ty = sig.return_type.dtype
    operands = [lower.cast(v, t, ty) for v, t in zip(args, sig.args)]
    binary = templates.signature(ty, ty, ty)
    quotient = lower.call(operator.floordiv, binary, operands)
    remainder = lower.call(operator.mod, binary, operands)
    return lower.make_struct(sig.return_type, [quotient, remainder])


@declare(pow).lower("Number", "Number")
def builtin_pow(lower, sig, args):
    return lower.call(operator.pow, sig, args)


def real_int_power(a, b, one):
    """float ** int as numba computes it: repeated squaring in a's type (*one* is 1 of
    that type), math.pow for huge exponents."""
    if b < 0:
        invert = True
        exponent = -b
    else:
        invert = False
        exponent = b
    if exponent >= 0x10000 or exponent < 0:  # huge, or -b overflowed
        return math.pow(a, float(b))
    result = one
    while exponent:
        if exponent & 1:
            result *= a
        exponent >>= 1
        a *= a
    return 1.0 / result if invert else result


@declare(operator.pow).lower("Float", "Integer")
def float_pow_int(lower, sig, args):
    ty = sig.return_type
    base = lower.cast(args[0], sig.args[0], ty)
    one = lower.constant(ty, 1.0)
    return lower.call_python(real_int_power, sig.replace(args=(ty, sig.args[1], ty)), [base, args[1], one])
