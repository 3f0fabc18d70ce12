"""Complex numbers (MLIR complex<fN> values), as numba types them.

Addition, subtraction and multiplication are the complex dialect's (the
componentwise formulas numba uses); operations the dialect cannot lower to LLVM
directly (negation, conjugation, comparisons) are written on the parts. Division
and powers follow CPython's algorithms, written in Python and compiled like user
code; dividing by zero gives NumPy's answer (infinities or NaNs) where CPython
would raise.
"""

import math
import operator

from .._support.api import attribute, cast, constant, declare, implementation, named_type
from .._support.modules import arith, cx, types


def _parts(value):
    return cx.re(value), cx.im(value)


def make_complex(lower, ty, real, imag):
    return cx.create_(lower.get_mlir_type(ty), real, imag)


@constant("Complex")
def complex_constant(lower, ty, pyval):
    part = ty.underlying_float
    value = complex(pyval)
    return make_complex(lower, ty, lower.constant(part, value.real), lower.constant(part, value.imag))


@cast("Complex", "Complex")
def complex_to_complex(lower, fromty, toty, value):
    real, imag = _parts(value)
    src, dst = fromty.underlying_float, toty.underlying_float
    return make_complex(lower, toty, lower.cast(real, src, dst), lower.cast(imag, src, dst))


@cast("Integer", "Complex")
@cast("Float", "Complex")
@cast("Boolean", "Complex")
def real_to_complex(lower, fromty, toty, value):
    part = toty.underlying_float
    return make_complex(lower, toty, lower.cast(value, fromty, part), lower.constant(part, 0.0))


@cast("Complex", "Boolean")
def complex_to_bool(lower, fromty, toty, value):
    real, imag = _parts(value)
    part = fromty.underlying_float
    return arith.ori(lower.cast(real, part, types.boolean), lower.cast(imag, part, types.boolean))


@declare(complex).lower("Number", "Number")
@declare(complex).lower("Boolean", "Boolean")
@declare(named_type("NumberClass")).lower("Any", "Any")  # complex64(re, im), complex128(re, im)
def complex_from_parts(lower, sig, args):
    ty = sig.return_type
    part = ty.underlying_float
    return make_complex(lower, ty, *(lower.cast(v, t, part) for v, t in zip(args, sig.args)))


@declare(complex).lower("Number")
@declare(complex).lower("Boolean")
def complex_from_one(lower, sig, args):
    return lower.cast(args[0], sig.args[0], sig.return_type)


@attribute("Complex", "real").lower
def complex_real(lower, ty, value, attr):
    return cx.re(value)


@attribute("Complex", "imag").lower
def complex_imag(lower, ty, value, attr):
    return cx.im(value)


@attribute("Number", "real").lower
@attribute("Boolean", "real").lower
def real_of_real(lower, ty, value, attr):
    return value


@attribute("Number", "imag").lower
@attribute("Boolean", "imag").lower
def imag_of_real(lower, ty, value, attr):
    return lower.constant(ty, 0)


@declare("complex.conjugate").lower("Complex")
def complex_conjugate(lower, sig, args):
    real, imag = _parts(args[0])
    return make_complex(lower, sig.return_type, real, arith.negf(imag))


@declare("complex.conjugate").lower("Number")
@declare("complex.conjugate").lower("Boolean")
def real_conjugate(lower, sig, args):
    return lower.cast(args[0], sig.args[0], sig.return_type)


def _operands(lower, sig, args):
    return [lower.cast(v, t, sig.return_type) for v, t in zip(args, sig.args)]


def _register_componentwise():
    for op, build in ((operator.add, "add"), (operator.sub, "sub"), (operator.mul, "mul")):

        def rule(lower, sig, args, build=build):
            return getattr(cx, build)(*_operands(lower, sig, args))

        declare(op).lower("Complex", "Complex")(rule)


_register_componentwise()


@declare(operator.neg).lower("Complex")
def complex_neg(lower, sig, args):
    real, imag = _parts(args[0])
    return make_complex(lower, sig.return_type, arith.negf(real), arith.negf(imag))


@declare(operator.pos).lower("Complex")
def complex_pos(lower, sig, args):
    return args[0]


@declare(operator.eq).lower("Complex", "Complex")
def complex_eq(lower, sig, args):
    (ar, ai), (br, bi) = _parts(args[0]), _parts(args[1])
    return arith.andi(arith.cmpf(arith.CmpFPredicate.OEQ, ar, br), arith.cmpf(arith.CmpFPredicate.OEQ, ai, bi))


@declare(operator.ne).lower("Complex", "Complex")
def complex_ne(lower, sig, args):
    (ar, ai), (br, bi) = _parts(args[0]), _parts(args[1])
    return arith.ori(arith.cmpf(arith.CmpFPredicate.UNE, ar, br), arith.cmpf(arith.CmpFPredicate.UNE, ai, bi))


@implementation
def complex_div(a, b):
    """CPython's complex division (_Py_c_quot); a zero divisor gives NumPy's inf/nan."""
    areal, aimag = a.real, a.imag
    breal, bimag = b.real, b.imag
    abs_breal, abs_bimag = abs(breal), abs(bimag)
    if abs_breal >= abs_bimag:
        if abs_breal == 0.0:
            return complex(areal / abs_breal, aimag / abs_breal)
        ratio = bimag / breal
        denom = breal + bimag * ratio
        return complex((areal + aimag * ratio) / denom, (aimag - areal * ratio) / denom)
    if abs_bimag >= abs_breal:
        ratio = breal / bimag
        denom = breal * ratio + bimag
        return complex((areal * ratio + aimag) / denom, (aimag * ratio - areal) / denom)
    return complex(math.nan, math.nan)


@declare(operator.truediv).lower("Complex", "Complex")
def complex_truediv(lower, sig, args):
    return lower.call_python(complex_div, sig, _operands(lower, sig, args))


@implementation
def _power_by_squaring(a, n):
    result = complex(1.0, 0.0)
    while n:
        if n & 1:
            result = result * a
        n >>= 1
        a = a * a
    return result


def complex_pow(a, b):
    """CPython's complex power: repeated squaring for integral exponents up to 100,
    _Py_c_pow otherwise; 0 ** b with a negative or complex b gives NaN, not an error."""
    if b.imag == 0.0 and b.real == math.floor(b.real) and math.fabs(b.real) <= 100.0:
        n = int(b.real)
        if n >= 0:
            return _power_by_squaring(a, n)
        return complex_div(complex(1.0, 0.0), _power_by_squaring(a, -n))
    if b.real == 0.0 and b.imag == 0.0:
        return complex(1.0, 0.0)
    if a.real == 0.0 and a.imag == 0.0:
        if b.imag != 0.0 or b.real < 0.0:
            return complex(math.nan, math.nan)
        return complex(0.0, 0.0)
    vabs = math.hypot(a.real, a.imag)
    length = math.pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != 0.0:
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    return complex(length * math.cos(phase), length * math.sin(phase))


@declare(operator.pow).lower("Complex", "Complex")
def complex_power(lower, sig, args):
    # complex64 is computed in double precision, as CPython does, then rounded
    wide = sig.replace(args=(types.complex128, types.complex128), return_type=types.complex128)
    operands = [lower.cast(v, t, types.complex128) for v, t in zip(args, sig.args)]
    return lower.cast(lower.call_python(complex_pow, wide, operands), types.complex128, sig.return_type)


def complex_abs(z):
    return math.hypot(z.real, z.imag)


@declare(abs).lower("Complex")
def complex_absolute(lower, sig, args):
    return lower.call_python(complex_abs, sig, args)
