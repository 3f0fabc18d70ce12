"""The public lowering registry: extension callbacks in their documented shapes, adapted
into operation records (cumlir/operations), which lowering/operations.py installs into the
one set of rule tables every operation uses.

Public shapes (docs/extending.md):
  call:     impl(builder, target, args, kwargs)       args are variables (numba ir.Var, as numba's
                                                      lowering passes); store the result in target
  getattr:  impl(context, builder, typ, value[, attr]) -> value
  setattr:  impl(context, builder, sig, [target, value][, attr])
  cast:     impl(context, builder, fromty, toty, value) -> value
  constant: impl(context, builder, typ, pyval) -> value

An exception raised by a callback is reported as a LoweringError naming the
callback, at the kernel line being lowered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from numba.core import errors
from numba.core import ir as nir

from .. import operations
from .builder_api import extension_error

if TYPE_CHECKING:
    from numba.core.typing.templates import Signature

    from ..operations._support.api import Pattern
    from ..operations._support.builder import (
        AttributeRule,
        CallRule,
        CastRule,
        ConstantRule,
        Lower,
        NumbaType,
        SetAttributeRule,
        Value,
    )

_F = TypeVar("_F", bound=Callable[..., Any])  # a callback, returned as it is


def _reported(callback: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run *callback*(lower, ...) so that its errors name it and the kernel's line."""

    def decorate(rule: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(rule)
        def guarded(lower: Lower, *args: Any) -> Any:
            try:
                return rule(lower, *args)
            except errors.LoweringError as e:
                if getattr(e, "_extension_reported", False):
                    raise
                raise _mark(extension_error(callback, e, lower.loc)) from e
            except Exception as e:
                raise _mark(extension_error(callback, e, lower.loc)) from e

        return guarded

    return decorate


def _mark(error: errors.LoweringError) -> errors.LoweringError:
    error._extension_reported = True  # type: ignore[attr-defined]  # an extension called from an extension is named once
    return error


def _call_rule(impl: Callable[..., Any]) -> CallRule:
    @_reported(impl)
    def rule(lower: Lower, sig: Signature, args: Sequence[Value]) -> Value | None:
        # bind_temporaries and read_temporary: MLIRLower's, beyond the builder protocol
        with lower.bind_temporaries(list(args) + [None], list(sig.args) + [sig.return_type]) as names:  # type: ignore[attr-defined]
            *argvars, target = (nir.Var(None, name, lower.loc or nir.unknown_loc) for name in names)
            returned = impl(lower, target, list(argvars), [])
            stored = lower.read_temporary(target.name)  # type: ignore[attr-defined]
        return stored if stored is not None else returned

    return rule


def _getattr_rule(impl: Callable[..., Any], generic: bool) -> AttributeRule:
    @_reported(impl)
    def rule(lower: Lower, typ: NumbaType, value: Value, attr: str) -> Value:
        if generic:
            return impl(lower.target_context, lower, typ, value, attr)
        return impl(lower.target_context, lower, typ, value)

    return rule


def _setattr_rule(impl: Callable[..., Any], generic: bool) -> SetAttributeRule:
    @_reported(impl)
    def rule(lower: Lower, sig: Signature, args: Sequence[Value], attr: str) -> None:
        if generic:
            impl(lower.target_context, lower, sig, list(args), attr)
        else:
            impl(lower.target_context, lower, sig, list(args))

    return rule


def _cast_rule(impl: Callable[..., Any]) -> CastRule:
    @_reported(impl)
    def rule(lower: Lower, fromty: NumbaType, toty: NumbaType, value: Value) -> Value:
        return impl(lower.target_context, lower, fromty, toty, value)

    return rule


def _constant_rule(impl: Callable[..., Any]) -> ConstantRule:
    @_reported(impl)
    def rule(lower: Lower, typ: NumbaType, pyval: Any) -> Value:
        return impl(lower.target_context, lower, typ, pyval)

    return rule


class MLIRLoweringRegistry:
    """Decorators registering public-shape callbacks; each returns the callback unchanged,
    so decorators stack (one callback for several signatures)."""

    def lower(self, key: Any, *patterns: Pattern) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.declare(key).lower(*patterns)(_call_rule(impl))
            return impl

        return decorate

    def lower_getattr(self, pattern: Pattern, attr: str) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.attribute(pattern, attr).lower(_getattr_rule(impl, generic=False))
            return impl

        return decorate

    def lower_getattr_generic(self, pattern: Pattern) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.attribute(pattern).lower(_getattr_rule(impl, generic=True))
            return impl

        return decorate

    def lower_setattr(self, pattern: Pattern, attr: str) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.attribute(pattern, attr).lower_set(_setattr_rule(impl, generic=False))
            return impl

        return decorate

    def lower_setattr_generic(self, pattern: Pattern) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.attribute(pattern).lower_set(_setattr_rule(impl, generic=True))
            return impl

        return decorate

    def lower_cast(self, from_pattern: Pattern, to_pattern: Pattern) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.cast(from_pattern, to_pattern)(_cast_rule(impl))
            return impl

        return decorate

    def lower_constant(self, pattern: Pattern) -> Callable[[_F], _F]:
        def decorate(impl: _F) -> _F:
            operations.constant(pattern)(_constant_rule(impl))
            return impl

        return decorate


lowering_registry = MLIRLoweringRegistry()
