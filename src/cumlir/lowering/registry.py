"""Lowering rules, looked up by (operation, argument types).

An operation key is what numba's typing resolves a call to: a Python callable
(``operator.add``, ``len``, ``cuda.grid``), a string for IR operations
(``"getiter"``, ``"iternext"``, ``"static_getitem"``) or a type class (calls of
``np.float32(x)`` resolve to ``types.NumberClass``). An argument pattern is a
type instance (matches equal types), a type class (matches instances),
``types.Any`` (matches anything) or ``types.VarArg(pattern)`` (matches the rest).

Rule shapes (internal rules; ``cumlir.extending`` adapts the public shapes):
  call:     rule(lower, sig, args) -> value         args already cast to sig.args
  getattr:  rule(lower, typ, value, attr) -> value
  setattr:  rule(lower, sig, args, attr)         sig is (target type, value type) -> none
  cast:     rule(lower, fromty, toty, value) -> value
  constant: rule(lower, typ, pyval) -> value
  instance: rule(lower, key, sig, args) -> value   for every key that is an instance of a class
                                                 (external functions: the key says which one)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from numba.core import types

if TYPE_CHECKING:
    from ..operations._support.api import Pattern
    from ..operations._support.builder import (
        AttributeRule,
        CallRule,
        CastRule,
        ConstantRule,
        InstanceRule,
        NumbaType,
        SetAttributeRule,
    )

_R = TypeVar("_R", bound=Callable[..., Any])  # a rule, registered as it is


def _pattern_score(pattern: Pattern, ty: NumbaType) -> float | None:
    """How well *pattern* matches the type *ty*: None for no match, higher is more specific."""
    if pattern is types.Any or pattern == types.Any:
        return 0
    if isinstance(pattern, type):
        if isinstance(ty, pattern):
            return 1 + len(pattern.__mro__) / 100  # a more derived class is more specific
        return None
    return 3 if pattern == ty else None


def _match(patterns: Sequence[Pattern], argtypes: Sequence[NumbaType]) -> float | None:
    score: float = 0
    n = len(patterns)
    if n and isinstance(patterns[-1], types.VarArg):
        fixed, rest = patterns[:-1], patterns[-1].dtype
        if len(argtypes) < len(fixed):
            return None
        patterns = list(fixed) + [rest] * (len(argtypes) - len(fixed))
    elif n != len(argtypes):
        return None
    for pattern, ty in zip(patterns, argtypes):
        s = _pattern_score(pattern, ty)
        if s is None:
            return None
        score += s
    return score


class _Table:
    """Candidates for one key; the best-scoring match wins, later registrations win ties."""

    def __init__(self) -> None:
        self._entries: dict[Any, list[tuple[tuple[Pattern, ...], Callable[..., Any]]]] = {}

    def add(self, key: Any, patterns: Sequence[Pattern], rule: Callable[..., Any]) -> None:
        self._entries.setdefault(key, []).append((tuple(patterns), rule))

    def find(self, key: Any, argtypes: Sequence[NumbaType]) -> Callable[..., Any] | None:
        best: Callable[..., Any] | None
        best_score: float
        best, best_score = None, -1
        for patterns, rule in self._entries.get(key, ()):
            score = _match(patterns, argtypes)
            if score is not None and score >= best_score:
                best, best_score = rule, score
        return best


class LoweringRegistry:
    def __init__(self) -> None:
        self.calls = _Table()
        self.getattrs = _Table()
        self.setattrs = _Table()
        self.casts = _Table()
        self.constants = _Table()
        self._instance_calls: dict[type, InstanceRule] = {}  # class -> rule for calls whose key is an instance of it

    def lower(self, key: Any, *patterns: Pattern) -> Callable[[_R], _R]:
        """Register a call rule for *key* applied to arguments matching *patterns*."""

        def decorate(rule: _R) -> _R:
            self.calls.add(key, patterns, rule)
            return rule

        return decorate

    def lower_calls_of(self, cls: type) -> Callable[[_R], _R]:
        """Register a rule for calls of any key that is an instance of *cls*; it gets the key."""

        def decorate(rule: _R) -> _R:
            self._instance_calls[cls] = rule
            return rule

        return decorate

    def lower_getattr(self, pattern: Pattern, attr: str | None) -> Callable[[_R], _R]:
        def decorate(rule: _R) -> _R:
            self.getattrs.add(attr, (pattern,), rule)
            return rule

        return decorate

    def lower_getattr_generic(self, pattern: Pattern) -> Callable[[_R], _R]:
        return self.lower_getattr(pattern, None)

    def lower_setattr(self, pattern: Pattern, attr: str | None) -> Callable[[_R], _R]:
        def decorate(rule: _R) -> _R:
            self.setattrs.add(attr, (pattern,), rule)
            return rule

        return decorate

    def lower_setattr_generic(self, pattern: Pattern) -> Callable[[_R], _R]:
        return self.lower_setattr(pattern, None)

    def lower_cast(self, from_pattern: Pattern, to_pattern: Pattern) -> Callable[[_R], _R]:
        def decorate(rule: _R) -> _R:
            self.casts.add(None, (from_pattern, to_pattern), rule)
            return rule

        return decorate

    def lower_constant(self, pattern: Pattern) -> Callable[[_R], _R]:
        def decorate(rule: _R) -> _R:
            self.constants.add(None, (pattern,), rule)
            return rule

        return decorate

    # look-ups
    def find_call(self, key: Any, argtypes: Sequence[NumbaType]) -> CallRule | None:
        rule = self.calls.find(key, tuple(argtypes))
        if rule is not None:
            return rule
        for cls, instance_rule in self._instance_calls.items():
            if isinstance(key, cls):
                return lambda lower, sig, args: instance_rule(lower, key, sig, args)
        return None

    def find_getattr(self, ty: NumbaType, attr: str) -> AttributeRule | None:
        return self.getattrs.find(attr, (ty,)) or self.getattrs.find(None, (ty,))

    def find_setattr(self, ty: NumbaType, attr: str) -> SetAttributeRule | None:
        return self.setattrs.find(attr, (ty,)) or self.setattrs.find(None, (ty,))

    def find_cast(self, fromty: NumbaType, toty: NumbaType) -> CastRule | None:
        return self.casts.find(None, (fromty, toty))

    def find_constant(self, ty: NumbaType) -> ConstantRule | None:
        return self.constants.find(None, (ty,))


registry = LoweringRegistry()
lower = registry.lower
lower_getattr = registry.lower_getattr
lower_getattr_generic = registry.lower_getattr_generic
lower_setattr = registry.lower_setattr
lower_setattr_generic = registry.lower_setattr_generic
lower_cast = registry.lower_cast
lower_constant = registry.lower_constant
