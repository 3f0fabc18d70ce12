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
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from mlir import ir
from mlir.dialects import llvm
from numba.core import (
    targetconfig,  # noqa: F401  (numba's ConfigStack of the options being compiled with)
    types,
)
from numba.core.errors import ForceLiteralArg  # noqa: F401

# typing helpers numba.extending users import: asking for literal arguments, Python types as numba's
from numba.core.extending import BoundLiteralArgs, SentryLiteralArgs, sentry_literal_args  # noqa: F401
from numba.core.extending import is_jitted as numba_is_jitted
from numba.core.extending import overload as numba_overload
from numba.core.extending import overload_attribute as numba_overload_attribute
from numba.core.extending import overload_method as numba_overload_method
from numba.core.extending import type_callable as numba_type_callable
from numba.core.types.containers import _StarArgTupleMixin
from numba.core.typing.asnumbatype import as_numba_type  # noqa: F401
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate, signature  # noqa: F401
from numba.core.typing.templates import make_overload_attribute_template as numba_make_overload_attribute_template
from numba.core.typing.templates import make_overload_template as numba_make_overload_template

# typeof of Python values (globals a kernel reads): numba's, which cumlir's typing asks
from numba.core.typing.typeof import typeof_impl  # noqa: F401

from . import launch_needs as _launch_needs
from . import models  # noqa: F401  (``from cumlir.extending import models``, as numba.extending users write)
from . import operations as _operations
from . import refused as _refused
from .codegen.nvvm.op_tables import declare as nvvm_ops  # what an extension's NVVM ops print as for libNVVM
from .dispatcher import Dispatcher
from .lowering.extension_registry import MLIRLoweringRegistry, _reported, lowering_registry
from .models import default_manager, register_model  # noqa: F401
from .typing import context as _typing_context
from .typing.extension_registry import TypingRegistry, typing_guard, typing_registry
from .typing.target import TARGET_NAME

if TYPE_CHECKING:
    from numba.core.decorators import _JITOptions
    from numba.core.extending import _Inline
    from numba.core.typing.templates import Signature

    from .operations._support.builder import CallRule, Lower, Value

lower_cast = lowering_registry.lower_cast
lower_constant = lowering_registry.lower_constant
lower_getattr = lowering_registry.lower_getattr
lower_getattr_generic = lowering_registry.lower_getattr_generic
lower_setattr = lowering_registry.lower_setattr
lower_setattr_generic = lowering_registry.lower_setattr_generic
lower = lowering_registry.lower
lower_builtin = lowering_registry.lower  # numba-cuda-mlir's name for it

# Every instance of these registers into cumlir's one set of tables, at once: a library may
# make its own (``registry = Registry()``), as with numba-cuda-mlir, and needs no installing.
Registry = TypingRegistry
LoweringRegistry = MLIRLoweringRegistry

mlir_data_manager = default_manager  # the data models cumlir compiles with

_F = TypeVar("_F", bound=Callable[..., Any])


def __getattr__(name: str) -> Any:
    # numba-cuda-mlir's names cumlir refuses raise NotImplementedError saying why
    if name in _refused.EXTENDING:
        raise _refused.refusal(name, "extending")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_refused.EXTENDING])


@runtime_checkable
class ArgumentHandler(Protocol):
    """What ``cuda.jit(extensions=[...])`` takes: ``prepare_args(ty, val, stream=, retr=)``
    gives a launch argument (its compiled numba type *ty*, its value *val*) as it is to be
    passed, ``(ty, val)`` with the same type, and may append to *retr* functions to call
    after the launch. Handlers are asked from the last to the first."""

    def prepare_args(
        self, ty: types.Type, val: Any, stream: Any = None, retr: list[Any] | None = None
    ) -> tuple[types.Type, Any]: ...


def register(dmm: Any, type_class: type[types.Type]) -> Callable[[type], type]:
    """``@register(mlir_data_manager, MyType) class MyModel(...)``: numba's data model
    registration, with the manager named (``register_model`` is it for cumlir's)."""

    def decorate(model_class: type) -> type:
        dmm.register(type_class, model_class)
        return model_class

    return decorate


def refresh_registries(*, typing: bool = True, target: bool = True, include_uninitialized_cuda: bool = True) -> None:
    """Make the typing context see declarations registered since it was built. cumlir also
    does this itself before each compilation; lowering rules are in effect once registered,
    so *target* and *include_uninitialized_cuda* have nothing left to do."""
    for name, flag in (
        ("typing", typing),
        ("target", target),
        ("include_uninitialized_cuda", include_uninitialized_cuda),
    ):
        if not isinstance(flag, bool):
            raise TypeError(f"refresh_registries({name}=...) must be True or False, got {flag!r}")
    if typing:
        _typing_context.refresh()


def canonical_call_key(
    impl_func: Callable[..., Any], arg_types: tuple[Any, ...], kw_types: dict[str, Any]
) -> tuple[Any, ...] | None:
    """The argument types of a call of *impl_func* in the order of its parameters, so that
    calls spelling them differently (keywords in another order, a default left out, ``*args``
    collected or spread) give the same key; None when they do not fit its parameters.
    An omitted default is ``types.Omitted(default)``."""
    try:
        parameters = inspect.signature(impl_func).parameters
        bound = inspect.signature(impl_func).bind(*arg_types, **kw_types)  # numba types stand in for values
    except (TypeError, ValueError):
        return None
    key: list[Any] = []
    for name, parameter in parameters.items():
        if parameter.kind is parameter.VAR_POSITIONAL:
            key.extend(_spread(bound.arguments.get(name, ())))
        elif parameter.kind is parameter.VAR_KEYWORD:
            key.extend(bound.arguments.get(name, {}).values())
        elif name not in bound.arguments:
            key.append(types.Omitted(parameter.default))
        else:
            key.append(bound.arguments[name])
    return tuple(key)


def _spread(bundle: Any) -> tuple[Any, ...]:
    # numba may hand a *args bundle over as one StarArgTuple type instead of its members
    if isinstance(bundle, tuple) and len(bundle) == 1 and isinstance(bundle[0], _StarArgTupleMixin):
        return tuple(bundle[0].types)  # type: ignore[attr-defined]  # a StarArgTuple
    return tuple(bundle)


# ---- what a kernel's code needs of its launches ----------------------------------------------


def require_launch_config(state: Any = None) -> dict[str, Any]:
    """From an extension's typing or lowering: the launch configuration the kernel being
    compiled is launched with, ``{"grid": (x, y, z), "block": (x, y, z), "sharedmem": bytes,
    "cluster": None}``. The kernel's code may then depend on it: each other configuration
    gets a kernel compiled for it. RuntimeError where the kernel compiles without a launch
    (``compile_ptx``, ``kernel.compile``). *state* (numba-cuda-mlir's compiler state) is
    accepted and not needed: the kernel is the one compiling on this thread."""
    return _launch_needs.require_launch_config()


def set_required_dynamic_shared_memory(*args: Any) -> None:
    """``set_required_dynamic_shared_memory([state,] size_in_bytes)`` from an extension's
    typing or lowering: every launch of the kernel being compiled gets at least
    *size_in_bytes* of dynamic shared memory (the largest size asked for; a launch asking
    more keeps its own). *state* as in require_launch_config."""
    if len(args) not in (1, 2):
        raise TypeError("set_required_dynamic_shared_memory([state,] size_in_bytes) takes 1 or 2 arguments")
    _launch_needs.require_dynamic_shared_memory(args[-1])


def _take_registries(kwargs: dict[str, Any], decorator: str) -> None:
    """Accept numba-cuda-mlir's ``typing_registry=``/``lowering_registry=`` keywords: every
    cumlir registry feeds the same tables, so any instance of them will do."""
    for keyword, kind in (("typing_registry", TypingRegistry), ("lowering_registry", MLIRLoweringRegistry)):
        given = kwargs.pop(keyword, None)
        if given is not None and not isinstance(given, kind):
            raise TypeError(
                f"{decorator}: {keyword}= must be a cumlir.extending.{kind.__name__} instance, got {type(given).__name__}"
            )


def _inlined_by_llvm(jit_options: Any, inline: Any) -> tuple[dict[str, Any], str]:
    """numba's ``inline="always"`` inlines the implementation's Numba IR; cumlir compiles the
    implementation as a device function whole, marked always-inline for LLVM instead."""
    jit_options = dict(jit_options or {})
    if inline == "always":
        jit_options.setdefault("inline", "always")
    return jit_options, "never"


def _aim_at_cumlir(kwargs: dict[str, Any]) -> None:
    """Templates apply to cumlir's kernels unless another target is named; ``target="cuda"``,
    as code written for numba-cuda-mlir's ``extending`` spells it, names cumlir's own."""
    if kwargs.get("target") in (None, "cuda", "CUDA"):
        kwargs["target"] = TARGET_NAME


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
        def guarded(context: _typing_context.CUDATypingContext) -> Any:
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
    _take_registries(kwargs, "overload")
    _aim_at_cumlir(kwargs)

    options, numba_inline = _inlined_by_llvm(jit_options, inline)

    def decorate(overload_func: _F) -> _F:
        numba_overload(func, options, strict, numba_inline, prefer_literal, **kwargs)(  # type: ignore[arg-type]
            typing_guard(overload_func)
        )
        return overload_func

    return decorate


def overload_method(typ: types.Type | type[types.Type], attr: str, **kwargs: Any) -> Callable[[_F], _F]:
    """Numba's ``@overload_method``: a method *attr* on values of *typ*."""
    _take_registries(kwargs, "overload_method")
    _aim_at_cumlir(kwargs)
    kwargs["jit_options"], kwargs["inline"] = _inlined_by_llvm(kwargs.get("jit_options"), kwargs.get("inline"))

    def decorate(overload_func: _F) -> _F:
        guarded = typing_guard(overload_func)
        numba_overload_method(typ, attr, **kwargs)(guarded)
        # numba types the method as a call of the (guarded) overload function on (receiver, *args)
        _operations.declare((typ, attr)).lower(typ, types.VarArg(types.Any))(_call_overloaded(guarded))
        return overload_func

    return decorate


def overload_attribute(typ: types.Type | type[types.Type], attr: str, **kwargs: Any) -> Callable[[_F], _F]:
    """Numba's ``@overload_attribute``: a read-only attribute *attr* on values of *typ*."""
    _take_registries(kwargs, "overload_attribute")
    _aim_at_cumlir(kwargs)
    kwargs["jit_options"], kwargs["inline"] = _inlined_by_llvm(kwargs.get("jit_options"), kwargs.get("inline"))

    def decorate(overload_func: _F) -> _F:
        guarded = typing_guard(overload_func)
        numba_overload_attribute(typ, attr, **kwargs)(guarded)

        @_operations.attribute(typ, attr).lower
        @_reported(overload_func)
        def getattr_rule(lower: Lower, ty: types.Type, value: Value, attr: str) -> Value:
            return lower.call_function(guarded, (ty,), [value])[0]

        return overload_func

    return decorate


def overload_classmethod(typ: type[types.Type], attr: str, **kwargs: Any) -> Callable[[_F], _F]:
    """Numba's ``@overload_classmethod``: a method *attr* called on the type class *typ*
    itself (``MyType.make(n)`` in a kernel); the implementation receives the class first."""
    # numba types a type class read as a global as TypeRef of the class (its stubs expect instances)
    return overload_method(types.TypeRef(typ), attr, **kwargs)  # type: ignore[type-var]


def make_overload_template(
    func: Callable[..., Any],
    overload_func: Callable[..., Any],
    jit_options: Any,
    strict: bool,
    inline: Any,
    prefer_literal: bool = False,
    **kwargs: Any,
) -> type:
    """Numba's template class of ``@overload(func)`` bound to cumlir (register it with
    ``typing_registry.register`` and ``register_global(func, types.Function(template))``)."""
    _aim_at_cumlir(kwargs)
    guarded = typing_guard(overload_func)
    return numba_make_overload_template(func, guarded, dict(jit_options), strict, inline, prefer_literal, **kwargs)


def make_overload_attribute_template(
    typ: Any,
    attr: str,
    overload_func: Callable[..., Any],
    inline: Any = "never",
    prefer_literal: bool = False,
    **kwargs: Any,
) -> type:
    """Numba's template class typing the attribute (or, with its method base, the method)
    *attr* of *typ* by *overload_func*, bound to cumlir. It types only: ``overload_attribute``
    and ``overload_method`` also register the lowering, and are what to use."""
    _aim_at_cumlir(kwargs)
    guarded = typing_guard(overload_func)
    return numba_make_overload_attribute_template(typ, attr, guarded, inline, prefer_literal, **kwargs)


def _call_overloaded(overload_func: Callable[..., Any]) -> CallRule:
    """A call rule lowering to the device function numba's typing chose for *overload_func*."""

    @_reported(overload_func)
    def rule(lower: Lower, sig: Signature, args: Sequence[Value]) -> Value:
        value, result_type = lower.call_function(overload_func, sig.args, args)
        return lower.cast(value, result_type, sig.return_type)

    return rule


def register_jitable(*args: Any, **kwargs: Any) -> Any:  # the function, or a decorator giving it back
    """Make a Python function callable from kernels (compiled as a device function),
    while it stays an ordinary Python function outside them."""

    def wrap(fn: _F) -> _F:
        inline = kwargs.pop("inline", "never")

        @overload(fn, jit_options=kwargs, inline=inline, strict=False)  # type: ignore[arg-type]  # numba's options
        def implementation(*a: Any, **k: Any) -> _F:
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

        def generic(
            template: AbstractTemplate, args: tuple[types.Type, ...], kws: dict[str, types.Type]
        ) -> Signature | None:
            return intrinsic._type_call(template.context, args, kws)

        template = type(
            f"Intrinsic_{definition.__name__}",
            (AbstractTemplate,),
            {"key": self, "generic": generic, "prefer_literal": prefer_literal},
        )
        typing_registry.register_global(self, types.Function(template))
        _operations.declare(self).lower(types.VarArg(types.Any))(self._lower_call)

    def _type_call(
        self,
        typing_context: _typing_context.CUDATypingContext,
        args: tuple[types.Type, ...],
        kws: dict[str, types.Type],
    ) -> Signature | None:
        if kws:
            return None
        result = typing_guard(self._definition)(typing_context, *args)
        if result is None:
            return None
        sig, codegen = result
        self._codegens[tuple(sig.args)] = codegen
        return sig

    def _lower_call(self, lower: Lower, sig: Signature, args: Sequence[Value]) -> Value:
        codegen = self._codegens[tuple(sig.args)]
        return _reported(codegen)(_run_codegen)(lower, codegen, sig, args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.__name__} is an intrinsic: it can only be called from a kernel")

    def __repr__(self) -> str:
        return f"<intrinsic {self.__name__}>"


def _run_codegen(lower: Lower, codegen: Callable[..., Any], sig: Signature, args: Sequence[Value]) -> Value:
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

    @typing_registry.register_attr
    class StructAttribute(AttributeTemplate):
        key = typeclass

        def generic_resolve(self, typ: types.Type, attr: str) -> types.Type | None:  # type: ignore[override,return]
            if attr == python_attr:
                return default_manager.lookup(typ).get_member_type(struct_attr)  # type: ignore[attr-defined]

    @_operations.attribute(typeclass, python_attr).lower
    def struct_getattr(lower: Lower, typ: types.Type, value: Value, attr: str) -> Value:
        model = lower.dmm.lookup(typ)
        member = model.get_member_type(struct_attr)
        position = ir.DenseI64ArrayAttr.get([model.get_field_position(struct_attr)])
        return llvm.extractvalue(lower.get_mlir_type(member), value, position)
