"""Lowering rules for the ``cmath`` module, written in Python on real math and compiled
like user code (numba does the same with its compile_internal implementations).

The formulas are the textbook ones, with CPython's handling of zero parts; results
for infinite or NaN parts follow C99's Annex G only where noted.
"""

import cmath
import math

from numba.core import types

from ..implementations import python_implementation
from ..registry import lower


@python_implementation
def c_isnan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


@python_implementation
def c_isinf(z):
    return math.isinf(z.real) or math.isinf(z.imag)


@python_implementation
def c_isfinite(z):
    return math.isfinite(z.real) and math.isfinite(z.imag)


@python_implementation
def c_phase(z):
    return math.atan2(z.imag, z.real)


@python_implementation
def c_polar(z):
    return math.hypot(z.real, z.imag), math.atan2(z.imag, z.real)


@python_implementation
def c_rect(r, phi):
    if phi == 0.0:
        # keeps a zero imaginary part's sign and gives r + 0j for infinite r
        return complex(r, phi * r if math.isfinite(r) else phi)
    return complex(r * math.cos(phi), r * math.sin(phi))


@python_implementation
def c_exp(z):
    x, y = z.real, z.imag
    if y == 0.0:
        return complex(math.exp(x), y)
    if math.isinf(x) and x < 0.0 and not math.isfinite(y):
        return complex(0.0, 0.0)
    r = math.exp(x)
    return complex(r * math.cos(y), r * math.sin(y))


@python_implementation
def c_log(z):
    return complex(math.log(math.hypot(z.real, z.imag)), math.atan2(z.imag, z.real))


@python_implementation
def c_log_base(z, base):
    return c_log(z) / c_log(base)


@python_implementation
def c_log10(z):
    w = c_log(z)
    return complex(w.real / math.log(10.0), w.imag / math.log(10.0))


@python_implementation
def c_sqrt(z):
    x, y = z.real, z.imag
    if x == 0.0 and y == 0.0:
        return complex(0.0, y)
    if math.isinf(y):
        return complex(math.inf, y)
    if math.isnan(x):
        return complex(x, x)
    if math.isinf(x):
        if x > 0.0:
            return complex(x, math.copysign(0.0, y) if math.isfinite(y) else y)
        return complex(math.fabs(y - y), math.copysign(math.inf, y))
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


@python_implementation
def c_sinh(z):
    x, y = z.real, z.imag
    if y == 0.0:
        return complex(math.sinh(x), y)
    return complex(math.sinh(x) * math.cos(y), math.cosh(x) * math.sin(y))


@python_implementation
def c_cosh(z):
    x, y = z.real, z.imag
    if y == 0.0:
        return complex(math.cosh(x), y * math.sinh(x) if math.isfinite(x) else y)
    return complex(math.cosh(x) * math.cos(y), math.sinh(x) * math.sin(y))


@python_implementation
def c_tanh(z):
    x, y = z.real, z.imag
    if math.fabs(x) > 22.0:
        # tanh saturates; the imaginary part underflows to a signed zero
        return complex(math.copysign(1.0, x), math.copysign(0.0, math.sin(2.0 * y)))
    denominator = math.cosh(2.0 * x) + math.cos(2.0 * y)
    return complex(math.sinh(2.0 * x) / denominator, math.sin(2.0 * y) / denominator)


@python_implementation
def c_sin(z):
    w = c_sinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


@python_implementation
def c_cos(z):
    return c_cosh(complex(-z.imag, z.real))


@python_implementation
def c_tan(z):
    w = c_tanh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


# The inverse functions use Kahan's formulas on square roots of shifted arguments,
# which keep the sign of a zero part, and so the side of a branch cut.


@python_implementation
def c_asinh(z):
    s1 = c_sqrt(complex(1.0 + z.imag, -z.real))
    s2 = c_sqrt(complex(1.0 - z.imag, z.real))
    return complex(
        math.asinh(s1.real * s2.imag - s2.real * s1.imag), math.atan2(z.imag, s1.real * s2.real - s1.imag * s2.imag)
    )


@python_implementation
def c_acosh(z):
    s1 = c_sqrt(complex(z.real - 1.0, z.imag))
    s2 = c_sqrt(complex(z.real + 1.0, z.imag))
    return complex(math.asinh(s1.real * s2.real + s1.imag * s2.imag), 2.0 * math.atan2(s1.imag, s2.real))


@python_implementation
def c_acos(z):
    s1 = c_sqrt(complex(1.0 - z.real, -z.imag))
    s2 = c_sqrt(complex(1.0 + z.real, z.imag))
    return complex(2.0 * math.atan2(s1.real, s2.real), math.asinh(s2.real * s1.imag - s2.imag * s1.real))


@python_implementation
def c_asin(z):
    w = c_asinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


@python_implementation
def _atanh_right_half(x, y):
    ay = math.fabs(y)
    real = math.log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0
    imag = -math.atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0
    return complex(real, imag)


@python_implementation
def c_atanh(z):
    # atanh is odd: compute in the right half plane
    if z.real < 0.0:
        w = _atanh_right_half(-z.real, -z.imag)
        return complex(-w.real, -w.imag)
    return _atanh_right_half(z.real, z.imag)


@python_implementation
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
    for fn, implementation in IMPLEMENTATIONS.items():

        def rule(lower, sig, args, implementation=implementation):
            return lower.call_python(implementation, sig, args)

        lower(fn, types.Complex)(rule)


_register()


@lower(cmath.log, types.Complex)
def complex_log(lower, sig, args):
    return lower.call_python(c_log, sig, args)


@lower(cmath.log, types.Complex, types.Complex)
def complex_log_base(lower, sig, args):
    return lower.call_python(c_log_base, sig, args)


@lower(cmath.rect, types.Float, types.Float)
def complex_rect(lower, sig, args):
    return lower.call_python(c_rect, sig, args)
