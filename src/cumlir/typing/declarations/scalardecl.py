"""Typing of float16 and bfloat16 arithmetic as Numba-CUDA has it: two float16 (or two
bfloat16) operands give float16 (bfloat16).

numba's own templates would convert 16-bit operands to float32 first. These are
AbstractTemplates so that they are considered before numba's ConcreteTemplates.
"""

import operator

from numba.core import types
from numba.core.typing.templates import AbstractTemplate, signature

from ...types import bfloat16
from ..registry import register_global

_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv)
_INPLACE = (operator.iadd, operator.isub, operator.imul, operator.itruediv)
_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)


def _half_template(op, half, result):
    class HalfOperator(AbstractTemplate):
        key = op

        def generic(self, args, kws):
            if not kws and args and all(a == half for a in args):
                return signature(result or half, *args)

    HalfOperator.__name__ = f"Half_{half}_{op.__name__}"
    return HalfOperator


def _declare():
    for half in (types.float16, bfloat16):
        for op in _ARITHMETIC + _INPLACE + (operator.neg, operator.pos):
            register_global(op, types.Function(_half_template(op, half, None)))
        for op in _COMPARISONS:
            register_global(op, types.Function(_half_template(op, half, types.boolean)))


_declare()


class _MinMax(AbstractTemplate):
    """max(a, b, ...) and max(tuple) on real numbers, as Python compares them (numba's
    overload of these calls an llvmlite intrinsic, so cumlir types them itself)."""

    def generic(self, args, kws):
        if kws or not args:
            return None
        if len(args) == 1 and isinstance(args[0], types.BaseTuple):
            members = list(args[0].types)
        else:
            members = list(args)
        if not members or not all(isinstance(t, (types.Integer, types.Float, types.Boolean)) for t in members):
            return None
        result = self.context.unify_types(*members)
        if result is None:
            return None
        return signature(result, *args)


class _Max(_MinMax):
    key = max


class _Min(_MinMax):
    key = min


register_global(max, types.Function(_Max))
register_global(min, types.Function(_Min))


class _Int(AbstractTemplate):
    """int(x) of a bool or real number is an intp (numba's overload uses an llvmlite intrinsic)."""

    key = int

    def generic(self, args, kws):
        if not kws and len(args) == 1 and isinstance(args[0], (types.Boolean, types.Integer, types.Float)):
            return signature(types.intp, *args)


register_global(int, types.Function(_Int))


class _ScalarWhere(AbstractTemplate):
    """np.where(condition, x, y) on scalars picks x or y (numba's overload is for arrays)."""

    def generic(self, args, kws):
        if kws or len(args) != 3:
            return None
        condition, x, y = args
        scalars = (types.Number, types.Boolean)
        if not all(isinstance(t, scalars) for t in args):
            return None
        result = self.context.unify_types(x, y)
        if result is not None:
            return signature(result, condition, x, y)


def _declare_where():
    import numpy as np

    template = type("NpWhere", (_ScalarWhere,), {"key": np.where})
    register_global(np.where, types.Function(template))


_declare_where()
