"""The typing of the operations (``cumlir/operations``), installed into cumlir's typing
registry: a typer becomes a CallableTemplate, a list of cases a ConcreteTemplate, a
generic function an AbstractTemplate, an attribute's typer an AttributeTemplate, and
every stub that is read rather than called (``cuda.shared``, ``threadIdx``) the one numba
type :class:`StubNamespace`."""

from __future__ import annotations

from typing import Any, TypeGuard

from numba.core import types, utils
from numba.core.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    CallableTemplate,
    ConcreteTemplate,
    Signature,
    bound_function,
    signature,
)

from .. import operations
from ..frontend_lock import FRONTEND_LOCK
from .registry import exclusive, register, register_attr, register_global


class StubNamespace(types.Dummy):
    """A stub read rather than called: a namespace (``cuda.shared``) whose attributes are
    other stubs, or a register (``threadIdx``) whose attributes are values. Attributes
    are typed and lowered by the rules the stub's module registered."""

    def __init__(self, stub: operations.Namespace) -> None:
        self.stub = stub
        super().__init__(name=f"cuda.{stub.__name__}")

    @property
    def key(self) -> str:
        return self.stub.__name__


_types: dict[operations.Operation | operations.Attribute, types.Type] = {}  # declaration -> its numba type
_installed = 0  # how many of operations.declarations() are installed


def _template_name(decl: operations.Operation | operations.Attribute) -> str:
    return "Typing_" + "".join(c if c.isalnum() else "_" for c in decl.name)


def _template(decl: operations.Operation) -> type:
    """The numba template class of an operation's typing."""
    kind, fn = decl.typing  # type: ignore[misc]  # an operation with typing
    body = {"key": decl.key, "prefer_literal": decl.prefer_literal}
    if kind == "template":
        return fn
    if kind == "typer":
        fn.pysig = utils.pysignature(fn)  # numba reads it instead of inspecting fn at every call
        body["generic"] = lambda self, typer=fn: typer
        return type(_template_name(decl), (CallableTemplate,), body)
    if kind == "generic":
        body["generic"] = lambda self, args, kws, generic=fn: generic(self.context, args, kws)
        return type(_template_name(decl), (AbstractTemplate,), body)
    body["cases"] = list(fn())
    return type(_template_name(decl), (ConcreteTemplate,), body)


def _numba_type(decl: operations.Operation) -> types.Type | None:
    if isinstance(decl, operations.Namespace):
        return StubNamespace(decl)
    if isinstance(decl, operations.Register):
        return operations.resolve(decl.type_name)  # read as a value: cuda.laneid is an int32
    if decl.typing is None:
        return None  # lowering only: numba types the key itself
    return types.Function(_template(decl))


def _method_template(decl: operations.Method) -> type:
    """An AttributeTemplate giving values of the method's receiver type class the method."""
    typer = decl.typing[1]  # type: ignore[index]  # a method with typing

    def resolve(
        self: AttributeTemplate, receiver: types.Type, args: tuple[types.Type, ...], kws: dict[str, Any]
    ) -> Signature | None:
        result = typer(receiver, *args, **kws)
        return result if isinstance(result, Signature) or result is None else signature(result, *args)

    body = {"key": operations.resolve(decl.receiver), f"resolve_{decl.method}": bound_function(decl.key)(resolve)}
    return type(_template_name(decl), (AttributeTemplate,), body)


def _attribute_template(decl: operations.Attribute) -> type:
    """An AttributeTemplate typing the attribute (or, for name None, any attribute)."""
    typer = decl.typing  # an attribute with typing
    body: dict[str, Any]
    if decl.attr is None:
        body = {"generic_resolve": lambda self, ty, attr: typer(ty, attr)}  # type: ignore[misc]
    else:
        body = {f"resolve_{decl.attr}": lambda self, ty: typer(ty)}  # type: ignore[misc]
    body["key"] = operations.resolve(decl.receiver)
    return type(_template_name(decl), (AttributeTemplate,), body)


def _install_operation(decl: operations.Operation) -> None:
    if isinstance(decl, operations.Method):
        if decl.typing is not None:
            register_attr(_method_template(decl))
    elif _called_stub(decl):
        _when_named.setdefault(decl, None)
    elif decl.typing is not None and isinstance(decl.key, str):
        register(_template(decl))  # an IR operation ("static_getitem"): numba looks it up by key
    else:
        ty = _numba_type(decl)
        if ty is not None:
            _types[decl] = decl.numba_type = ty  # type: ignore[assignment]  # Operation.numba_type is declared None
            register_global(decl.key, ty)
            if decl.exclusive:
                exclusive[decl.key] = ty


def install() -> None:
    """Register the typing of records made since the last call (modules found since).
    A called stub's template is built when the typing context first looks the stub up
    (:func:`stub_type`): of the hundreds declared, a process uses a few."""
    global _installed
    # under the lock: a thread must not type with a registry another is half-way through filling
    with FRONTEND_LOCK:
        declarations = operations.declarations()
        for decl in declarations[_installed:]:
            if isinstance(decl, operations.Operation):
                _install_operation(decl)
            elif isinstance(decl, operations.Attribute) and decl.typing is not None:
                register_attr(_attribute_template(decl))
        _installed = len(declarations)


_when_named: dict[operations.Stub, types.Type | None] = {}  # called stub -> its numba type, None until first looked up


def _called_stub(decl: object) -> TypeGuard[operations.Stub]:
    return isinstance(decl, operations.Stub) and not isinstance(decl, (operations.Namespace, operations.Register))


def stub_type(value: object) -> types.Type | None:
    """The numba type of *value* if it is a called stub (its template built now, on the
    first look-up), else None."""
    if not isinstance(value, operations.Stub) or value not in _when_named:
        return None
    found = _when_named[value]
    if found is None and value.typing is not None:
        found = _when_named[value] = _types[value] = value.numba_type = _numba_type(value)  # type: ignore[assignment]
    return found


@register_attr
class StubNamespaceAttributes(AttributeTemplate):
    key = StubNamespace

    def attribute_names(self, ty: StubNamespace) -> list[str]:
        """The names generic_resolve types (first_lines.py suggests one for a misspelt name)."""
        return [*ty.stub._members, *ty.stub._attributes]

    def generic_resolve(self, ty: StubNamespace, attr: str) -> types.Type | None:  # type: ignore[override]
        member = ty.stub._members.get(attr)
        if member is not None:
            return stub_type(member) or _types.get(member)
        typer = ty.stub._attributes.get(attr, (None,))[0]
        return typer(attr) if typer is not None else None


install()
