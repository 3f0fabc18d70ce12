"""The typing registry offered to extensions, and the guard that names them in errors.

Numba passes on an exception other than its own raised inside a typing template
as it is, with no word of where: the guard turns it into a TypingError naming the
extension function, which numba then reports at the kernel line being typed.
Numba's own exceptions (TypingError, ForceLiteralArg) pass unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from numba.core import errors, types

from .registry import registry as _registry

_T = TypeVar("_T", bound=type)


def describe(fn: object) -> str:
    """``name (file:line)`` of an extension function."""
    code = getattr(fn, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
    return f"{getattr(fn, '__qualname__', repr(fn))}{where}"


def typing_guard(extension: Callable[..., Any], fn: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """*fn* (default: *extension*) whose non-numba exceptions become TypingErrors naming *extension*."""
    fn = fn or extension

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except errors.NumbaError:
            raise
        except Exception as e:
            raise errors.TypingError(f"in the extension typing {describe(extension)}: {type(e).__name__}: {e}") from e

    return guarded


def _guard_template(template: _T) -> _T:
    """Guard the methods numba calls on a template class, in place."""
    for name, method in list(vars(template).items()):
        if callable(method) and (name in ("generic", "generic_resolve") or name.startswith("resolve_")):
            setattr(template, name, typing_guard(method))
    return template


class TypingRegistry:
    """Numba's ``Registry`` interface over cumlir's typing registry, guarding each template."""

    def register(self, template: _T) -> _T:
        _registry.register(_guard_template(template))
        return template

    def register_attr(self, template: _T) -> _T:
        _registry.register_attr(_guard_template(template))
        return template

    def register_global(self, val: Any = None, typ: types.Type | None = None, **kwargs: Any) -> Any:
        if typ is not None:  # a global of a known type
            return _registry.register_global(val, typ, **kwargs)

        # numba asks *val* to be reachable as module.name (its key must pickle); cumlir
        # does not pickle templates, so constructors made inside functions work too
        key = kwargs.pop("typing_key", val)
        if kwargs:
            raise TypeError(f"unexpected arguments {sorted(kwargs)}")

        def decorate(template: _T) -> _T:
            keyed = type(template.__name__, (_guard_template(template),), {"key": key})
            _registry.register_global(val, types.Function(keyed))
            return template

        return decorate


typing_registry = TypingRegistry()
