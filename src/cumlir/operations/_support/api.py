"""The one way to declare an operation: its typing and its lowering side by side.

Every operation cumlir compiles is declared here by an operation module of this package
(see docs/architecture.md, "Adding an operation"), and ``cumlir.extending`` declares
through the same records. The records are plain Python, so that importing an operation
module loads neither numba, MLIR nor the CUDA driver: ``from cumlir import cuda`` exposes
the stubs. numba and MLIR reach typers and rules through :func:`lazy` modules, and type
patterns are names (``"Integer"``, ``"bfloat16"``, ``"*Any"``) resolved in ``cumlir.types``
when the records are installed: ``typing/operations.py`` installs the typing into the
typing registry, ``lowering/operations.py`` the rules into the lowering registry.

The records, by what they declare:

============================  =====================================================
``declare(key)``              calls of *key* (``operator.add``, ``math.sin``, ``"getiter"``, a type class)
``Stub`` / ``Namespace``      a name of the ``cuda`` namespace (``cuda.syncthreads``, ``cuda.shared``)
``Register``                  a ``cuda`` name read as a value (``cuda.laneid``)
``method(receiver, name)``    ``x.name(...)`` on values of a type class
``attribute(receiver, name)`` ``x.name`` read (and assigned) on values of a type class
``cast(from, to)``            a conversion between types
``constant(pattern)``         a compile-time constant of a type becoming an MLIR value
``calls_of(cls)``             calls of every key that is an instance of the Python class *cls*
============================  =====================================================
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import FunctionType, MethodType
from typing import TYPE_CHECKING, Any

from ...lazy import lazy

if TYPE_CHECKING:
    from .builder import (
        AttributeRule,
        CallRule,
        CastRule,
        ConstantRule,
        InstanceRule,
        NamespaceAttributeRule,
        RegisterRule,
        SetAttributeRule,
    )

Pattern = Any  # a type name in cumlir.types ("Integer", "*Any"), or a numba type or type class


# every record made so far, in order (the registry in __init__.py reads it)
declarations: list[Operation | Attribute | Conversion | InstanceCalls] = []


def _is_rule(pattern: object) -> bool:
    # a bare @op.lower: the one argument is the rule (a type class given as a pattern is callable too)
    return isinstance(pattern, (FunctionType, MethodType, functools.partial))


def _describe(key: object) -> str:
    if isinstance(key, str):
        return key
    name = getattr(key, "__qualname__", None) or getattr(key, "__name__", None) or repr(key)
    return f"{getattr(key, '__module__', None) or ''}.{name}".lstrip(".")


class Operation:
    """The typing and lowering of calls of one key: a stub, a Python callable that is not
    cumlir's (``math.sin``), a string numba uses for an IR operation (``"getiter"``) or a
    type class (``np.float32(x)`` resolves to ``NumberClass``).

    Its typing is one of: a typer (``@op.typer``: numba's CallableTemplate), a list of
    signatures (``@op.cases``: numba's ConcreteTemplate), a generic function of the typing
    context (``@op.generic``: numba's AbstractTemplate), or a numba template class made
    elsewhere (``op.template(cls)``, for extensions). An operation declared without typing
    is typed by numba. Its lowering is one or more rules ``rule(lower, sig, args) -> value``
    registered with ``@op.lower(patterns...)``.
    """

    # its numba type, set when the typing context installs it; a typer may return a
    # namespace's type to hand out the namespace as a value (cuda.cg.this_grid())
    numba_type = None

    def __init__(self, key: Any, name: str | None = None, *, exclusive: bool = False, prefer_literal: bool = False):
        self.key = key
        self.name = name or _describe(key)
        self.exclusive = exclusive  # typed by this declaration alone (numba's overloads ignored)
        self.prefer_literal = prefer_literal
        self.typing: tuple[str, Any] | None = None  # ("typer" | "cases" | "generic" | "template", function or class)
        self.rules: list[tuple[tuple[Pattern, ...], CallRule]] = []
        declarations.append(self)

    def _set_typing(self, kind: str, fn: Any) -> Any:
        if self.typing is not None:
            raise ValueError(f"{self.name} already has its typing ({self.typing[1].__qualname__})")
        self.typing = (kind, fn)
        return fn

    def typer(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: ``fn(*argument types) -> result type`` (or a full Signature), keywords
        bound by fn's own parameters, as numba's CallableTemplate; raise numba's TypingError
        with a clear message to reject the arguments."""
        return self._set_typing("typer", fn)

    def cases(self, fn: Callable[[], list[Any]]) -> Callable[[], list[Any]]:
        """Decorator: ``fn() -> [Signature, ...]``, the signatures numba picks from after
        converting the arguments (numba's ConcreteTemplate). Called once numba is loaded."""
        return self._set_typing("cases", fn)

    def generic(self, fn: Callable[[Any, tuple[Any, ...], dict[str, Any]], Any]) -> Callable[..., Any]:
        """Decorator: ``fn(context, args, kws) -> Signature or None`` with numba's typing
        context (numba's AbstractTemplate): for typing that unifies or resolves types."""
        return self._set_typing("generic", fn)

    def template(self, cls: type) -> type:
        """A numba template class made by the caller (the extension API's typing)."""
        return self._set_typing("template", cls)

    def lower(self, *patterns: Pattern) -> Any:
        """Decorator: the lowering ``rule(lower, sig, args) -> value`` for arguments matching
        *patterns*: type names in ``cumlir.types`` ("Integer", "float32", "Any"; "*Any" for
        any further arguments) or numba types and type classes. ``@op.lower`` or
        ``@op.lower()`` take any arguments."""
        if len(patterns) == 1 and _is_rule(patterns[0]):
            self.rules.append((("*Any",), patterns[0]))
            return patterns[0]

        def decorate(rule: CallRule) -> CallRule:
            self.rules.append((patterns or ("*Any",), rule))
            return rule

        return decorate

    def __repr__(self):
        return f"<operation {self.name}>"


def declare(key: Any, name: str | None = None, **flags: bool) -> Operation:
    """The declarations of calls of *key*, an operation that is not a cumlir stub
    (``math.sin``, ``operator.add``). ``exclusive=True``: numba's own typing of *key*
    (its CPU overloads) is ignored in device code."""
    return Operation(key, name, **flags)


class Method(Operation):
    """A method of the values of a type class (``x.bit_count()`` on integers):
    ``method("Integer", "bit_count")``. Its typer is called with the receiver's type first;
    its rules get the receiver as the first argument. numba's key is "Integer.bit_count"."""

    def __init__(self, receiver: str, name: str) -> None:
        super().__init__(f"{receiver}.{name}", f"{receiver}.{name}")
        self.receiver = receiver  # a type class name in cumlir.types
        self.method = name

    def cases(self, fn: Any) -> Any:
        raise TypeError(f"{self.name}: a method is typed by a typer, not cases")

    generic = cases


def method(receiver: str, name: str) -> Method:
    """Declarations for the method *name* of values of the type class *receiver*."""
    return Method(receiver, name)


class Attribute:
    """Reading (and assigning) the attribute *name* of values matching *receiver*, or any
    attribute with ``name=None``. Typing, optional where numba types it:
    ``@attr.typer`` with ``fn(receiver type) -> type`` (``fn(receiver type, name)`` for
    any attribute; None: not this one). Lowering: ``@attr.lower`` with
    ``rule(lower, typ, value, name) -> value``, ``@attr.lower_set`` with
    ``rule(lower, sig, args, name)`` (sig is (receiver, value) -> none), which returns None,
    or for a value assigned by value (a C struct) the receiver's new value."""

    def __init__(self, receiver: Pattern, name: str | None = None) -> None:
        self.receiver = receiver
        self.attr = name
        self.name = f"{receiver}.{name or '*'}"
        self.typing: Callable[..., Any] | None = None
        self.getter: AttributeRule | None = None
        self.setter: SetAttributeRule | None = None
        declarations.append(self)

    def typer(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        if self.typing is not None:
            raise ValueError(f"the attribute {self.name} already has its typing")
        self.typing = fn
        return fn

    def lower(self, rule: AttributeRule) -> AttributeRule:
        self.getter = rule
        return rule

    def lower_set(self, rule: SetAttributeRule) -> SetAttributeRule:
        self.setter = rule
        return rule

    def __repr__(self):
        return f"<attribute {self.name}>"


def attribute(receiver: Pattern, name: str | None = None) -> Attribute:
    """Declarations for the attribute *name* (None: any) of values matching *receiver*."""
    return Attribute(receiver, name)


class Conversion:
    """A rule keyed by type patterns alone: a cast ``rule(lower, fromty, toty, value)``
    or a constant ``rule(lower, typ, pyval)``."""

    def __init__(self, kind: str, patterns: tuple[Pattern, ...], rule: CastRule | ConstantRule) -> None:
        self.kind = kind  # "cast" or "constant"
        self.patterns = patterns
        self.rule = rule
        declarations.append(self)


def cast(from_pattern: Pattern, to_pattern: Pattern) -> Callable[[CastRule], CastRule]:
    """Decorator: the conversion ``rule(lower, fromty, toty, value) -> value`` of values
    matching *from_pattern* to types matching *to_pattern*."""

    def decorate(rule: CastRule) -> CastRule:
        Conversion("cast", (from_pattern, to_pattern), rule)
        return rule

    return decorate


def constant(pattern: Pattern) -> Callable[[ConstantRule], ConstantRule]:
    """Decorator: ``rule(lower, typ, pyval) -> value`` making a compile-time constant of a
    type matching *pattern* an MLIR value."""

    def decorate(rule: ConstantRule) -> ConstantRule:
        Conversion("constant", (pattern,), rule)
        return rule

    return decorate


class InstanceCalls:
    """Calls of every key that is an instance of a Python class (external functions:
    ``rule(lower, key, sig, args)``, the key saying which one)."""

    def __init__(self, cls: type, rule: InstanceRule) -> None:
        self.cls = cls
        self.rule = rule
        declarations.append(self)


def calls_of(cls: type) -> Callable[[InstanceRule], InstanceRule]:
    """Decorator: the lowering ``rule(lower, key, sig, args)`` of calls of instances of *cls*."""

    def decorate(rule: InstanceRule) -> InstanceRule:
        InstanceCalls(cls, rule)
        return rule

    return decorate


class Implementation:
    """A Python function a rule compiles and calls (``lower.call_python``): semantics easiest
    to state in Python (CPython's complex division, the ``cmath`` functions). Inside
    compiled code an implementation is a device function, so implementations may call one
    another; on the host it is the Python function."""

    def __init__(self, pyfunc: Callable[..., Any]) -> None:
        functools.update_wrapper(self, pyfunc)
        self.pyfunc = pyfunc

    def __call__(self, *args, **kwargs):
        return self.pyfunc(*args, **kwargs)

    def __repr__(self):
        return f"<implementation {self.pyfunc.__qualname__}>"


def implementation(pyfunc: Callable[..., Any]) -> Implementation:
    """Decorator: *pyfunc* as an Implementation (see there)."""
    return Implementation(pyfunc)


class Stub(Operation):
    """A name that only has a meaning inside a kernel or device function (``cuda.syncthreads``).

    On the host calling it raises RuntimeError; it pickles by name.
    """

    def __init__(self, name: str, doc: str | None = None) -> None:
        super().__init__(self, f"cuda.{name}")
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc

    def __repr__(self):
        return f"<cumlir.cuda.{self.__name__}>"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuda.{self.__name__} can only be used inside a function compiled with @cuda.jit")

    def __reduce__(self):
        # stubs are singletons: pickling refers to them by name, through the registry, which
        # imports this module (a cycle at import time)
        from .. import stub

        return (stub, (self.__name__,))


class Register(Stub):
    """A stub read as a value rather than called (``cuda.laneid``): its numba type is
    *type_name*, a name in ``cumlir.types``, and ``@register.read`` gives its lowering
    ``rule(lower) -> value``. Read as ``cuda.laneid`` or imported by name, as numba types
    a global of a registered type."""

    def __init__(self, name: str, type_name: str, doc: str | None = None) -> None:
        super().__init__(name, doc)
        self.type_name = type_name
        self.read_rule: RegisterRule | None = None

    def read(self, rule: RegisterRule) -> RegisterRule:
        """Decorator: the lowering ``rule(lower) -> value`` of reading the register."""
        self.read_rule = rule
        return rule


class Namespace(Stub):
    """A stub that is read rather than called: a namespace of stubs (``cuda.shared.array``)
    or a register with attributes (``threadIdx.x``). Kernels see it as one numba type,
    ``cumlir.typing.operations.StubNamespace``."""

    def __init__(self, name: str, doc: str | None = None) -> None:
        super().__init__(name, doc)
        # underscored: the namespace's own attributes are its members' names
        self._members: dict[str, Stub] = {}
        self._attributes: dict[str, list[Any]] = {}  # attribute -> [typer, lowering rule]
        self.printed_attributes: tuple[str, ...] = ()  # the attributes print() shows, as a tuple

    def prints_attributes(self, *attrs: str) -> None:
        """``print()`` of the namespace itself prints these attributes as a tuple
        (``print(cuda.threadIdx)`` shows ``(x, y, z)``, as Numba-CUDA prints a Dim3)."""
        missing = [attr for attr in attrs if attr not in self._attributes]
        if missing:
            raise ValueError(f"cuda.{self.__name__}: print() shows undeclared attributes {missing}")
        self.printed_attributes = attrs

    def _claim(self, attr):
        if attr in self._members or attr in self._attributes or hasattr(type(self), attr):
            raise ValueError(f"cuda.{self.__name__}.{attr} is declared twice or hides a method")

    def function(self, attr: str, doc: str | None = None) -> Stub:
        """A stub called as ``cuda.<namespace>.<attr>(...)``; give it a typer and a rule."""
        self._claim(attr)
        return self._member(attr, Stub(f"{self.__name__}.{attr}", doc))

    def namespace(self, attr: str, doc: str | None = None) -> Namespace:
        """A namespace within this one (``cuda.cg.grid_group``)."""
        self._claim(attr)
        return self._member(attr, Namespace(f"{self.__name__}.{attr}", doc))

    def _member(self, attr, stub):
        self._members[attr] = stub
        setattr(self, attr, stub)
        return stub

    def attribute(self, *attrs: str) -> Callable[[Callable[[str], Any]], Callable[[str], Any]]:
        """Decorator: the typing ``fn(attr) -> numba type`` of reading the attributes *attrs*."""

        def decorate(typer):
            for attr in attrs:
                self._claim(attr)
                self._attributes[attr] = [typer, None]
            return typer

        return decorate

    def lower_attribute(self, *attrs: str) -> Callable[[NamespaceAttributeRule], NamespaceAttributeRule]:
        """Decorator: the lowering ``rule(lower, attr) -> value`` of reading *attrs*."""

        def decorate(rule):
            for attr in attrs:
                if attr not in self._attributes:
                    raise ValueError(f"cuda.{self.__name__}.{attr}: declare its typing with .attribute first")
                self._attributes[attr][1] = rule
            return rule

        return decorate

    def __getattr__(self, attr):
        if attr in self.__dict__.get("_attributes", ()):
            raise RuntimeError(
                f"cuda.{self.__name__}.{attr} can only be read inside a function compiled with @cuda.jit"
            )
        raise AttributeError(attr)


_types = lazy("cumlir.types")


# the key of declarations typing calls of number classes whose arguments numba's own template
# refuses (``np.complex64(v)`` of a vector): typed with the class's type as the first argument,
# lowered as the call of the class (``named_type("NumberClass")``'s rules)
NUMBER_CLASS_CALL = "number class call"


class named_type(str):
    """The name of a type class in ``cumlir.types`` used as an operation's key: a call of
    ``np.float32(x)`` resolves to ``NumberClass``, which cannot be named without numba."""


def resolve_key(key: Any) -> Any:
    """An operation's key as numba's typing gives it."""
    return getattr(_types, key) if isinstance(key, named_type) else key


def resolve(pattern: Pattern) -> Any:
    """A type pattern as the registries match it: a name in ``cumlir.types`` ("*name" for
    any further arguments of that type), or a numba type or type class as it is."""
    if not isinstance(pattern, str):
        return pattern
    if pattern.startswith("*"):
        return _types.VarArg(resolve(pattern[1:]))
    return getattr(_types, pattern)
