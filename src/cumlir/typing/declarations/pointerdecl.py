"""Typing of raw pointers, for foreign interfaces.

``types.CPointer(T)`` indexes as ``p[i]`` / ``p[i] = v`` (numba's own templates) and
moves by whole elements with ``p + n``, ``n + p``, ``p - n``. ``types.voidptr`` has no
element type: it is only passed on, or turned into an array with ``cuda.carray(p, shape, dtype)``
(operations/foreign.py).
"""

import operator

from numba.core import types
from numba.core.typing.templates import AbstractTemplate, signature

from ..registry import registry


@registry.register_global(operator.add)
class PointerAdd(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) != 2 or kws:
            return None
        left, right = args
        if isinstance(left, types.CPointer) and isinstance(right, types.Integer):
            return signature(left, left, right)
        if isinstance(right, types.CPointer) and isinstance(left, types.Integer):
            return signature(right, left, right)
        return None


@registry.register_global(operator.sub)
class PointerSub(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 2 and not kws and isinstance(args[0], types.CPointer) and isinstance(args[1], types.Integer):
            return signature(args[0], *args)
        return None
