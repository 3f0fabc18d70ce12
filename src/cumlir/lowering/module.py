"""Builds the MLIR module of one compilation: a gpu.module holding kernels and the
device functions they call (lowered on first use, each once)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mlir import ir
from mlir.dialects import func, gpu, llvm, memref

from ..marks import FUNCTION_FASTMATH
from ..mlir.contexts import mlir_context
from ..options import Options
from ..typing.frontend import DeviceFunction, implementation_dispatcher
from . import operations, refcount
from .function import NO_VALUE, MLIRLower

if TYPE_CHECKING:
    import numpy as np
    from numba.core.typing.templates import Signature

    from ..linkable import LinkItem
    from ..operations._support.builder import MLIRType, Value
    from ..raise_sites import RaiseSite
    from ..typing.frontend import TypedFunction

GPU_MODULE_NAME = "cumlir_kernels"


def _load_rules() -> None:
    # every operation module fills the registry (a module added since is found too)
    operations.install()


class ModuleBuilder:
    def __init__(self, typing_context: Any, options: Options | None = None) -> None:
        _load_rules()
        self.typing_context = typing_context
        self.options = options or Options()
        self.context = mlir_context()
        with self.context, ir.Location.unknown():
            self.module = ir.Module.create()
            self.module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
            with ir.InsertionPoint(self.module.body):
                self.gpu_module = gpu.GPUModuleOp(GPU_MODULE_NAME)
            self.body = self.gpu_module.bodyRegion.blocks.append()
        self._device_symbols: dict[DeviceFunction, str] = {}
        self._externals: dict[str, Any] = {}  # name -> its func.FuncOp
        self._constants: dict[tuple[Any, ...], str] = {}
        self._strings: dict[str, str] = {}
        self.raise_sites: list[RaiseSite] = []
        self.link_items: list[LinkItem] = []  # what the module's code needs linked: device functions' link=, externals
        self.cooperative = False  # a rule synchronizes the grid: launch cooperatively
        self.allocates = False  # some function allocates through the device runtime (NRT)
        self.uses_nrt = False  # the runtime is linked (set by finish_runtime)
        self._refcount_helpers: dict[str, Any] = {}
        self._names: set[str] = set()

    def _unique(self, name: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", name) or "fn"
        symbol, n = base, 1
        while symbol in self._names:
            n += 1
            symbol = f"{base}_{n}"
        self._names.add(symbol)
        return symbol

    def add_kernel(self, typed: TypedFunction, name: str | None = None) -> str:
        """Lower *typed* as a kernel entry point; returns its symbol (the PTX .entry name)."""
        symbol = self._unique(name or typed.name)
        with self.context:
            MLIRLower(self, typed, "kernel", symbol).lower()
        return symbol

    def device_callee(self, key: object) -> DeviceFunction | None:
        """The device function a call resolves to, or None for calls lowered by rules."""
        return key if isinstance(key, DeviceFunction) else None

    def device_symbol(self, callee: DeviceFunction) -> str:
        symbol = self._device_symbols.get(callee)
        if symbol is None:
            symbol = self._unique(callee.symbol_hint)
            self._device_symbols[callee] = symbol
            self.add_link_items(callee.link)
            options = callee.dispatcher.options
            op = MLIRLower(self, callee.typed, "device", symbol, self._function_options(options)).lower()
            if options.forceinline or options.inline == "always":
                force_inline(op)
            if options.fastmath:
                op.attributes[FUNCTION_FASTMATH] = ir.StringAttr.get(",".join(sorted(options.fastmath)))
        return symbol

    def _function_options(self, options: Options) -> Options | None:
        """The options a device function is lowered with: the module's, plus its own fastmath
        flags (a device function compiled with fastmath uses approximate math routines)."""
        if options.fastmath <= self.options.fastmath:
            return None
        return self.options.replace(fastmath=self.options.fastmath | options.fastmath)

    def refcount_helper(self, name: str) -> str:
        """The symbol of the module's reference-counting helper *name* (refcount.py)."""
        if name not in self._refcount_helpers:
            self._refcount_helpers[name] = refcount.declare_helper(self, name)
            self._names.add(name)
        return name

    def finish_runtime(self, linked_code_uses_nrt: bool) -> bool:
        """Decide whether the device runtime is linked (docs/nrt.md) and give the reference-
        counting helpers their bodies accordingly; returns that decision."""
        self.uses_nrt = self.options.nrt is not False and (self.allocates or linked_code_uses_nrt)
        with self.context:
            refcount.finish(self, self._refcount_helpers, self.uses_nrt)
        return self.uses_nrt

    def add_link_items(self, items: Sequence[LinkItem]) -> None:
        """Record code the module's functions call into, to be linked with it."""
        self.link_items.extend(item for item in items if item not in self.link_items)

    def emit_device_call(
        self, lower: MLIRLower, callee: DeviceFunction, sig: Signature, args: Sequence[Value]
    ) -> Value:
        symbol = self.device_symbol(callee)
        ret = callee.typed.return_type
        results = lower.flat_types([ret])
        operands = [
            part
            for value, fromty, toty in zip(args, sig.args, callee.typed.args)
            if lower.has_value(toty)
            for part in lower.dmm.lookup(toty).flatten(lower.cast(value, fromty, toty))
        ]
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(symbol), operands)
        if not lower.has_value(ret):
            return NO_VALUE
        # a device function returns a reference of its own (its return takes one)
        return lower.mark_fresh(lower.dmm.lookup(ret).unflatten(list(call.results)))

    def constant_array(self, data: np.ndarray, memref_type: MLIRType) -> str:
        """A memref.global in constant memory holding *data*; returns its symbol."""
        key = (data.tobytes(), data.dtype.str, data.shape, data.strides)
        symbol = self._constants.get(key)
        if symbol is None:
            symbol = self._constants[key] = self._unique("cumlir_constant")
            with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(self.body):
                memref.GlobalOp(
                    symbol,
                    ir.TypeAttr.get(memref_type),
                    sym_visibility="private",
                    initial_value=ir.DenseElementsAttr.get(data, type=memref_type.element_type),
                    constant=True,
                    alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 16),
                )
        return symbol

    def has_symbol(self, name: str) -> bool:
        return name in self._names

    def claim_symbol(self, name: str) -> None:
        self._names.add(name)

    def add_raise_site(self, site: RaiseSite) -> int:
        """Register a place that raises (debug mode); returns its code, 1 or more."""
        self.raise_sites.append(site)
        return len(self.raise_sites)

    def string_constant(self, text: str) -> str:
        """A private NUL-terminated string in the module; returns its symbol."""
        symbol = self._strings.get(text)
        if symbol is None:
            symbol = self._strings[text] = self._unique("cumlir_string")
            data = text.encode() + b"\0"
            with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(self.body):
                array = ir.Type.parse(f"!llvm.array<{len(data)} x i8>")
                llvm.GlobalOp(
                    array,
                    symbol,
                    ir.Attribute.parse("#llvm.linkage<internal>"),
                    constant=True,
                    value=ir.StringAttr.get(data),
                )
        return symbol

    def declare_function(self, name: str, arg_types: Sequence[MLIRType], result_types: Sequence[MLIRType]) -> str:
        """Declare an external function (a libdevice routine, say) once; returns its symbol."""
        declared = self._externals.get(name)
        if declared is None:
            with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(self.body):
                declared = func.FuncOp(
                    name, ir.FunctionType.get(list(arg_types), list(result_types)), visibility="private"
                )
            self._externals[name] = declared
            self._names.add(name)
        return name

    def call_python(self, lower: MLIRLower, pyfunc: Callable[..., Any], sig: Signature, args: Sequence[Value]) -> Value:
        """Lower a call as if to *pyfunc*, compiled by cumlir as a device function for sig.args.

        Semantics that are easiest to state in Python (CPython's complex division,
        say) are written as Python functions and compiled like user code.
        """
        callee = implementation_dispatcher(pyfunc).compile_device(sig.args)
        value = self.emit_device_call(lower, callee, callee.signature, args)
        result = lower.cast(value, callee.typed.return_type, sig.return_type)
        return lower.mark_fresh(result) if lower.is_fresh(value) else result


def force_inline(function_op: Any) -> None:
    """forceinline=True (and inline="always"): LLVM's alwaysinline on the function, so it is
    inlined even at -O0 and into the callers of an LTO link."""
    function_op.attributes["always_inline"] = ir.UnitAttr.get()
