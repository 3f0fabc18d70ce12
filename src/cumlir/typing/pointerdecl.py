"""Typing of raw pointers and arrays over them, for foreign interfaces.

``types.CPointer(T)`` indexes as ``p[i]`` / ``p[i] = v`` (numba's own templates) and
moves by whole elements with ``p + n``, ``n + p``, ``p - n``. ``types.voidptr`` has no
element type: it is only passed on, or turned into an array with ``cuda.carray(p, shape, dtype)``.
"""

import operator

from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing.npydecl import parse_dtype
from numba.core.typing.templates import AbstractTemplate, CallableTemplate, signature

from ..cuda import foreign
from .registry import register_global, registry


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


def _extents(name, shape):
    """The number of axes of a shape given as an integer or a tuple of integers."""
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    raise TypingError(f"{name}: the shape must be an integer or a tuple of integers, got {shape}")


def _element(name, ptr, dtype):
    """The array's element type from the pointer and the optional dtype."""
    given = None
    if dtype is not None and not isinstance(dtype, (types.NoneType, types.Omitted)):
        try:
            given = parse_dtype(dtype)
        except TypingError as e:
            raise TypingError(f"{name}: {e}") from None
    if isinstance(ptr, types.CPointer):
        if given is not None and given != ptr.dtype:
            raise TypingError(f"{name}: the dtype {given} does not match the pointer's element type {ptr.dtype}")
        return ptr.dtype
    if isinstance(ptr, types.RawPointer):
        if given is None:
            raise TypingError(f"{name}: a voidptr needs a dtype, as in {name}(ptr, shape, numba.int32)")
        return given
    raise TypingError(f"{name}: the first argument must be a CPointer or a voidptr, got {ptr}")


def _array_template(name, layout):
    class ArrayOverPointer(CallableTemplate):
        key = getattr(foreign, name)

        def generic(self):
            def typer(ptr, shape, dtype=None):
                return types.Array(_element(name, ptr, dtype), _extents(name, shape), layout)

            return typer

    ArrayOverPointer.__name__ = f"{name.title()}Template"
    return ArrayOverPointer


for _name, _layout in (("carray", "C"), ("farray", "F")):
    _template = _array_template(_name, _layout)
    register_global(getattr(foreign, _name), types.Function(_template))
