"""NumPy ufuncs called on scalars (``np.sin(x)``, ``np.maximum(a, b)``): each is lowered
as the equivalent Python operation, typed for the ufunc's argument types, with the
result converted to the type NumPy's rules give (numba's npydecl).

On arrays, a ufunc takes its output array (``np.sin(x, out)``): one loop nest over ``out``
applies the scalar ufunc to the inputs broadcast against it, and the call returns ``out``.
Without one, and with NRT on, the output is a new array (so are array operators:
``a + b``, ``-a``, ``a < b``); with NRT off that is refused."""

import cmath
import math
import operator

import numpy as np

from .._support import arrayviews as arrayviews
from .._support import fill
from .._support.api import declare
from .._support.modules import arith, ir, templates, types
from ..python.math import call_libdevice
from . import arraycreation

# ufunc -> (function for real arguments, function for complex arguments or None)
_EQUIVALENTS = {
    np.sin: (math.sin, cmath.sin),
    np.cos: (math.cos, cmath.cos),
    np.tan: (math.tan, cmath.tan),
    np.arcsin: (math.asin, cmath.asin),
    np.arccos: (math.acos, cmath.acos),
    np.arctan: (math.atan, cmath.atan),
    np.sinh: (math.sinh, cmath.sinh),
    np.cosh: (math.cosh, cmath.cosh),
    np.tanh: (math.tanh, cmath.tanh),
    np.arcsinh: (math.asinh, cmath.asinh),
    np.arccosh: (math.acosh, cmath.acosh),
    np.arctanh: (math.atanh, cmath.atanh),
    np.exp: (math.exp, cmath.exp),
    np.expm1: (math.expm1, None),
    np.log: (math.log, cmath.log),
    np.log2: (math.log2, None),
    np.log10: (math.log10, cmath.log10),
    np.log1p: (math.log1p, None),
    np.sqrt: (math.sqrt, cmath.sqrt),
    np.floor: (math.floor, None),
    np.ceil: (math.ceil, None),
    np.trunc: (math.trunc, None),
    np.fabs: (math.fabs, None),
    np.deg2rad: (math.radians, None),
    np.radians: (math.radians, None),
    np.rad2deg: (math.degrees, None),
    np.degrees: (math.degrees, None),
    np.arctan2: (math.atan2, None),
    np.hypot: (math.hypot, None),
    np.copysign: (math.copysign, None),
    np.fmod: (math.fmod, None),
    np.nextafter: (math.nextafter, None),
    np.isnan: (math.isnan, cmath.isnan),
    np.isinf: (math.isinf, cmath.isinf),
    np.isfinite: (math.isfinite, cmath.isfinite),
    np.add: (operator.add, operator.add),
    np.subtract: (operator.sub, operator.sub),
    np.multiply: (operator.mul, operator.mul),
    np.true_divide: (operator.truediv, operator.truediv),
    np.floor_divide: (operator.floordiv, None),  # integers; floats below
    np.remainder: (operator.mod, None),
    np.power: (operator.pow, operator.pow),
    np.negative: (operator.neg, operator.neg),
    np.positive: (operator.pos, operator.pos),
    np.absolute: (abs, abs),
    np.equal: (operator.eq, operator.eq),
    np.not_equal: (operator.ne, operator.ne),
    np.less: (operator.lt, None),
    np.less_equal: (operator.le, None),
    np.greater: (operator.gt, None),
    np.greater_equal: (operator.ge, None),
    np.bitwise_and: (operator.and_, None),
    np.bitwise_or: (operator.or_, None),
    np.bitwise_xor: (operator.xor, None),
    np.invert: (operator.invert, None),
    np.left_shift: (operator.lshift, None),
    np.right_shift: (operator.rshift, None),
    np.logical_not: (operator.not_, operator.not_),
}


def np_maximum(a, b):
    # NaN propagates, as in NumPy
    return a if (a >= b or a != a) else b


def np_minimum(a, b):
    return a if (a <= b or a != a) else b


def np_fmax(a, b):
    # NaN is ignored unless both are NaN
    return a if (a >= b or b != b) else b


def np_fmin(a, b):
    return a if (a <= b or b != b) else b


def np_square(x):
    return x * x


def np_reciprocal(x):
    return 1.0 / x


def np_logical_and(a, b):
    return bool(a) and bool(b)


def np_logical_or(a, b):
    return bool(a) or bool(b)


def np_logical_xor(a, b):
    return bool(a) != bool(b)


# complex numbers are ordered as NumPy orders them: by real part, then imaginary part; a
# comparison involving NaN is false. Each function stands alone: these are compiled as
# they are, and a plain Python function is not callable from them
def complex_less(a, b):
    return a.real < b.real or (a.real == b.real and a.imag < b.imag)


def complex_less_equal(a, b):
    return a.real < b.real or (a.real == b.real and a.imag <= b.imag)


def complex_greater(a, b):
    return a.real > b.real or (a.real == b.real and a.imag > b.imag)


def complex_greater_equal(a, b):
    return a.real > b.real or (a.real == b.real and a.imag >= b.imag)


def complex_maximum(a, b):
    keep = a.real > b.real or (a.real == b.real and a.imag >= b.imag)
    return a if (keep or a.real != a.real or a.imag != a.imag) else b


def complex_minimum(a, b):
    keep = a.real < b.real or (a.real == b.real and a.imag <= b.imag)
    return a if (keep or a.real != a.real or a.imag != a.imag) else b


def complex_fmax(a, b):
    keep = a.real > b.real or (a.real == b.real and a.imag >= b.imag)
    return a if (keep or b.real != b.real or b.imag != b.imag) else b


def complex_fmin(a, b):
    keep = a.real < b.real or (a.real == b.real and a.imag <= b.imag)
    return a if (keep or b.real != b.real or b.imag != b.imag) else b


_COMPLEX_PYTHON = {
    np.less: complex_less,
    np.less_equal: complex_less_equal,
    np.greater: complex_greater,
    np.greater_equal: complex_greater_equal,
    np.maximum: complex_maximum,
    np.minimum: complex_minimum,
    np.fmax: complex_fmax,
    np.fmin: complex_fmin,
}


# the complex forms NumPy has and Python's cmath does not (NumPy's own formulas)
def complex_log2(z):
    w = cmath.log(z)
    return complex(w.real * 1.4426950408889634, w.imag * 1.4426950408889634)  # log2(e)


def complex_log1p(z):
    return complex(math.log(math.hypot(z.real + 1.0, z.imag)), math.atan2(z.imag, z.real + 1.0))


def complex_expm1(z):
    half = math.sin(z.imag / 2.0)
    return complex(math.expm1(z.real) * math.cos(z.imag) - 2.0 * half * half, math.exp(z.real) * math.sin(z.imag))


_COMPLEX_UNARY_PYTHON = {np.log2: complex_log2, np.log1p: complex_log1p, np.expm1: complex_expm1}

_PYTHON = {
    np.maximum: np_maximum,
    np.minimum: np_minimum,
    np.fmax: np_fmax,
    np.fmin: np_fmin,
    np.square: np_square,
    np.reciprocal: np_reciprocal,
    np.logical_and: np_logical_and,
    np.logical_or: np_logical_or,
    np.logical_xor: np_logical_xor,
}


def _on_arrays(lower, ufunc, sig, args):
    name = ufunc.__name__
    if ufunc.nout == 1 and len(args) == ufunc.nin and isinstance(sig.return_type, types.Array):
        return _into_new_array(lower, ufunc, sig, args)
    if ufunc.nout == 1 and len(args) == ufunc.nin and all(getattr(t, "ndim", 0) == 0 for t in sig.args):
        return _of_elements(lower, ufunc, sig, args)
    if ufunc.nout != 1 or len(args) != ufunc.nin + 1 or not isinstance(sig.args[-1], types.Array):
        raise TypeError(
            f"np.{name} on arrays in device code needs its output array as the last argument "
            f"(np.{name}({', '.join('x' + str(k) for k in range(ufunc.nin))}, out)), or NRT to allocate it"
        )
    return _store_into(lower, ufunc, sig.args[:-1], args[:-1], sig.args[-1], args[-1])


def _of_elements(lower, ufunc, sig, args):
    """0-d arrays (and scalars) give a scalar, as in NumPy: the ufunc of their elements."""
    values = [fill.source(lower, 0, t, v)([]) for t, v in zip(sig.args, args)]
    scalar_types = [t.dtype if isinstance(t, types.Array) else t for t in sig.args]
    value, value_type = lower.call_function(ufunc, scalar_types, values)
    return lower.cast(value, value_type, sig.return_type)


def _into_new_array(lower, ufunc, sig, args):
    """With NRT on, a ufunc without its output array makes one (a temporary, freed when the
    variable holding it dies): the inputs' broadcast shape, NumPy's result type."""
    out_type = sig.return_type
    out = arraycreation.allocate(
        lower, out_type, broadcast_sizes(sig.args, args, out_type.ndim), f"np.{ufunc.__name__}"
    )
    _store_into(lower, ufunc, sig.args, args, out_type, out)
    return lower.mark_fresh(out)


def broadcast_sizes(argtypes, args, ndim):
    """Each axis's extent: the last input extent that is not 1 (extents are not checked)."""
    i64 = ir.IntegerType.get_signless(64)
    one = arith.constant(i64, 1)
    sizes = [one] * ndim
    for ty, value in zip(argtypes, args):
        if not isinstance(ty, types.Array):
            continue
        extents = arrayviews.parts(value, ty.ndim)[2]
        for k, extent in enumerate(extents, start=ndim - ty.ndim):
            sizes[k] = arith.select(arith.cmpi(arith.CmpIPredicate.ne, extent, one), extent, sizes[k])
    return sizes


def _store_into(lower, ufunc, argtypes, args, out_type, out):
    inputs = [fill.source(lower, out_type.ndim, t, v) for t, v in zip(argtypes, args)]
    scalar_types = [t.dtype if isinstance(t, types.Array) else t for t in argtypes]

    def element(indices):
        value, value_type = lower.call_function(ufunc, scalar_types, [load(indices) for load in inputs])
        return lower.cast(value, value_type, out_type.dtype)

    fill.store_each(lower, out_type, out, element)
    return out


def _elementwise(scalar_rule, ufunc):
    """The rule for *ufunc*: *scalar_rule* on scalars, a loop nest when arrays are involved."""

    def rule(lower, sig, args):
        if any(isinstance(t, types.Array) for t in sig.args):
            return _on_arrays(lower, ufunc, sig, args)
        return scalar_rule(lower, sig, args)

    return rule


def _complex_rule(lower, ufunc, sig, args):
    """A comparison, maximum or minimum of complex numbers, both made of the wider type."""
    wide = max((t for t in sig.args if isinstance(t, types.Complex)), key=lambda t: t.bitwidth)
    values = [lower.cast(v, t, wide) for v, t in zip(args, sig.args)]
    result_type = types.boolean if sig.return_type == types.boolean else wide
    value = lower.call_python(_COMPLEX_PYTHON[ufunc], templates.signature(result_type, wide, wide), values)
    return lower.cast(value, result_type, sig.return_type)


def _half_nextafter(lower, sig, args):
    """NumPy's float16 nextafter: the next float16, one step of the 16-bit pattern (numba's
    float32 one would step a float32 ulp, and from an infinity give float32's largest)."""
    x, y = args
    i16 = ir.IntegerType.get_signless(16)
    bits = arith.bitcast(i16, x)
    zero = lower.constant(types.float16, 0.0)
    up = arith.cmpf(arith.CmpFPredicate.OGT, y, x)
    negative = arith.cmpf(arith.CmpFPredicate.OLT, x, zero)
    step = arith.select(arith.xori(up, negative), arith.constant(i16, 1), arith.constant(i16, -1))
    stepped = arith.bitcast(x.type, arith.addi(bits, step))
    # from a zero: the smallest subnormal, signed as y
    sign = arith.andi(arith.bitcast(i16, y), arith.constant(i16, -0x8000))
    smallest = arith.bitcast(x.type, arith.ori(sign, arith.constant(i16, 1)))
    result = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, zero), smallest, stepped)
    # equal: y, as C's nextafter and NumPy's from 2.5 give (NumPy's float16 one gave x before)
    result = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, y), y, result)
    unordered = arith.cmpf(arith.CmpFPredicate.UNO, x, y)
    result = arith.select(unordered, arith.addf(x, y), result)
    return lower.cast(result, types.float16, sig.return_type)


def _register():
    for ufunc, (real, complex_) in _EQUIVALENTS.items():

        def rule(lower, sig, args, real=real, complex_=complex_, ufunc=ufunc):
            if ufunc is np.nextafter and all(t == types.float16 for t in sig.args):
                return _half_nextafter(lower, sig, args)
            is_complex = any(isinstance(t, types.Complex) for t in sig.args)
            if is_complex and complex_ is None and ufunc in _COMPLEX_PYTHON:
                return _complex_rule(lower, ufunc, sig, args)
            if is_complex and ufunc in _COMPLEX_UNARY_PYTHON:
                (argument,) = sig.args
                value = lower.call_python(
                    _COMPLEX_UNARY_PYTHON[ufunc], templates.signature(argument, argument), list(args)
                )
                return lower.cast(value, argument, sig.return_type)
            fn = complex_ if is_complex else real
            if fn is None:
                raise TypeError(f"np.{ufunc.__name__} on complex numbers is not supported")
            value, value_type = lower.call_function(fn, sig.args, args)
            return lower.cast(value, value_type, sig.return_type)

        declare(ufunc).lower("*Any")(_elementwise(rule, ufunc))

    for ufunc, implementation in _PYTHON.items():

        def python_rule(lower, sig, args, implementation=implementation, ufunc=ufunc):
            if ufunc in _COMPLEX_PYTHON and any(isinstance(t, types.Complex) for t in sig.args):
                return _complex_rule(lower, ufunc, sig, args)
            return lower.call_python(implementation, sig, args)

        declare(ufunc).lower("*Any")(_elementwise(python_rule, ufunc))


_register()


@declare(np.rint).lower("Number")
def rint(lower, sig, args):
    value = lower.cast(args[0], sig.args[0], sig.return_type)
    return call_libdevice(lower, "rint", sig.return_type, [value])


@declare(np.sign).lower("Integer")
@declare(np.sign).lower("Float")
def sign(lower, sig, args):
    """1, -1, or the value itself for zeros and NaN."""
    ty = sig.return_type
    x = lower.cast(args[0], sig.args[0], ty)
    positive, _ = lower.call_function(operator.gt, (ty, ty), [x, lower.constant(ty, 0)])
    negative, _ = lower.call_function(operator.lt, (ty, ty), [x, lower.constant(ty, 0)])
    result = arith.select(negative, lower.constant(ty, -1), x)
    return arith.select(positive, lower.constant(ty, 1), result)


# on arrays (an output array, or a new one with NRT): the scalar rules above, element by element
declare(np.rint).lower("Array", "*Any")(_elementwise(rint, np.rint))
declare(np.sign).lower("Array", "*Any")(_elementwise(sign, np.sign))


@declare(np.floor_divide).lower("Float", "Float")
def float_floor_divide(lower, sig, args):
    """NumPy's floor_divide: a zero divisor gives a / b (an infinity or NaN)."""
    ty = sig.return_type
    a, b = (lower.cast(v, t, ty) for v, t in zip(args, sig.args))
    quotient, _ = lower.call_function(operator.floordiv, (ty, ty), [a, b])
    ratio, _ = lower.call_function(operator.truediv, (ty, ty), [a, b])
    zero = arith.cmpf(arith.CmpFPredicate.OEQ, b, lower.constant(ty, 0.0))
    return arith.select(zero, ratio, quotient)


# ---- array operators: the ufuncs NumPy gives them -----------------------------------------

_OPERATORS = {
    operator.add: np.add,
    operator.sub: np.subtract,
    operator.mul: np.multiply,
    operator.truediv: np.true_divide,
    operator.floordiv: np.floor_divide,
    operator.mod: np.remainder,
    operator.pow: np.power,
    operator.lt: np.less,
    operator.le: np.less_equal,
    operator.gt: np.greater,
    operator.ge: np.greater_equal,
    operator.eq: np.equal,
    operator.ne: np.not_equal,
    operator.and_: np.bitwise_and,
    operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor,
    operator.neg: np.negative,
    operator.invert: np.invert,
}
_INPLACE = {
    operator.iadd: np.add,
    operator.isub: np.subtract,
    operator.imul: np.multiply,
    operator.itruediv: np.true_divide,
    operator.ifloordiv: np.floor_divide,
    operator.imod: np.remainder,
}


def _operator_rule(ufunc):
    def rule(lower, sig, args):
        return _on_arrays(lower, ufunc, sig, args)

    return rule


def _inplace_rule(ufunc):
    def rule(lower, sig, args):
        return _store_into(lower, ufunc, sig.args, args, sig.args[0], args[0])

    return rule


for _op, _ufunc in _OPERATORS.items():
    for _patterns in (("Array",), ("Array", "Any"), ("Any", "Array")):
        if len(_patterns) == _ufunc.nin:
            declare(_op).lower(*_patterns)(_operator_rule(_ufunc))
for _op, _ufunc in _INPLACE.items():
    declare(_op).lower("Array", "Any")(_inplace_rule(_ufunc))
