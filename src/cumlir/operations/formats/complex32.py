"""complex32 (``cuda.complex32``): complex numbers of two float16 parts, as numba-cuda-mlir
types them.

``+ - * /`` on two complex32 values (or one and a float16) give complex32, negation and
``abs`` (float16) too; every other mix converts complex32 to complex64 (``types.Complex32``).
Each result is computed in complex64, with the complex64 rules of ``complexes.py``, and each
part rounded once to float16 (nearest, ties to even): sums and differences are then exactly
float16 arithmetic's, products and quotients as close as a float16 can be to the float32
result, where float16 arithmetic would round every partial product. Conversions, ``.real``,
``.imag``, ``conjugate()`` and ``==``/``!=`` are the rules every complex type shares.
"""

import operator

from .._support.api import declare
from .._support.modules import cx, errors, templates, types
from ..python.complexes import complex_abs, complex_div, complex_eq, complex_ne

_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv)
_INPLACE = (operator.iadd, operator.isub, operator.imul, operator.itruediv)
_EQUALITY = (operator.eq, operator.ne)
# the other operators numba types on complex numbers (powers): computed in complex64
_WIDENED_ONLY = (operator.pow, operator.ipow)
_BUILD = {operator.add: "add", operator.sub: "sub", operator.mul: "mul"}


def _half_complex(args):
    """Whether numba-cuda-mlir types an operator on *args* in complex32: every operand
    complex32 or float16, one at least complex32."""
    allowed = (types.complex32, types.float16)
    return bool(args) and all(a in allowed for a in args) and types.complex32 in args


def _widened(context, op, args):
    """The typing of *op* with each complex32 operand made complex64, or None: complex32
    mixed with any other number computes in that number's type, or complex64."""
    if types.complex32 not in args or not all(isinstance(a, (types.Number, types.Boolean)) for a in args):
        return None
    wide = tuple(types.complex64 if a == types.complex32 else a for a in args)
    try:
        return context.resolve_function_type(op, wide, {})
    except errors.TypingError:
        return None


def _typing(op, result_name):
    def generic(context, args, kws):
        if kws:
            return None
        if result_name is not None and _half_complex(args):
            return templates.signature(getattr(types, result_name), *args)
        return _widened(context, op, args)

    return generic


def _declare_typing():
    for op in _ARITHMETIC + _INPLACE + (operator.neg, operator.pos):
        declare(op, f"{op.__name__} on complex32").generic(_typing(op, "complex32"))
    for op in _EQUALITY:
        declare(op, f"{op.__name__} on complex32").generic(_typing(op, "boolean"))
    declare(abs, "abs on complex32").generic(_typing(abs, "float16"))
    for op in _WIDENED_ONLY:
        declare(op, f"{op.__name__} on complex32").generic(_typing(op, None))


_declare_typing()


def _wide(lower, sig, args):
    return [lower.cast(v, t, types.complex64) for v, t in zip(args, sig.args)]


def _arithmetic(op):
    def rule(lower, sig, args):
        wide = _wide(lower, sig, args)
        if op is operator.truediv:
            wide_sig = sig.replace(args=(types.complex64,) * 2, return_type=types.complex64)
            result = lower.call_python(complex_div, wide_sig, wide)
        else:
            result = getattr(cx, _BUILD[op])(*wide)
        return lower.cast(result, types.complex64, sig.return_type)

    return rule


_PAIRS = (("complex32", "complex32"), ("complex32", "float16"), ("float16", "complex32"))

for _op in _ARITHMETIC:
    for _pair in _PAIRS:
        declare(_op).lower(*_pair)(_arithmetic(_op))


@declare(operator.eq).lower("float16", "complex32")
@declare(operator.eq).lower("complex32", "float16")
def mixed_eq(lower, sig, args):
    return complex_eq(lower, sig, _exact(lower, sig, args))


@declare(operator.ne).lower("float16", "complex32")
@declare(operator.ne).lower("complex32", "float16")
def mixed_ne(lower, sig, args):
    return complex_ne(lower, sig, _exact(lower, sig, args))


def _exact(lower, sig, args):
    # a float16 is a complex32 exactly: compared part by part as two complex32
    return [lower.cast(v, t, types.complex32) for v, t in zip(args, sig.args)]


@declare(abs).lower("complex32")
def complex32_abs(lower, sig, args):
    wide_sig = sig.replace(args=(types.complex64,), return_type=types.float32)
    magnitude = lower.call_python(complex_abs, wide_sig, _wide(lower, sig, args))
    return lower.cast(magnitude, types.float32, types.float16)
