"""Typing of the ``cmath`` module: complex64 stays complex64, other numbers become complex128."""

import cmath

from numba.core import types
from numba.core.typing.templates import AbstractTemplate, signature

from ..registry import register_global

_COMPLEX_RESULT = "acos acosh asin asinh atan atanh cos cosh exp log10 sin sinh sqrt tan tanh".split()
_PREDICATES = "isinf isnan isfinite".split()


def _as_complex(ty):
    if isinstance(ty, types.Complex):
        return ty
    if isinstance(ty, (types.Integer, types.Float, types.Boolean)):
        return types.complex128
    return None


def _template(fn, result_of):
    class CmathFunction(AbstractTemplate):
        key = fn

        def generic(self, args, kws):
            if kws or len(args) != 1:
                return None
            operand = _as_complex(args[0])
            if operand is not None:
                return signature(result_of(operand), operand)

    CmathFunction.__name__ = f"Cmath_{fn.__name__}"
    return CmathFunction


class CmathLog(AbstractTemplate):
    key = cmath.log

    def generic(self, args, kws):
        if kws or not 1 <= len(args) <= 2:
            return None
        operands = [_as_complex(a) for a in args]
        if None in operands:
            return None
        ty = operands[0] if len(operands) == 1 else types.complex128
        if len(operands) == 2 and operands[0] == operands[1]:
            ty = operands[0]
        return signature(ty, *([ty] * len(operands)))


class CmathRect(AbstractTemplate):
    key = cmath.rect

    def generic(self, args, kws):
        if not kws and len(args) == 2 and all(isinstance(a, (types.Integer, types.Float)) for a in args):
            return signature(types.complex128, types.float64, types.float64)


def _declare():
    for name in _COMPLEX_RESULT:
        fn = getattr(cmath, name)
        register_global(fn, types.Function(_template(fn, lambda c: c)))
    for name in _PREDICATES:
        fn = getattr(cmath, name)
        register_global(fn, types.Function(_template(fn, lambda c: types.boolean)))
    register_global(cmath.phase, types.Function(_template(cmath.phase, lambda c: c.underlying_float)))
    register_global(
        cmath.polar, types.Function(_template(cmath.polar, lambda c: types.UniTuple(c.underlying_float, 2)))
    )
    register_global(cmath.log, types.Function(CmathLog))
    register_global(cmath.rect, types.Function(CmathRect))


_declare()
