"""The ``cmath`` module.

Typing: complex64 stays complex64, other numbers become complex128 (as Numba-CUDA types
them). Lowering: written in Python on real math and compiled like user code (numba does
the same with its compile_internal implementations). The formulas are the textbook ones,
with CPython's handling of zero parts. Where a part is infinite or NaN the value is Python's
cmath's (C99's Annex G), from _cmath_special's tables, behind one test of both parts; where
Python raises ValueError (log(0), exp(1 + inf j)) the kernel gives C99's value instead, as
Numba-CUDA's device code does.
"""

import cmath
import math

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
# Python's (C99's Annex G), read from _cmath_special's tables on that cold path.


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


# exp, cosh, sinh and tanh of an infinite x and a finite nonzero y (turned_infinity) take the
# finite path, whose formulas give the infinities or zeros turned by y


@implementation
def c_exp(z):
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.EXP, x, y), z)
    if y == 0.0:
        return complex(math.exp(x), y)
    r = math.exp(x)
    return complex(r * math.cos(y), r * math.sin(y))


@implementation
def c_log(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.LOG, x, y), z)
    return complex(math.log(math.hypot(x, y)), math.atan2(y, x))


@implementation
def c_log_base(z, base):
    return c_log(z) / c_log(base)


@implementation
def c_log10(z):
    w = c_log(z)
    return complex(w.real / math.log(10.0), w.imag / math.log(10.0))


@implementation
def c_sqrt(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.SQRT, x, y), z)
    return _sqrt(x, y)


@implementation
def _sqrt(x, y):
    """sqrt(x + iy) of finite parts."""
    if x == 0.0 and y == 0.0:
        return complex(0.0, y)
    ax, ay = math.fabs(x), math.fabs(y)
    # scale to avoid overflow in hypot for huge parts
    if ax > 1e300 or ay > 1e300:
        s = 2.0 * math.sqrt(0.125 * ax + 0.125 * math.hypot(ax, ay))
    else:
        s = math.sqrt(0.5 * (ax + math.hypot(ax, ay)))
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
    return complex(math.sinh(x) * math.cos(y), math.cosh(x) * math.sin(y))


@implementation
def c_cosh(z):
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.COSH, x, y), z)
    if y == 0.0:
        return complex(math.cosh(x), y * math.sinh(x))
    return complex(math.cosh(x) * math.cos(y), math.sinh(x) * math.sin(y))


@implementation
def c_tanh(z):
    x, y = z.real, z.imag
    if not _finite(x, y) and not special.turned_infinity(x, y):
        return _as_type_of(special.value(special.TANH, x, y), z)
    if math.fabs(x) > 22.0:
        # tanh saturates; the imaginary part underflows to a signed zero
        return complex(math.copysign(1.0, x), math.copysign(0.0, math.sin(2.0 * y)))
    denominator = math.cosh(2.0 * x) + math.cos(2.0 * y)
    return complex(math.sinh(2.0 * x) / denominator, math.sin(2.0 * y) / denominator)


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


# The inverse functions use Kahan's formulas on square roots of shifted arguments,
# which keep the sign of a zero part, and so the side of a branch cut.


@implementation
def c_asinh(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.ASINH, x, y), z)
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
    s1 = _sqrt(x - 1.0, y)
    s2 = _sqrt(x + 1.0, y)
    return complex(math.asinh(s1.real * s2.real + s1.imag * s2.imag), 2.0 * math.atan2(s1.imag, s2.real))


@implementation
def c_acos(z):
    x, y = z.real, z.imag
    if not _finite(x, y):
        return _as_type_of(special.value(special.ACOS, x, y), z)
    s1 = _sqrt(1.0 - x, -y)
    s2 = _sqrt(1.0 + x, y)
    return complex(2.0 * math.atan2(s1.real, s2.real), math.asinh(s2.real * s1.imag - s2.imag * s1.real))


@implementation
def c_asin(z):
    w = c_asinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


@implementation
def _atanh_right_half(x, y):
    ay = math.fabs(y)
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
