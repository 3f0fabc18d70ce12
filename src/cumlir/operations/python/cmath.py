"""The ``cmath`` module.

Typing: complex64 stays complex64, other numbers become complex128 (as Numba-CUDA types
them). Lowering: written in Python on real math and compiled like user code (numba does
the same with its compile_internal implementations). The formulas are CPython's (cmathmodule.c's
algorithms): they keep the sign of zero parts, scale parts whose squares would overflow or be
subnormal, and do not cancel near tan's poles or log's unit circle. Where a part is infinite
or NaN the value is Python's cmath's (C99's Annex G), from _cmath_special's tables, behind one
test of both parts; where Python raises ValueError (log(0), exp(1 + inf j)) the kernel gives
C99's value instead, and where it raises OverflowError infinities, as Numba-CUDA's device code
does.
"""

import cmath
import math
import sys

import numpy as np

from .._support.api import declare, implementation
from .._support.modules import templates, types
from . import _cmath_special as special

# ---- typing ---------------------------------------------------------------------------------

_COMPLEX_RESULT = "acos acosh asin asinh atan atanh cos cosh exp log10 sin sinh sqrt tan tanh".split()
_PREDICATES = "isinf isnan isfinite".split()


def _as_complex(ty):
    if isinstance(ty, types.Complex):
        return ty
    if isinstance(ty, (types.Integer, types.Float, types.Boolean)):
        return types.complex128
    return None


def _unary(result_of):
    """The typing of a function of one complex number whose result type is result_of(operand)."""

    def generic(context, args, kws):
        if kws or len(args) != 1:
            return None
        operand = _as_complex(args[0])
        if operand is not None:
            return templates.signature(result_of(operand), operand)

    return generic


for _name in _COMPLEX_RESULT:
    declare(getattr(cmath, _name)).generic(_unary(lambda c: c))
for _name in _PREDICATES:
    declare(getattr(cmath, _name)).generic(_unary(lambda c: types.boolean))
declare(cmath.phase).generic(_unary(lambda c: c.underlying_float))
declare(cmath.polar).generic(_unary(lambda c: types.UniTuple(c.underlying_float, 2)))


@declare(cmath.log).generic
def _log_typing(context, args, kws):
    if kws or not 1 <= len(args) <= 2:
        return None
    operands = [_as_complex(a) for a in args]
    if None in operands:
        return None
    ty = operands[0] if len(operands) == 1 else types.complex128
    if len(operands) == 2 and operands[0] == operands[1]:
        ty = operands[0]
    return templates.signature(ty, *([ty] * len(operands)))


@declare(cmath.rect).generic
def _rect_typing(context, args, kws):
    if not kws and len(args) == 2 and all(isinstance(a, (types.Integer, types.Float)) for a in args):
        return templates.signature(types.complex128, types.float64, types.float64)


# ---- lowering -------------------------------------------------------------------------------
#
# Each function first asks whether both parts are finite; where one is not, its value is
# Python's (C99's Annex G), read from _cmath_special's tables on that cold path. The finite
# path is CPython's algorithm. complex64 computes in float32 where the formulas allow, in
# float64 where their float64 constants widen it; the exact float32 constants _ONE and _HALF
# keep float32 where it matters (a float32 constant takes the type of the other operand).

_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_DBL_MIN = sys.float_info.min
# past this a part's square, or hypot's sum, overflows: the inverse functions use their
# asymptotic forms there (CPython's thresholds)
_LARGE = sys.float_info.max / 4.0
_SQRT_LARGE = math.sqrt(_LARGE)
_SQRT_DBL_MIN = math.sqrt(_DBL_MIN)
# log|z| scales its parts down past this, where float32's hypot of complex64 parts overflows
# (for float64 the scaling by 2 is exact: the result is log(hypot) within rounding)
_LOG_LARGE = float(np.finfo(np.float32).max) / 4.0
# hypot of two subnormals is subnormal too: sqrt and log scale them up by 2**53 first
_SCALE_UP = 2.0**53


def _as_type_of(value, like):
    """*value* converted to the type of *like*, in compiled code: the tables' complex128
    values become complex64 on complex64's cold paths, so that the hot path is not widened."""
    return value


@declare(_as_type_of).generic
def _as_type_of_typing(context, args, kws):
    if not kws and len(args) == 2:
        return templates.signature(args[1], *args)


@declare(_as_type_of).lower("Any", "Any")
def _as_type_of_lowering(lower, sig, args):
    return lower.cast(args[0], sig.args[0], sig.return_type)


@implementation
def _finite(x, y):
    return math.isfinite(x) and math.isfinite(y)


@implementation
def c_isnan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


@implementation
def c_isinf(z):
    return math.isinf(z.real) or math.isinf(z.imag)


@implementation
def c_isfinite(z):
    return math.isfinite(z.real) and math.isfinite(z.imag)


@implementation
def c_phase(z):
    return math.atan2(z.imag, z.real)


@implementation
def c_polar(z):
    return math.hypot(z.real, z.imag), math.atan2(z.imag, z.real)


@implementation
def c_rect(r, phi):
    if not _finite(r, phi) and not special.turned_infinity(r, phi):
        return special.value(special.RECT, r, phi)
    if phi == 0.0:
        return complex(r, r * phi)  # keeps the zero's sign (times r's)
    return complex(r * math.cos(phi), r * math.sin(phi))


# exp, cosh, sinh and tanh of an infinite x and a finite nonzero y (turned_infinity) take
# the finite path, whose formulas give the infinities or zeros turned by y. Where exp(|x|)
# overflows (x infinite included) and its products with cos(y) and sin(y) may not, exp,
# cosh and sinh form exp(|x|) = h * h with h = exp(|x| / 2), each product as (h * c) * h
# (CPython takes e * exp(|x| - 1), in float64 only).


@implementation
def c_exp(z):
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.EXP, x, y), z)
    if y == 0.0:
        return complex(math.exp(x), y)
    c, s = math.cos(y), math.sin(y)
    r = math.exp(x)
    if math.isinf(r):
        h = math.exp(x * _HALF)
        return complex((h * c) * h, (h * s) * h)
    return complex(r * c, r * s)


@implementation
def c_log(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.LOG, x, y), z)
    return complex(_log_abs(x, y), math.atan2(y, x))


@implementation
def _log_abs(x, y):
    """log(hypot(x, y)) as CPython's log: scaled where hypot overflows or is subnormal,
    through log1p near |z| = 1 (where the result is small); log(0) is -inf (C99's)."""
    ax, ay = math.fabs(x), math.fabs(y)
    if ax > _LOG_LARGE or ay > _LOG_LARGE:
        return _as_type_of(math.log(math.hypot(ax / 2.0, ay / 2.0)) + _LN2, x)
    if ax < _DBL_MIN and ay < _DBL_MIN:
        if ax > 0.0 or ay > 0.0:
            return _as_type_of(math.log(math.hypot(ax * _SCALE_UP, ay * _SCALE_UP)) - 53.0 * _LN2, x)
        return _as_type_of(-math.inf, x)
    h = math.hypot(ax, ay)
    if 0.71 <= h <= 1.73:
        am, an = max(ax, ay), min(ax, ay)
        return math.log1p((am - _ONE) * (am + _ONE) + an * an) * _HALF
    return math.log(h)


@implementation
def c_log_base(z, base):
    return c_log(z) / c_log(base)


@implementation
def c_log10(z):
    w = c_log(z)
    return complex(w.real / _LN10, w.imag / _LN10)


@implementation
def c_sqrt(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.SQRT, x, y), z)
    return _sqrt(x, y)


@implementation
def _sqrt(x, y):
    """sqrt(x + iy) of finite parts (CPython's), in float64."""
    if x == 0.0 and y == 0.0:
        return complex(0.0, y)
    ax, ay = math.fabs(x), math.fabs(y)
    if ax < _DBL_MIN and ay < _DBL_MIN:
        ax *= _SCALE_UP
        s = math.sqrt(ax + math.hypot(ax, ay * _SCALE_UP)) / 2.0**27
    else:
        # sqrt((ax + hypot(ax, ay)) / 2), written not to overflow
        ax /= 8.0
        s = 2.0 * math.sqrt(ax + math.hypot(ax, ay / 8.0))
    d = ay / (2.0 * s)
    if x >= 0.0:
        return complex(s, math.copysign(d, y))
    return complex(d, math.copysign(s, y))


@implementation
def c_sinh(z):
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.SINH, x, y), z)
    if y == 0.0:
        return complex(math.sinh(x), y)
    c, s = math.cos(y), math.sin(y)
    ch = math.cosh(x)
    if math.isinf(ch):
        h = math.exp(math.fabs(x) * _HALF)
        return complex((math.copysign(h, x) * _HALF * c) * h, (h * _HALF * s) * h)
    return complex(math.sinh(x) * c, ch * s)


@implementation
def c_cosh(z):
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.COSH, x, y), z)
    if y == 0.0:
        return complex(math.cosh(x), x * y)  # the zero signed as sinh(x) * sin(y)
    c, s = math.cos(y), math.sin(y)
    ch = math.cosh(x)
    if math.isinf(ch):  # cosh(x) = exp(|x|) / 2, sinh(x) = sign(x) cosh(x)
        h = math.exp(math.fabs(x) * _HALF)
        return complex((h * _HALF * c) * h, (math.copysign(h, x) * _HALF * s) * h)
    return complex(ch * c, math.sinh(x) * s)


@implementation
def c_tanh(z):
    # tanh(x + iy) = (tanh(x) (1 + tan(y)**2) + i tan(y) / cosh(x)**2) / (1 + (tanh(x) tan(y))**2),
    # which does not cancel near the poles (CPython's); at an infinite x, +-1 + 0i signed by tan(y)
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.TANH, x, y), z)
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = _ONE / math.cosh(x)
    txty = tx * ty
    denominator = _ONE + txty * txty
    return complex(tx * (_ONE + ty * ty) / denominator, ((ty / denominator) * cx) * cx)


@implementation
def c_sin(z):
    w = c_sinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


@implementation
def c_cos(z):
    return c_cosh(complex(-z.imag, z.real))


@implementation
def c_tan(z):
    w = c_tanh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


# The inverse functions use Kahan's formulas on square roots of shifted arguments, which
# keep the sign of a zero part, and so the side of a branch cut; past _LARGE, asymptotic
# forms (log(2z) and its kin).


@implementation
def _log_of_twice_abs(x, y):
    """log(2 |z|), for parts past _LARGE."""
    return math.log(math.hypot(x / 2.0, y / 2.0)) + 2.0 * _LN2


@implementation
def c_asinh(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.ASINH, x, y), z)
    if math.fabs(x) > _LARGE or math.fabs(y) > _LARGE:
        return complex(math.copysign(_log_of_twice_abs(x, y), x), math.atan2(y, math.fabs(x)))
    s1 = _sqrt(1.0 + y, -x)
    s2 = _sqrt(1.0 - y, x)
    return complex(
        math.asinh(s1.real * s2.imag - s2.real * s1.imag), math.atan2(y, s1.real * s2.real - s1.imag * s2.imag)
    )


@implementation
def c_acosh(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.ACOSH, x, y), z)
    if math.fabs(x) > _LARGE or math.fabs(y) > _LARGE:
        return complex(_log_of_twice_abs(x, y), math.atan2(y, x))
    s1 = _sqrt(x - 1.0, y)
    s2 = _sqrt(x + 1.0, y)
    return complex(math.asinh(s1.real * s2.real + s1.imag * s2.imag), 2.0 * math.atan2(s1.imag, s2.real))


@implementation
def c_acos(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.ACOS, x, y), z)
    if math.fabs(x) > _LARGE or math.fabs(y) > _LARGE:
        return complex(math.atan2(math.fabs(y), x), -math.copysign(_log_of_twice_abs(x, y), y))
    s1 = _sqrt(1.0 - x, -y)
    s2 = _sqrt(1.0 + x, y)
    return complex(2.0 * math.atan2(s1.real, s2.real), math.asinh(s2.real * s1.imag - s2.imag * s1.real))


@implementation
def c_asin(z):
    w = c_asinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


@implementation
def _atanh_right_half(x, y):
    """atanh(x + iy) of finite parts, x >= 0 (CPython's)."""
    ay = math.fabs(y)
    if x > _SQRT_LARGE or ay > _SQRT_LARGE:
        # atanh(z) ~ 1/z + i pi/2 sign(y); hypot of the halves does not overflow
        h = math.hypot(x / 2.0, y / 2.0)
        return complex(x / 4.0 / h / h, math.copysign(math.pi / 2.0, y))
    if x == 1.0 and ay < _SQRT_DBL_MIN:
        # ay * ay underflows: the limits, and C99's atanh(1 +- 0i) = inf +- 0i
        if ay == 0.0:
            return complex(math.inf, y)
        real = -math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0)))
        return complex(real, math.copysign(math.atan2(2.0, -ay) / 2.0, y))
    real = math.log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0
    imag = -math.atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0
    return complex(real, imag)


@implementation
def c_atanh(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.ATANH, x, y), z)
    # atanh is odd: compute in the right half plane
    if x < 0.0:
        w = _atanh_right_half(-x, -y)
        return complex(-w.real, -w.imag)
    return _atanh_right_half(x, y)


@implementation
def c_atan(z):
    w = c_atanh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


IMPLEMENTATIONS = {
    cmath.isnan: c_isnan,
    cmath.isinf: c_isinf,
    cmath.isfinite: c_isfinite,
    cmath.phase: c_phase,
    cmath.polar: c_polar,
    cmath.exp: c_exp,
    cmath.log10: c_log10,
    cmath.sqrt: c_sqrt,
    cmath.sin: c_sin,
    cmath.cos: c_cos,
    cmath.tan: c_tan,
    cmath.sinh: c_sinh,
    cmath.cosh: c_cosh,
    cmath.tanh: c_tanh,
    cmath.asin: c_asin,
    cmath.acos: c_acos,
    cmath.atan: c_atan,
    cmath.asinh: c_asinh,
    cmath.acosh: c_acosh,
    cmath.atanh: c_atanh,
}


def _register():
    for fn, python in IMPLEMENTATIONS.items():

        def rule(lower, sig, args, python=python):
            return lower.call_python(python, sig, args)

        declare(fn).lower("Complex")(rule)


_register()


@declare(cmath.log).lower("Complex")
def complex_log(lower, sig, args):
    return lower.call_python(c_log, sig, args)


@declare(cmath.log).lower("Complex", "Complex")
def complex_log_base(lower, sig, args):
    return lower.call_python(c_log_base, sig, args)


@declare(cmath.rect).lower("Float", "Float")
def complex_rect(lower, sig, args):
    return lower.call_python(c_rect, sig, args)
