"""The lowering of the operations (``cumlir/operations``), installed into the lowering
registry: each rule under the key and type patterns its record gave, and the attributes
of stubs read rather than called (``threadIdx.x``) through their stub."""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba.core import errors

from .. import operations
from ..frontend_lock import FRONTEND_LOCK
from ..operations import resolve, resolve_key
from ..typing.operations import StubNamespace
from .registry import registry

if TYPE_CHECKING:
    from ..operations._support.builder import Lower, Value

_installed = 0  # how many of operations.declarations() are installed


def _install(decl: object) -> None:
    if isinstance(decl, operations.Operation):
        for patterns, rule in decl.rules:
            registry.lower(resolve_key(decl.key), *map(resolve, patterns))(rule)
    elif isinstance(decl, operations.Attribute):
        receiver = resolve(decl.receiver)
        if decl.getter is not None:
            registry.lower_getattr(receiver, decl.attr)(decl.getter)
        if decl.setter is not None:
            registry.lower_setattr(receiver, decl.attr)(decl.setter)
    elif isinstance(decl, operations.Conversion):
        patterns = tuple(map(resolve, decl.patterns))
        add = registry.lower_cast if decl.kind == "cast" else registry.lower_constant
        add(*patterns)(decl.rule)
    elif isinstance(decl, operations.InstanceCalls):
        registry.lower_calls_of(decl.cls)(decl.rule)


def install() -> None:
    """Register the rules of records made since the last call (modules found since)."""
    global _installed
    # under the lock: a thread must not lower with a registry another is half-way through filling
    with FRONTEND_LOCK:
        declarations = operations.declarations()
        for decl in declarations[_installed:]:
            _install(decl)
        _installed = len(declarations)


@registry.lower_getattr_generic(StubNamespace)
def stub_attribute(lower: Lower, ty: StubNamespace, value: Value, attr: str) -> Value:
    rule = ty.stub._attributes.get(attr, (None, None))[1]
    if rule is None:
        raise errors.LoweringError(f"no lowering for the attribute {ty}.{attr}", lower.loc)
    return rule(lower, attr)
