"""The part of the MLIR builder offered to extensions (see docs/extending.md).

Public lowering callbacks receive Numba IR variables, not MLIR values; rules of
the internal registry receive values. ``bind_temporaries`` bridges the two by
binding values to fresh variable names that ``load_var``/``store_var`` accept.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from mlir import ir
from mlir.dialects import llvm
from numba import typeof
from numba.core import errors, types

from .. import nrt
from ..mlir.helpers import convert
from ..operations._support.elements import element_pointer
from . import kernel_abi, refcount
from .exceptions import record_raise

if TYPE_CHECKING:
    from numba.core import ir as nir

    from ..operations._support.builder import Lower, MLIRType, ModuleBuilder, NumbaType, Value
    from ..options import Options

_temporary_ids = itertools.count()


class TargetContext:
    """The ``context`` argument of attribute, cast and constant callbacks."""

    def __init__(self, lower: BuilderAPI) -> None:
        self._lower = lower
        self.typing_context = lower.typing_context
        self.data_model_manager = lower.dmm

    def get_value_type(self, numba_type: NumbaType) -> MLIRType:
        return self._lower.get_mlir_type(numba_type)

    def get_data_type(self, numba_type: NumbaType) -> MLIRType:
        return self.data_model_manager.lookup(numba_type).get_data_type()

    def cast(self, builder: Lower, value: Value, fromty: NumbaType, toty: NumbaType) -> Value:
        return builder.cast(value, fromty, toty)


class BuilderAPI:
    """Mixed into MLIRLower."""

    if TYPE_CHECKING:  # what the methods below use of MLIRLower
        module: ModuleBuilder
        loc: nir.Loc | None
        refcounting: bool
        func_ir: nir.FunctionIR
        refcount_calls: list[tuple[Any, ...]]
        typing_context: Any
        dmm: Any
        typemap: dict[str, NumbaType]
        _values: dict[str, Any]

        def alloca_insertion_point(self) -> contextlib.AbstractContextManager[None]: ...

        def call_external(self, name: str, result_type: MLIRType | None, args: Sequence[Value]) -> Value | None: ...

        def constant(self, ty: NumbaType, pyval: Any) -> Value: ...

        def get_mlir_type(self, numba_type: NumbaType) -> MLIRType: ...

        def get_numba_type(self, var: str | nir.Var) -> NumbaType: ...

        def has_value(self, numba_type: NumbaType) -> bool: ...

        def mark_fresh(self, value: Value) -> Value: ...

        @property
        def options(self) -> Options: ...

        def load_vars(self, vars: Iterable[str | nir.Var]) -> list[Value]: ...

        def store_var(self, var: str | nir.Var, value: Value, value_type: NumbaType | None = None) -> None: ...

        def call_function(
            self, fn: Callable[..., Any], argtypes: Sequence[NumbaType], args: Sequence[Value]
        ) -> tuple[Value, NumbaType]: ...

    @property
    def target_context(self) -> TargetContext:
        return TargetContext(self)

    def mlir_convert(self, value: Value, target_mlir_type: MLIRType) -> Value:
        """Convert between MLIR types, integers taken as signed (see lowering_utilities.convert)."""
        return convert(value, target_mlir_type)

    def lower_literal_if_needed(self, value: Any, numba_type: NumbaType | None = None) -> Value:
        """An MLIR value for *value*: MLIR values pass through, Python and NumPy scalars
        become constants of *numba_type* (or of the type numba gives them)."""
        if isinstance(value, ir.Value):
            return value
        if numba_type is None:
            numba_type = typeof(value)
        return self.constant(types.unliteral(numba_type), value)

    def alloca(self, ty: MLIRType, count: int = 1) -> Value:
        """A stack slot for *count* values of the MLIR type *ty*, in the entry block; an LLVM pointer."""
        with self.alloca_insertion_point(), ir.Location.unknown():
            size = llvm.ConstantOp(
                ir.IntegerType.get_signless(64), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), count)
            )
            return llvm.alloca(llvm.PointerType.get(), size, ty)

    def element_pointer(self, array_type: NumbaType, array: Value, index_type: NumbaType, index: Value) -> Value:
        """The address (an !llvm.ptr) of the element of *array* (of Numba type *array_type*)
        at *index* (an integer or a tuple of one per axis, of Numba type *index_type*):
        negative indices wrap, and debug=True checks bounds, as element access does."""
        return element_pointer(self, array_type, array, index_type, index)

    def record_raise(self, exception_class: type[BaseException], args: Sequence[Any]) -> None:
        """Raise *exception_class(*args)* at the current line (docs: debug=True reports it on
        the host); the caller ends the thread."""
        record_raise(self, exception_class, args, self.loc)

    def incref(self, numba_type: NumbaType, value: Value) -> None:
        """Take a reference to every array *value* holds (NRT on; otherwise nothing): for
        extensions that keep an array beyond the statement that gave it (docs/nrt.md)."""
        if self.refcounting:
            refcount.incref(self, numba_type, value)

    def decref(self, numba_type: NumbaType, value: Value) -> None:
        """Give back a reference taken with incref (or one a device function returned)."""
        if self.refcounting:
            refcount.decref(self, numba_type, value)

    def unowned(self, memref_value: Value) -> Value:
        """An array over memory the device runtime does not own (a global: shared or constant
        memory), marked so that taking references to it does nothing (NRT on; else itself)."""
        if not self.refcounting:
            return memref_value
        return refcount.unowned(memref_value)

    def meminfo_array(
        self, array_type: NumbaType, meminfo: Value, sizes: Sequence[Value], strides: Sequence[Value] | None = None
    ) -> Value:
        """An array of *array_type* with i64 *sizes* (and *strides*, C-contiguous if None)
        over the data of the device runtime's MemInfo *meminfo* (an !llvm.ptr), owning the
        reference its caller holds."""
        return refcount.meminfo_array(self, array_type, meminfo, sizes, strides)

    def require_wide_addresses(self, what: str) -> None:
        """*what* makes an array whose span is not known below 2**31 bytes: with 32-bit
        element offsets (index_bits=32), the module is lowered again with 64-bit ones."""
        refcount.require_wide_addresses(self, what)

    def require_nrt(self, what: str) -> None:
        """Refuse *what* (code needing the device runtime) at its line when NRT is off."""
        refcount.require_nrt(self, what)

    def nrt_allocate(self, nbytes: Value, align: Value) -> Value:
        """A new MemInfo (an !llvm.ptr) from the device runtime with *nbytes* (i64) of data
        aligned to *align* (i32) bytes."""
        return self.call_external(nrt.ALLOCATE, llvm.PointerType.get(), [nbytes, align])

    def memref_from_params(self, array_type: NumbaType, params: Sequence[Value]) -> Value:
        """A value of the Numba array type *array_type* from (pointer, offset, sizes...,
        strides...) as i64s, the kernel parameters of an array (see abi.md)."""
        return kernel_abi.memref_from_params(self, array_type, params)

    def require_cooperative_launch(self) -> None:
        """The code synchronizes the whole grid: the kernel must be launched cooperatively
        (all its blocks resident at once). Recorded on the module, read by the compiler."""
        self.module.cooperative = True

    def lower_overload_call(
        self, target: str | nir.Var | None, disp: Callable[..., Any], args: Sequence[str | nir.Var]
    ) -> Value:
        """Call the ``@overload``-ed function (or jitted dispatcher) *disp* on the variables
        *args*, as user code calling it would, and store the result in *target*."""
        argtypes = [self.get_numba_type(a) for a in args]
        value, result_type = self.call_function(disp, argtypes, self.load_vars(args))
        if target is not None:
            self.store_var(target, value, result_type)
        return value

    # ---- bridging values and variables ------------------------------------------------

    @contextlib.contextmanager
    def bind_temporaries(self, values: Sequence[Value], numba_types: Sequence[NumbaType]) -> Iterator[list[str]]:
        """Fresh variable names bound to *values* of *numba_types*, removed on exit.
        A value of None leaves its name unbound (a target for the callback to store into)."""
        names = []
        try:
            for value, ty in zip(values, numba_types):
                name = f"$ext.{next(_temporary_ids)}"
                self.typemap[name] = ty
                if value is not None or not self.has_value(ty):
                    self._values[name] = value
                names.append(name)
            yield names
        finally:
            for name in names:
                self.typemap.pop(name, None)
                self._values.pop(name, None)

    def read_temporary(self, name: str) -> Value | None:
        """The value stored into the temporary *name*, or None if nothing was stored."""
        return self._values.get(name)


def extension_error(callback: object, exc: Exception, loc: nir.Loc | None) -> errors.LoweringError:
    """A LoweringError naming the extension *callback* that raised *exc* at the kernel line *loc*."""
    code = getattr(callback, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
    name = getattr(callback, "__qualname__", repr(callback))
    detail = exc.msg if isinstance(exc, errors.NumbaError) and hasattr(exc, "msg") else str(exc)
    return errors.LoweringError(f"in the extension lowering {name}{where}: {type(exc).__name__}: {detail}", loc)
