"""The extension API: teach cumlir new types, functions, methods and attributes.

Two tiers share one set of registries (docs/extending.md):

* low level: typing templates on ``typing_registry``, data models in ``cumlir.models``,
  lowering callbacks emitting MLIR on ``lowering_registry``;
* high level: ``overload``, ``overload_method``, ``overload_attribute`` and
  ``register_jitable`` (implementations in Python, compiled like device functions) and
  ``intrinsic`` (typing in Python, code generation in MLIR).

Numba's own decorators keep working when given ``target="cumlir"``; these default to it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from numba.core import types
from numba.core.errors import ForceLiteralArg  # noqa: F401

# typing helpers numba.extending users import: asking for literal arguments, Python types as numba's
from numba.core.extending import BoundLiteralArgs, SentryLiteralArgs, sentry_literal_args  # noqa: F401
from numba.core.extending import is_jitted as numba_is_jitted
from numba.core.extending import overload as numba_overload
from numba.core.extending import overload_attribute as numba_overload_attribute
from numba.core.extending import overload_method as numba_overload_method
from numba.core.extending import type_callable as numba_type_callable
from numba.core.typing.asnumbatype import as_numba_type  # noqa: F401
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate, signature  # noqa: F401

from . import models  # noqa: F401  (``from cumlir.extending import models``, as numba.extending users write)
from . import operations as _operations
from .dispatcher import Dispatcher
from .lowering.extension_registry import _reported, lowering_registry
from .models import register_model  # noqa: F401
from .typing import context as _typing_context
from .typing.extension_registry import typing_guard, typing_registry
from .typing.target import TARGET_NAME

if TYPE_CHECKING:
    from numba.core.decorators import _JITOptions
    from numba.core.extending import _Inline

lower_cast = lowering_registry.lower_cast
lower_constant = lowering_registry.lower_constant
lower_getattr = lowering_registry.lower_getattr
lower_getattr_generic = lowering_registry.lower_getattr_generic
lower_setattr = lowering_registry.lower_setattr
lower_setattr_generic = lowering_registry.lower_setattr_generic
lower = lowering_registry.lower

_F = TypeVar("_F", bound=Callable[..., Any])


def refresh_registries(*, typing: bool = True, target: bool = True, include_uninitialized_cuda: bool = True) -> None:
    """Make declarations registered since the last compilation visible now (numba-cuda-mlir's
    name). cumlir's typing context notices new declarations by itself and lowering rules are
    looked up when used, so libraries that call this after registering lose nothing by it;
    *target* and *include_uninitialized_cuda* are accepted for their signature's sake."""
    for name, flag in (
        ("typing", typing),
        ("target", target),
        ("include_uninitialized_cuda", include_uninitialized_cuda),
    ):
        if not isinstance(flag, bool):
            raise TypeError(f"refresh_registries({name}=...) must be True or False, got {flag!r}")
    if typing:
        _typing_context.refresh()


def is_jitted(function: Callable[..., Any]) -> bool:
    """Whether *function* is compiled by cumlir (``@cuda.jit``) or by numba (``@njit``): numba's
    ``is_jitted``, knowing cumlir's dispatchers too."""
    return isinstance(function, Dispatcher) or numba_is_jitted(function)


# ---- typing -------------------------------------------------------------------------


def type_callable(func: Callable[..., Any] | str) -> Callable[[_F], _F]:
    """Numba's ``type_callable``: ``typing_func(context)`` returns a typer, called with the
    argument types, returning the result type or None."""

    def decorate(typing_func: _F) -> _F:
        @functools.wraps(typing_func)
        def guarded(context):
            typer = typing_guard(typing_func)(context)
            return typing_guard(typing_func, typer) if callable(typer) else typer

        numba_type_callable(func)(guarded)
        return typing_func

    return decorate


# ---- high level: implementations written in Python -----------------------------------


def overload(
    func: Callable[..., Any],
    jit_options: _JITOptions | None = None,
    strict: bool = True,
    inline: _Inline = "never",
    prefer_literal: bool = False,
    **kwargs: Any,
) -> Callable[[_F], _F]:
    """Numba's ``@overload``: the decorated function receives the argument types and
    returns a Python implementation, compiled by cumlir as a device function."""
    kwargs.setdefault("target", TARGET_NAME)

    def decorate(overload_func: _F) -> _F:
        numba_overload(func, jit_options or {}, strict, inline, prefer_literal, **kwargs)(typing_guard(overload_func))
        return overload_func

    return decorate


def overload_method(typ: types.Type | type[types.Type], attr: str, **kwargs: Any) -> Callable[[_F], _F]:
    """Numba's ``@overload_method``: a method *attr* on values of *typ*."""
    kwargs.setdefault("target", TARGET_NAME)

    def decorate(overload_func: _F) -> _F:
        guarded = typing_guard(overload_func)
        numba_overload_method(typ, attr, **kwargs)(guarded)
        # numba types the method as a call of the (guarded) overload function on (receiver, *args)
        _operations.declare((typ, attr)).lower(typ, types.VarArg(types.Any))(_call_overloaded(guarded))
        return overload_func

    return decorate


def overload_attribute(typ: types.Type | type[types.Type], attr: str, **kwargs: Any) -> Callable[[_F], _F]:
    """Numba's ``@overload_attribute``: a read-only attribute *attr* on values of *typ*."""
    kwargs.setdefault("target", TARGET_NAME)

    def decorate(overload_func: _F) -> _F:
        guarded = typing_guard(overload_func)
        numba_overload_attribute(typ, attr, **kwargs)(guarded)

        @_operations.attribute(typ, attr).lower
        @_reported(overload_func)
        def getattr_rule(lower, ty, value, attr):
            return lower.call_function(guarded, (ty,), [value])[0]

        return overload_func

    return decorate


def _call_overloaded(overload_func):
    """A call rule lowering to the device function numba's typing chose for *overload_func*."""

    @_reported(overload_func)
    def rule(lower, sig, args):
        value, result_type = lower.call_function(overload_func, sig.args, args)
        return lower.cast(value, result_type, sig.return_type)

    return rule


def register_jitable(*args: Any, **kwargs: Any) -> Any:  # the function, or a decorator giving it back
    """Make a Python function callable from kernels (compiled as a device function),
    while it stays an ordinary Python function outside them."""

    def wrap(fn):
        inline = kwargs.pop("inline", "never")

        @overload(fn, jit_options=kwargs, inline=inline, strict=False)
        def implementation(*a, **k):
            return fn

        return fn

    if kwargs or not args:
        return wrap
    return wrap(*args)


# ---- high level: typing in Python, code generation in MLIR ----------------------------


class Intrinsic:
    """What ``@intrinsic`` returns: callable from kernels only.

    The definition is called at typing time with the typing context and the argument
    types; it returns ``(signature, codegen)`` or None. ``codegen(context, builder,
    sig, args)`` receives the MLIR builder and the arguments' MLIR values (cast to
    ``sig.args``) and returns the result's MLIR value.
    """

    __name__: str  # the definition's (functools.update_wrapper)

    def __init__(self, definition: Callable[..., Any], prefer_literal: bool = False) -> None:
        functools.update_wrapper(self, definition)
        self._definition = definition
        self._codegens: dict[tuple[types.Type, ...], Callable[..., Any]] = {}
        intrinsic = self

        def generic(template, args, kws):
            return intrinsic._type_call(template.context, args, kws)

        template = type(
            f"Intrinsic_{definition.__name__}",
            (AbstractTemplate,),
            {"key": self, "generic": generic, "prefer_literal": prefer_literal},
        )
        typing_registry.register_global(self, types.Function(template))
        _operations.declare(self).lower(types.VarArg(types.Any))(self._lower_call)

    def _type_call(self, typing_context, args, kws):
        if kws:
            return None
        result = typing_guard(self._definition)(typing_context, *args)
        if result is None:
            return None
        sig, codegen = result
        self._codegens[tuple(sig.args)] = codegen
        return sig

    def _lower_call(self, lower, sig, args):
        codegen = self._codegens[tuple(sig.args)]
        return _reported(codegen)(_run_codegen)(lower, codegen, sig, args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.__name__} is an intrinsic: it can only be called from a kernel")

    def __repr__(self) -> str:
        return f"<intrinsic {self.__name__}>"


def _run_codegen(lower, codegen, sig, args):
    return codegen(lower.target_context, lower, sig, list(args))


def intrinsic(*args: Any, **kwargs: Any) -> Intrinsic | Callable[[Callable[..., Any]], Intrinsic]:
    """``@intrinsic`` or ``@intrinsic(prefer_literal=True)``: see Intrinsic."""
    if args and callable(args[0]) and not kwargs:
        return Intrinsic(args[0])

    def decorate(definition: Callable[..., Any]) -> Intrinsic:
        return Intrinsic(definition, **kwargs)

    return decorate


# ---- structs with named fields ---------------------------------------------------------


def make_attribute_wrapper(typeclass: type[types.Type], struct_attr: str, python_attr: str) -> None:
    """Expose the member *struct_attr* of a StructModel type as the read-only attribute
    *python_attr* (Numba's helper of the same name)."""
    from mlir import ir
    from mlir.dialects import llvm

    from .models import default_manager

    @typing_registry.register_attr
    class StructAttribute(AttributeTemplate):
        key = typeclass

        def generic_resolve(self, typ, attr):
            if attr == python_attr:
                return default_manager.lookup(typ).get_member_type(struct_attr)

    @_operations.attribute(typeclass, python_attr).lower
    def struct_getattr(lower, typ, value, attr):
        model = lower.dmm.lookup(typ)
        member = model.get_member_type(struct_attr)
        position = ir.DenseI64ArrayAttr.get([model.get_field_position(struct_attr)])
        return llvm.extractvalue(lower.get_mlir_type(member), value, position)
