"""The typing context for the CUDA target: numba's builtins plus cumlir's declarations."""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import TYPE_CHECKING, Any

from numba.core import types
from numba.core.dispatcher import Dispatcher as CPUDispatcher
from numba.core.errors import TypingError
from numba.core.typeconv import Conversion
from numba.core.typing import enumdecl, npydecl
from numba.core.typing.context import BaseContext
from numba.core.typing.templates import signature
from numba.misc import literal  # noqa: F401  (registers literal_unroll's typing)

from .. import typerecords
from .. import types as cumlir_types
from ..frontend_lock import FRONTEND_LOCK
from ..operations import NUMBER_CLASS_CALL, Implementation, Stub, stub
from ..operations._support import subarrays
from . import captured_arrays, operations, plain_messages
from .operations import stub_type
from .registry import exclusive, registry
from .target import TARGET_NAME, target_override

if TYPE_CHECKING:
    from numba.core.typing.templates import Signature

_REAL = (types.Integer, types.Float, types.Boolean)
_KEPT_VALUES = (BuiltinFunctionType,)  # stateless values whose type never changes
# values typeof() cannot type (it fails, importing cffi and formatting a message): globals first
_GLOBALS_ONLY = (ModuleType, Stub, BuiltinFunctionType)

# Operators and functions whose typing depends only on the argument types: on scalars numba
# tries every template registered for them (NumPy's array ones too) each time, so their
# results are kept. ``bool`` is called on every branch's condition.
_PURE_OPERATORS = frozenset(
    [
        getattr(operator, name)
        for name in (
            "add sub mul truediv floordiv mod pow neg pos abs invert not_ lt le gt ge eq ne and_ or_ xor "
            "lshift rshift iadd isub imul itruediv ifloordiv imod ipow iand ior ixor ilshift irshift"
        ).split()
    ]
    + [bool, abs, max, min]
    + [value for value in vars(math).values() if isinstance(value, BuiltinFunctionType)]
)
# an array indexed by integers (an element read or written): typed by the array's type alone
_INDEXING = frozenset([operator.getitem, operator.setitem])


# the CUDA namespaces of other Numba-style compilers, read as cumlir's in kernels
_FOREIGN_CUDA = frozenset(["numba.cuda", "numba_cuda.numba.cuda"])
# numba's and Numba-CUDA's arrays over pointers (``numba.carray``, the functions of their
# numpy_support modules), read in kernels as the cuda namespace's stubs of the same names
_POINTER_ARRAY_MODULES = frozenset(
    ["numba.np.numpy_support", "numba.cuda.np.numpy_support", "numba_cuda.numba.cuda.np.numpy_support"]
)
_POINTER_ARRAYS = frozenset(["carray", "farray"])


class CUDATypingContext(BaseContext):
    # How a numba CPU dispatcher (an @njit function) called from device code becomes a device
    # function: set by typing.frontend, which holds the device dispatchers and builds on this module
    device_dispatcher_of: Callable[[CPUDispatcher], Any] | None = None
    # How an operations.Implementation called from another becomes a device function: the same
    implementation_dispatcher: Callable[[Implementation], Any] | None = None

    def init(self) -> None:
        self._named_stubs: set[Stub] = set()  # the called stubs whose types this context holds
        # (type, attribute) of the last attribute no template typed: a typing error about it
        # suggests the nearest known name (first_lines.py); typing holds FRONTEND_LOCK
        self.missed_attribute: tuple[types.Type, str] | None = None

    def resolve_getattr(self, typ: types.Type, attr: str) -> types.Type | None:
        found = super().resolve_getattr(typ, attr)
        if found is None:
            self.missed_attribute = (typ, attr)
        return found

    def resolve_setattr(self, target: types.Type, attr: str, value: types.Type) -> Signature | None:
        found = super().resolve_setattr(target, attr, value)
        if found is not None and isinstance(found.args[1], types.NestedArray):
            # a record's sub-array field assigned whole: the value keeps its type (an array
            # broadcast to the field, or a number), which numba would convert to the field's
            refused = subarrays.refusal(self, found.args[1], value)
            if refused is not None:
                raise TypingError(f"cannot assign {refused} (the field '{attr}')")
            return signature(types.void, target, value)
        return found

    def _lookup_global(self, gv: object) -> types.Type | None:
        found = super()._lookup_global(gv)
        if isinstance(gv, Stub) and gv not in self._named_stubs:
            found = self._name_stub(gv, found)
        return found

    def _name_stub(self, stub: Stub, registered: types.Type | None) -> types.Type | None:
        """A stub's first look-up here: the type its operation module declared, built now (see
        typing/operations.py). Registries installed later (extensions) look their keys up
        before adding to them, so the stub's own templates come first."""
        self._named_stubs.add(stub)
        ours = stub_type(stub)
        if ours is None or registered is not None:
            return registered
        self._insert_global(stub, ours)
        return ours

    def resolve_value_type(self, val: Any) -> types.Type | None:
        if isinstance(val, ModuleType) and val.__name__ in _FOREIGN_CUDA:
            # numba-cuda's namespace (``numba.cuda.grid(1)``, ``from numba import cuda``) in a
            # kernel cumlir compiles is cumlir's, imported by then (it is what compiles)
            val = sys.modules.get("cumlir.cuda", val)
        if type(val) is int and not -(1 << 63) <= val < 1 << 64:
            return cumlir_types.WideIntegerConstant(val)  # numba refuses it: see the type
        if isinstance(val, FunctionType) and _is_pointer_array(val):
            val = stub(val.__name__)
        if isinstance(val, CPUDispatcher) and self.device_dispatcher_of is not None:
            val = self.device_dispatcher_of(val)
        elif isinstance(val, Implementation) and self.implementation_dispatcher is not None:
            val = self.implementation_dispatcher(val)
        if callable(val) and not isinstance(val, type):
            try:
                owned = exclusive.get(val)
            except TypeError:  # unhashable: not one of them
                owned = None
            if isinstance(owned, types.Function):
                return self._with_extensions(val, owned)
            if owned is not None:
                return owned
        interface = captured_arrays.interface_of(val)
        if interface is not None:
            return captured_arrays.captured_array_type(interface)
        number = _ml_dtypes_number(val)
        if number is not None:
            return super().resolve_value_type(number)
        if isinstance(val, _GLOBALS_ONLY) or _builtin_class(val):
            found = self._get_global_type(val)
            if found is not None:
                return found
        if not isinstance(val, _KEPT_VALUES):
            return _checked_enum(super().resolve_value_type(val))
        found = self._value_types.get(val)  # a builtin that is no global: typeof() tried once
        if found is None:
            found = super().resolve_value_type(val)
            if found is not None:
                self._value_types[val] = found
        return found

    def _with_extensions(self, val: object, owned: types.Function) -> types.Function:
        """A function cumlir types alone (numba's CPU overloads of it ignored), with the
        overloads extensions declared for cumlir's target after its own (``@overload(np.sum)``
        for their types): those are tried where cumlir's typing refuses the arguments."""
        found = self._extended.get(val)
        if found is None:
            registered = self._lookup_global(val)
            extra = [
                t
                for t in getattr(registered, "templates", ())
                if t not in owned.templates and getattr(t, "metadata", {}).get("target") == TARGET_NAME
            ]
            found = self._extended[val] = types.Function(tuple(owned.templates) + tuple(extra)) if extra else owned
        return found

    def resolve_module_constants(self, typ: types.Module, attr: str) -> types.Type | None:
        # a missing module attribute is a typing error at its line, not an AttributeError
        if not hasattr(typ.pymod, attr):
            return None
        return super().resolve_module_constants(typ, attr)

    def resolve_function_type(
        self, func: object, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> Signature | None:
        try:
            found = self._resolve_with_numpy_families(func, args, kws)
        except TypingError:
            if not _has_optional(args, kws):
                raise
            found = self._resolve_values_of_optionals(func, args, kws)
            if found is None:
                raise
            return found
        if found is None and _has_optional(args, kws):
            return self._resolve_values_of_optionals(func, args, kws)
        return found

    def _resolve_values_of_optionals(
        self, func: object, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> Signature | None:
        """A call given Optional(T) arguments that no typing takes, typed for the T's: lowering
        converts each, checking it is not None (operations/python/optionals.py), members of
        tuples too (``a[i, r]``). numba's templates retry so only where they return None;
        typers that raise (an array's index, an atomic's) are retried here too."""
        values = [_value_of(a) for a in args]
        named = {k: _value_of(v) for k, v in dict(kws).items()}
        try:
            return self._resolve_with_numpy_families(func, values, named)
        except TypingError:
            return None

    def resolve_setitem(self, target: types.Type, index: types.Type, value: types.Type) -> Signature | None:
        # numba types ``a[i] = v`` past resolve_function_type: an Optional index or value the same way
        return self.resolve_function_type(operator.setitem, (target, index, value), {})

    def _resolve_with_numpy_families(
        self, func: object, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> Signature | None:
        try:
            return self._resolve_function_type(func, args, kws)
        except TypeError:
            # numba's NumPy templates ask NumPy for a dtype of every argument, and NumPy has
            # none for some families (complex32): a TypeError from deep inside them, made a
            # typing error here
            family = next(filter(None, map(_without_numpy_dtype, (*args, *kws.values()))), None)
            if family is None:
                raise
            shown = ", ".join(str(a) for a in (*args, *kws.values()))
            raise TypingError(
                f"{getattr(func, 'typing_key', func)} of ({shown}) is not supported: {family.name} has no NumPy "
                f"dtype, so NumPy's functions and array operators do not take it ({family.numpy_dtype})"
            ) from None

    def _resolve_function_type(
        self, func: object, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> Signature | None:
        # complex64(re, im) / complex128(re, im): numba's template for calling a number class
        # takes one argument and is consulted before any registered after it
        if (
            isinstance(func, types.NumberClass)
            and isinstance(func.instance_type, types.Complex)
            and len(args) == 2
            and not kws
            and all(isinstance(a, _REAL) for a in args)
        ):
            return signature(func.instance_type, *args)
        # np.complex64(v) of a vector: numba's template for calling a number class takes numbers
        # only; operations declare other arguments under NUMBER_CLASS_CALL, the class first
        if isinstance(func, types.NumberClass) and NUMBER_CLASS_CALL in self._functions:
            declared = self._resolve_builtin_function_type(NUMBER_CLASS_CALL, (func, *args), kws)
            if declared is not None:
                return signature(declared.return_type, *args)
        key = _scalar_operator_key(func, args, kws)
        if key is None:
            return self._resolve_call(func, args, kws)
        found = self._scalar_operators.get(key)
        if found is None:
            if len(self._scalar_operators) >= _MEMO_LIMIT:  # literal values in keys: bounded, not kept forever
                self._scalar_operators = {}
            found = self._scalar_operators[key] = super().resolve_function_type(func, args, kws)
        return found

    def _resolve_call(
        self, func: object, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> Signature | None:
        try:
            return super().resolve_function_type(func, args, kws)
        except AssertionError:
            # numba's array methods assert their argument counts (``a.ravel("F")``,
            # ``a.astype(t, copy=False)``): a typing error naming the call instead
            if not isinstance(func, types.BoundFunction):
                raise
            given = [str(a) for a in args] + [f"{k}={v}" for k, v in kws.items()]
            raise TypingError(f"{func.typing_key}() does not take the arguments ({', '.join(given)})") from None

    def refresh(self) -> None:
        self._scalar_operators = {}  # extensions may have declared new typings
        self._value_types = {}
        self._extended = {}
        super().refresh()

    _scalar_operators: dict[tuple[Any, tuple[types.Type, ...]], Any] = {}  # -> its Signature, or None
    _value_types: dict[object, types.Type] = {}
    _extended: dict[object, types.Function] = {}  # a function cumlir owns -> with extensions' overloads

    def can_convert(self, fromty: types.Type, toty: types.Type) -> Any:
        # numba lets a voidptr become a number (unsafely), which nothing lowers: voidptr + 1
        # would be typed as an int64 sum and fail in lowering
        if isinstance(fromty, types.RawPointer) and isinstance(toty, types.Number | types.Boolean):
            return None
        # a bytes string stored into one of another width (NUL-padded or cut, as NumPy stores
        # it): numba converts only between unicode ones
        if isinstance(fromty, types.CharSeq) and isinstance(toty, types.CharSeq):
            return Conversion.safe
        # a typed pointer passed where a voidptr is declared, as C passes a T* for a void*
        if isinstance(fromty, types.CPointer) and toty == types.voidptr:
            return Conversion.safe
        return super().can_convert(fromty, toty)

    def insert_function(self, ft: Any) -> None:
        if not _host_only(type(ft)):
            super().insert_function(ft)

    def _insert_global(self, gv: object, gty: types.Type) -> None:
        if isinstance(gty, types.Function):
            kept = tuple(t for t in gty.templates if not _host_only(t))
            if not kept:
                return
            if len(kept) != len(gty.templates):
                gty = types.Function(kept)
        super()._insert_global(gv, gty)

    def load_additional_registries(self) -> None:
        # every operation module fills the registry
        operations.install()

        # cumlir's declarations first: for a key typed by several registries, the
        # first template that accepts the arguments wins
        self.install_registry(registry)
        self.install_registry(npydecl.registry)
        self.install_registry(enumdecl.registry)  # Enum and IntEnum members (operations/python/enums.py)


# numba modules whose overloads (target "generic", so offered to every target) need the host:
# BLAS and LAPACK through llvmlite, and strings built in the runtime's memory (numba's unicode
# layout, which device code's constant strings do not have). They enter numba's shared registry
# when numba's CPU target first needs them, so a kernel's typing would depend on whether an
# @njit function ran before it (``a @ b`` of a 1-d and a 2-d array, or ``s + t`` of run-time
# strings, typed, then failing in lowering).
_HOST_ONLY_OVERLOADS = frozenset(["numba.np.linalg", "numba.cpython.unicode"])


def _is_pointer_array(fn: FunctionType) -> bool:
    return fn.__name__ in _POINTER_ARRAYS and fn.__module__ in _POINTER_ARRAY_MODULES


def _host_only(template: object) -> bool:
    overload = getattr(template, "_overload_func", None)
    return getattr(overload, "__module__", None) in _HOST_ONLY_OVERLOADS


def _without_numpy_dtype(ty: types.Type) -> typerecords.TypeRecord | None:
    """The record of the family of *ty*, or of its arrays' dtype, where NumPy has no dtype for
    it (complex32); else None."""
    for of in (ty, getattr(ty, "dtype", None)):
        record = typerecords.record_of(of)
        if record is not None and isinstance(record.numpy_dtype, str):
            return record
    return None


_MEMO_LIMIT = 1024  # operator typings remembered; a long-lived process meets ever new literals


def _builtin_class(val: object) -> bool:
    """Whether *val* is a builtin class other than an exception (``bool``, ``range``):
    typeof() types none of them, and asking it imports numba.typed (30-60 ms) to be sure."""
    return isinstance(val, type) and val.__module__ == "builtins" and not issubclass(val, BaseException)


def _checked_enum(found: types.Type | None) -> types.Type | None:
    """An enum class whose members device code can hold (numbers, booleans, tuples of them),
    else a typing error naming it: numba types members of any value, string ones included."""
    if isinstance(found, types.EnumClass) and not _device_value(found.dtype):
        raise TypingError(
            f"the members of the enum {found.instance_class.__name__} have values of type {found.dtype}, "
            "which device code cannot hold: enum members in kernels need numbers, booleans or tuples of them"
        )
    return found


def _device_value(ty: types.Type) -> bool:
    if isinstance(ty, types.BaseTuple):
        return all(_device_value(member) for member in ty)  # type: ignore[attr-defined]  # numba's stubs
    return isinstance(ty, (types.Number, types.Boolean))


def _has_optional(args: Sequence[types.Type], kws: Mapping[str, types.Type]) -> bool:
    return any(_value_of(a) is not a for a in (*args, *dict(kws).values()))


def _value_of(ty: types.Type) -> types.Type:
    """*ty* with Optional(T) made T, in tuples too; *ty* itself where it holds no Optional."""
    if isinstance(ty, types.Optional):
        return ty.type
    if isinstance(ty, types.BaseTuple) and not isinstance(ty, types.BaseNamedTuple):
        members = [_value_of(m) for m in ty]  # type: ignore[attr-defined]  # numba's stubs
        if any(m is not t for m, t in zip(members, ty)):  # type: ignore[call-overload]
            return types.BaseTuple.from_types(members)
    return ty


def _scalar_operator_key(
    func: object, args: Sequence[types.Type], kws: Mapping[str, types.Type]
) -> tuple[Any, tuple[types.Type, ...]] | None:
    """(the operator, its argument types) for a call of a pure operator on scalars, else None.
    Literal arguments (``i * 32``) are part of the key by their value."""
    if kws:
        return None
    if func in _INDEXING:  # typeinfer asks by the operator itself, not a function type
        if not (len(args) >= 2 and isinstance(args[0], types.Array) and _integer_index(args[1])):
            return None
        return (func, tuple(args))
    if func == "static_getitem":  # a constant index (a Python int, not a type)
        if not (len(args) == 2 and isinstance(args[0], (types.Array, types.BaseTuple)) and type(args[1]) is int):
            return None
        return (func, tuple(args))
    key = getattr(func, "typing_key", None) if isinstance(func, types.Function) else None
    if key not in _PURE_OPERATORS or not all(isinstance(a, _REAL) for a in args):
        return None
    # keyed by the function type itself: templates registered later (an @overload of bool
    # imported while typing) make a new one, which lowering asks for the implementation of
    # the signatures it typed
    return (func, tuple(args))


def _integer_index(ty: types.Type) -> bool:
    """Whether *ty* indexes an array by integers alone (an element stored: a number)."""
    if isinstance(ty, types.BaseTuple):
        return all(isinstance(member, types.Integer) for member in ty)  # type: ignore[attr-defined]
    return isinstance(ty, _REAL)


_context: CUDATypingContext | None = None
_seen: int | None = None


def _registrations() -> int:
    """How many declarations the installed registries hold: extensions (``@overload``,
    ``type_callable``, templates) registered after the context was built change it."""
    return sum(len(r.functions) + len(r.attributes) + len(r.globals) for r in _context._registries)  # type: ignore[union-attr,misc]  # built


def typing_context() -> CUDATypingContext:
    """The process-wide typing context, built on first use and refreshed when extensions
    have registered declarations since."""
    global _context, _seen
    with FRONTEND_LOCK:  # a second thread waits for the first to finish building it
        if _context is None:
            plain_messages.install()
            with target_override():
                ctx = CUDATypingContext()
                ctx.refresh()
            _context = ctx
            _seen = _registrations()
        else:
            operations.install()  # operation modules found since
            if _registrations() != _seen:
                refresh()
        return _context


def refresh() -> None:
    """Pick up declarations registered since the context was built."""
    global _seen
    with FRONTEND_LOCK:
        if _context is not None:
            with target_override():
                _context.refresh()
            _seen = _registrations()


def _ml_dtypes_number(val: object) -> types.Type | None:
    """The cumlir type of an ml_dtypes scalar class (``ml_dtypes.bfloat16``,
    ``ml_dtypes.float8_e4m3fn`` ...) used in a kernel, as ``cuda.bfloat16`` and the other
    names in ``cuda`` are: a dtype for arrays, a conversion when called. None for anything
    else; a TypingError naming the ml_dtypes classes kernels have no type for (int4 ...)."""
    if not isinstance(val, type) or getattr(val, "__module__", None) != "ml_dtypes":
        return None
    name = val.__name__
    number = typerecords.type_of_dtype(name)
    if number is None:
        raise TypingError(
            f"ml_dtypes.{name} has no type in kernels: of ml_dtypes' types, bfloat16 and the "
            "float8, float6 and float4 formats are numbers there (docs/language.md)"
        )
    return number
