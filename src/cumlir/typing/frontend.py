"""Python functions -> typed Numba IR, under cumlir's typing context.

``type_function`` runs the frontend passes (frontend_passes.py) on one function for
one tuple of argument types. Device functions are typed on demand while their callers
are: a ``DeviceDispatcher`` implements numba's dispatcher protocol
(``get_call_template``, ``get_overload``, ``is_compiling`` ...) and keeps one
``DeviceFunction`` per argument-type tuple, the typed IR that lowering adds to every
module calling it. ``@cuda.jit(device=True)``, the implementations of ``@overload``
(numba asks the target's jit registry for them, registered here), numba's CPU
dispatchers (``@numba.njit`` functions) called from device code and the Python
helpers of lowering rules are all DeviceDispatchers.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import FunctionType
from typing import TYPE_CHECKING, Any, NoReturn

from numba.core import (
    bytecode,
    compiler,
    errors,
    target_extension,
    typeinfer,
    types,
    utils,
)
from numba.core import ir as numba_ir
from numba.core import typing as numba_typing
from numba.core.typing.templates import Signature, fold_arguments, signature

from ..frontend_lock import FRONTEND_LOCK
from ..options import Options
from . import consteval, first_lines, target_options
from .context import CUDATypingContext, typing_context
from .frontend_passes import STAGES
from .nesting import nested_typing
from .target import CumlirTarget, TargetInfo, target_override

if TYPE_CHECKING:
    from ..linkable import LinkItem


@dataclass
class TypedFunction:
    """The frontend's result: a function's Numba IR with a type for every variable."""

    pyfunc: FunctionType
    func_ir: numba_ir.FunctionIR
    args: tuple[types.Type, ...]
    return_type: types.Type
    typemap: dict[str, types.Type]
    calltypes: dict[numba_ir.Inst, Signature]
    name: str = field(default="")
    # whether consteval read current_target_options() (typing/target_options.py), and the
    # chip it was typed for: a function typed for another chip's options is typed again
    target_dependent: bool = False
    target_chip: tuple[int, int] | None = None
    target: Any = None  # what it was typed under (target_options._Typing), for its lowering

    @property
    def signature(self) -> Signature:
        return signature(self.return_type, *self.args)

    def dump(self) -> str:
        """The typed IR as text: each statement, then each variable's type."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.func_ir.dump()
        lines = [out.getvalue().rstrip(), "", "types:"]
        for name in sorted(self.typemap):
            lines.append(f"  {name}: {self.typemap[name]}")
        lines.append(f"  return: {self.return_type}")
        return "\n".join(lines) + "\n"


def _flags() -> compiler.Flags:
    flags = compiler.Flags()
    # numba's Flags are descriptors its stubs do not describe
    flags.no_cpython_wrapper = True  # type: ignore[misc,assignment]
    flags.no_cfunc_wrapper = True  # type: ignore[misc,assignment]
    flags.nrt = False  # type: ignore[misc,assignment]
    flags.error_model = "numpy"  # type: ignore[misc,assignment]
    return flags


def type_function(
    pyfunc: Callable[..., Any],
    argtypes: Iterable[types.Type],
    return_type: types.Type | None = None,
    options: Options | None = None,
    chip: tuple[int, int] | None = None,
) -> TypedFunction:
    """Run numba's frontend on *pyfunc* for *argtypes*; raise numba's TypingError on failure.
    *options* and *chip* are the compilation's, which consteval may read; None: those of the
    typing under way (a device function's are its kernel's)."""
    with FRONTEND_LOCK, target_options.compiling(options, chip) as typing:
        try:
            typed = _type_function(pyfunc, argtypes, return_type)
        except errors.TypingError as e:
            if typing is not None and typing.consulted and typing.chip is None and typing.parent is None:
                raise target_options.ChipNeeded(f"{e}\n(typed before its chip was known)") from e
            raise
        if typing is not None:
            typed.target_dependent, typed.target_chip, typed.target = typing.consulted, typing.chip, typing
        return typed


def _type_function(
    pyfunc: Any,  # a Python function (consteval may give another in its place)
    argtypes: Iterable[types.Type],
    return_type: types.Type | None,
) -> TypedFunction:
    _refuse_generators(pyfunc)
    argtypes = tuple(argtypes)
    # what its consteval forms make of it for these argument types, if it has any
    pyfunc = consteval.expanded(pyfunc, argtypes)
    state = compiler.StateDict()
    state.func_id = bytecode.FunctionIdentity.from_function(pyfunc)
    state.typingctx = typing_context()
    state.targetctx = TargetInfo()
    state.args = tuple(argtypes)
    state.return_type = return_type
    state.flags = _flags()
    state.locals = {}
    state.metadata = {}
    state.func_ir = None
    state.lifted = ()
    state.lifted_from = None
    state.typemap = None
    state.calltypes = None
    state.library = None
    state.status = compiler._CompileStatus(can_fallback=False)
    with target_override():
        try:
            for stage in STAGES:
                stage(state)
        except errors.TypingError as e:
            first_lines.clarify(e, state.typingctx)
            raise
    return TypedFunction(
        pyfunc=pyfunc,
        func_ir=state.func_ir,
        args=state.args,
        return_type=state.return_type,
        typemap=state.typemap,
        calltypes=state.calltypes,
        name=pyfunc.__name__,
    )


def _refuse_generators(pyfunc: Callable[..., Any]) -> None:
    # numba would type a generator and leave a generator object no device model holds
    if inspect.isgeneratorfunction(pyfunc):
        code = pyfunc.__code__
        raise errors.UnsupportedError(
            f"{pyfunc.__name__} is a generator (it uses yield): generators are not supported in device code",
            numba_ir.Loc(code.co_filename, code.co_firstlineno),
        )


class DeviceFunction:
    """A device function typed for one signature; lowered into each module that calls it."""

    def __init__(self, dispatcher: DeviceDispatcher, typed: TypedFunction) -> None:
        self.dispatcher = dispatcher
        self.typed = typed
        self.symbol_hint = dispatcher.py_func.__name__
        self.typing = target_options.current()  # the compilation it was typed in

    @property
    def signature(self) -> Signature:
        return self.typed.signature

    @property
    def link(self) -> tuple[LinkItem, ...]:
        """The link items of the function's ``link=`` option."""
        return self.dispatcher.options.link

    def __repr__(self) -> str:
        return f"<device function {self.symbol_hint}{self.signature}>"


@dataclass(frozen=True)
class _FunctionName:
    modname: str
    qualname: str
    uid: int


class _NamedOverload:
    """What numba's recursion typing reads of a compiled overload: its name."""

    def __init__(self, pyfunc: Callable[..., Any], device_function: DeviceFunction) -> None:
        self.fndesc = _FunctionName(pyfunc.__module__, pyfunc.__qualname__, id(device_function))


class DeviceDispatcher:
    """Types *pyfunc* as a device function for each argument-type tuple it is called with;
    with *declared* signatures, only for those (callers' arguments are converted to the best)."""

    def __init__(
        self, pyfunc: Callable[..., Any], options: Options | None = None, declared: Iterable[Signature] | None = None
    ) -> None:
        self.py_func = pyfunc
        self.options = options or Options()
        self._declared = tuple(declared) if declared else ()
        self._device_functions: dict[tuple[types.Type, ...], DeviceFunction] = {}  # argument types -> DeviceFunction
        # (argument types, declared result type) -> DeviceFunction
        self._with_result: dict[tuple[tuple[types.Type, ...], types.Type | None], DeviceFunction] = {}
        self._typing: set[tuple[types.Type, ...]] = set()  # argument types being typed now (to detect recursion)
        # (argument types, result type, compilation's options) -> DeviceFunction, for a function
        # whose consteval reads them (typing/target_options.py)
        self._per_target: dict[tuple[Any, ...], DeviceFunction] = {}

    def compile_device(self, argtypes: Iterable[types.Type], return_type: types.Type | None = None) -> DeviceFunction:
        """The DeviceFunction for *argtypes* (typed now unless it was before)."""
        argtypes = tuple(argtypes)
        if return_type is None:
            compiled = self._device_functions.get(argtypes)
        else:
            compiled = self._with_result.get((argtypes, return_type))
        if compiled is not None and not compiled.typed.target_dependent:  # typed before: no lock taken
            return compiled
        with FRONTEND_LOCK:
            return self._compile_device(argtypes, return_type)

    def _compile_device(self, argtypes: tuple[types.Type, ...], return_type: types.Type | None) -> DeviceFunction:
        if return_type is not None:  # a declared result type: typed on its own, kept apart
            compiled = self._with_result.get((argtypes, return_type))
            if compiled is None:
                compiled = DeviceFunction(self, self._type(argtypes, return_type))
                self._with_result[argtypes, return_type] = compiled
            return self._for_target(compiled, argtypes, return_type)
        compiled = self._device_functions.get(argtypes)
        if compiled is not None:
            return self._for_target(compiled, argtypes, None)
        if argtypes in self._typing:
            # numba types self-recursion through the call stack (types.RecursiveCall);
            # getting here means a recursion it cannot resolve
            raise errors.TypingError(f"cannot type the recursion of {self.py_func.__name__}{argtypes}")
        typed = self._type(argtypes)
        compiled = DeviceFunction(self, typed)
        self._device_functions[argtypes] = compiled
        return compiled

    def _for_target(
        self, compiled: DeviceFunction, argtypes: tuple[types.Type, ...], return_type: types.Type | None
    ) -> DeviceFunction:
        """*compiled*, or where its consteval read its compilation's options (typing/target_options.py),
        the function typed for the options of the compilation under way."""
        if not compiled.typed.target_dependent:
            return compiled
        target_options.consulted()  # the caller depends on them through it
        key = (argtypes, return_type, target_options.key())
        if compiled.typing is not None and compiled.typing.key() == key[2]:
            return compiled
        found = self._per_target.get(key)
        if found is None:
            found = self._per_target[key] = DeviceFunction(self, self._type(argtypes, return_type))
        return found

    def _type(self, argtypes: tuple[types.Type, ...], return_type: types.Type | None = None) -> TypedFunction:
        self._typing.add(argtypes)
        try:
            # numba's name for this function while the decorator has not bound it (self-recursion)
            with nested_typing(self.py_func.__name__), typeinfer.register_dispatcher(self):
                return type_function(self.py_func, argtypes, return_type)
        finally:
            self._typing.discard(argtypes)

    def __call__(self, *args: Any, **kws: Any) -> NoReturn:
        raise TypeError(f"the device function {self.py_func.__name__} can only be called from device code")

    # ---- numba's dispatcher protocol, used by type inference ------------------------------

    def fold_argument_types(
        self, args: Sequence[types.Type], kws: Mapping[str, types.Type], literal: bool = False
    ) -> tuple[inspect.Signature, tuple[types.Type, ...]]:
        """(Python signature, argument types with keywords and defaults folded in), literal
        types kept only where *literal*."""
        pysig = utils.pysignature(self.py_func)
        kinds = {p.kind for p in pysig.parameters.values()}
        if kinds & {inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD}:
            # numba binds arguments by position alone past *args: it would misplace them
            raise errors.TypingError(
                f"the device function {self.py_func.__qualname__} takes keyword-only parameters or **kwargs, "
                "which device functions do not (as in numba): give them before *args"
            )

        def normal(index: int, param: str, value: types.Type) -> types.Type:
            return value if literal else types.unliteral(value)

        def default(index: int, param: str, value: Any) -> types.Type:
            return types.Omitted(value)

        def stararg(index: int, param: str, values: tuple[types.Type, ...]) -> types.Type:
            return types.StarArgTuple(values)

        return pysig, tuple(fold_arguments(pysig, args, kws, normal, default, stararg))

    def get_call_template(
        self, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> tuple[type, inspect.Signature, tuple[types.Type, ...], dict[str, types.Type]]:
        with FRONTEND_LOCK:
            return self._call_template(args, kws)

    def _call_template(
        self, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> tuple[type, inspect.Signature, tuple[types.Type, ...], dict[str, types.Type]]:
        given = (args, kws)
        pysig, args = self.fold_argument_types(args, kws)
        if self._declared:
            self._compile_declared()
            signatures = list(self._declared)  # known before typing ends (recursion)
        else:
            args = self._compile_for_call(args, given)
            signatures = [d.signature for d in self._device_functions.values()]
        name = f"CallTemplate({self.py_func.__name__})"
        return numba_typing.make_concrete_template(name, self.py_func, signatures), pysig, args, {}

    def _compile_for_call(
        self,
        args: tuple[types.Type, ...],
        given: tuple[Sequence[types.Type], Mapping[str, types.Type]],
    ) -> tuple[types.Type, ...]:
        """Type the function for a call's argument types, as values of their types first;
        where that fails and the call passes literals (a shape, a count), for those literal
        values, as Numba-CUDA specialises on them: ``cuda.local.array(n, dtype)`` inside
        needs *n* known. Returns the argument types typed for."""
        try:
            self.compile_device(args)
            return args
        except errors.TypingError as e:
            _, literal = self.fold_argument_types(*given, literal=True)
            if literal == args:
                raise
            first = e
        try:
            self.compile_device(literal)
        except errors.TypingError as e:
            # typed for the constants, as Numba-CUDA types every call: its error leads (the
            # first may only say that a shape or a count is not a constant), the first's follows
            reason = str(first).strip().splitlines()[0] if str(first).strip() else type(first).__name__
            note = f"\n(typed for the types of its arguments alone, without their constant values: {reason})"
            e.args = (f"{e.args[0] if e.args else e}{note}", *e.args[1:])
            if hasattr(e, "msg"):
                e.msg = f"{e.msg}{note}"
            raise
        return literal

    def declare(self, compiled: DeviceFunction) -> None:
        """Make *compiled* (typed for a signature given at decoration) one of the signatures
        calls choose from, converting their arguments to it; calls of its argument types call it."""
        with FRONTEND_LOCK:
            self._device_functions[compiled.signature.args] = compiled
            if compiled.signature not in self._declared:
                self._declared += (compiled.signature,)

    def _compile_declared(self) -> None:
        for sig in self._declared:
            if sig.args not in self._device_functions and sig.args not in self._typing:
                self._device_functions[sig.args] = DeviceFunction(self, self._type(sig.args, sig.return_type))

    def get_overload(self, argtypes: Iterable[types.Type], return_type: types.Type | None = None) -> DeviceFunction:
        """The DeviceFunction a call typed (argtypes) -> return_type calls; a function compiled
        with a declared result type calls itself through this, before it is cached."""
        compiled = self._device_functions.get(tuple(argtypes))
        if compiled is None or return_type is not None and compiled.signature.return_type != return_type:
            compiled = self._with_result.get((tuple(argtypes), return_type), compiled)
        if compiled is None:
            raise errors.TypingError(f"{self.py_func.__name__}{tuple(argtypes)} was not typed")
        if compiled.typed.target_dependent:  # the one typed for the compilation under way
            key = target_options.key()
            declared = return_type if (tuple(argtypes), return_type) in self._with_result else None
            if compiled.typing is None or compiled.typing.key() != key:
                compiled = self._per_target.get((tuple(argtypes), declared, key), compiled)
        return compiled

    @property
    def overloads(self) -> dict[tuple[types.Type, ...], _NamedOverload]:
        """numba's typing of a recursive call made with other argument types than the call
        being typed (f(int32) calls g calls f(int64)) reads ``overloads[args].fndesc`` to name
        the callee; lowering finds it with get_overload."""
        return {args: _NamedOverload(self.py_func, f) for args, f in self._device_functions.items()}

    @property
    def _compiler(self) -> NoReturn:
        # numba's overload templates read this only to inline the implementation's Numba IR
        raise errors.TypingError(
            f"{self.py_func.__name__}: inline='always' on @overload or @register_jitable (numba's inlining "
            "of Numba IR) is not supported by cumlir; leave inline out: device functions are inlined by LLVM"
        )

    @property
    def is_compiling(self) -> bool:
        """Whether this function is being typed now (numba asks, to detect recursion)."""
        return bool(self._typing)

    @property
    def nopython_signatures(self) -> list[Signature]:
        return [d.signature for d in self._device_functions.values()]

    @property
    def _numba_type_(self) -> types.Dispatcher:
        return types.Dispatcher(self)  # type: ignore[arg-type]  # numba's dispatcher protocol, not its class


def _jit_for_overloads(*args: Any, **options: Any) -> DeviceDispatcher | Callable[..., Any]:
    """numba compiles ``@overload`` implementations with the target's jit: device functions here,
    keeping the inlining and fastmath options (numba's others, such as no_cpython_wrapper, mean
    nothing to them)."""
    if args and callable(args[0]):
        return DeviceDispatcher(args[0], _device_options(options))
    return functools.partial(_jit_for_overloads, **options)


target_extension.jit_registry[CumlirTarget] = _jit_for_overloads


# numba CPU dispatcher -> the DeviceDispatcher compiling its Python function for the device
_CPU_FUNCTIONS: weakref.WeakKeyDictionary[object, DeviceDispatcher] = weakref.WeakKeyDictionary()


def device_dispatcher_of(cpu_dispatcher: Any) -> DeviceDispatcher:  # numba's CPU Dispatcher
    """The device functions of an ``@numba.njit`` (or ``numba.jit``) function called from device
    code: its Python function compiled by cumlir, as Numba-CUDA does. Its inlining and fastmath
    options carry over; the others (``cache``, ``nogil``, ``parallel``, ``boundscheck``,
    ``error_model`` ...) are the CPU compiler's, and the kernel's options apply instead. A function whose compilation numba
    disabled (``njit`` given signatures) is compiled for exactly those signatures."""
    dispatcher = _CPU_FUNCTIONS.get(cpu_dispatcher)
    if dispatcher is None:
        options = _device_options(cpu_dispatcher.targetoptions)
        declared = None if cpu_dispatcher._can_compile else cpu_dispatcher.nopython_signatures
        dispatcher = DeviceDispatcher(cpu_dispatcher.py_func, options, declared)
        _CPU_FUNCTIONS[cpu_dispatcher] = dispatcher
    return dispatcher


def _device_options(targetoptions: Mapping[str, Any]) -> Options:
    inline = targetoptions.get("inline")  # numba's may also be a cost-model function
    return Options(
        inline="always" if inline == "always" else "never",
        forceinline=bool(targetoptions.get("forceinline", False)),
        fastmath=targetoptions.get("fastmath") or False,  # type: ignore[arg-type]  # Options takes True/False too
    )


# the Python implementations operations' rules compile (operations.Implementation, or a plain
# function given to lower.call_python) -> the DeviceDispatcher compiling each
_IMPLEMENTATIONS: dict[object, DeviceDispatcher] = {}


def implementation_dispatcher(implementation: Any) -> DeviceDispatcher:
    """The device-function dispatcher of a Python implementation used by operations' rules
    (``lower.call_python``); implementations calling one another are typed through it too."""
    if isinstance(implementation, DeviceDispatcher):
        return implementation
    dispatcher = _IMPLEMENTATIONS.get(implementation)
    if dispatcher is None:
        pyfunc = getattr(implementation, "pyfunc", implementation)
        dispatcher = _IMPLEMENTATIONS.setdefault(implementation, DeviceDispatcher(pyfunc))
    return dispatcher


CUDATypingContext.device_dispatcher_of = staticmethod(device_dispatcher_of)
CUDATypingContext.implementation_dispatcher = staticmethod(implementation_dispatcher)
