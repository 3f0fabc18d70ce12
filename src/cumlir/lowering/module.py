"""Builds the MLIR module of one compilation: a gpu.module holding kernels and the
device functions they call (lowered on first use, each once)."""

import re

from mlir import ir
from mlir.dialects import func, gpu

from ..mlir_context import mlir_context
from .function import NO_VALUE, MLIRLower

GPU_MODULE_NAME = "cumlir_kernels"


def _load_rules():
    # importing the rule modules fills the registry
    from . import arrays, intrinsics, iterators, scalars, tuples  # noqa: F401


class ModuleBuilder:
    def __init__(self, typing_context):
        _load_rules()
        self.typing_context = typing_context
        self.context = mlir_context()
        with self.context, ir.Location.unknown():
            self.module = ir.Module.create()
            self.module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
            with ir.InsertionPoint(self.module.body):
                self.gpu_module = gpu.GPUModuleOp(GPU_MODULE_NAME)
            self.body = self.gpu_module.bodyRegion.blocks.append()
        self._device_symbols = {}
        self._names = set()

    def _unique(self, name):
        base = re.sub(r"[^A-Za-z0-9_]", "_", name) or "fn"
        symbol, n = base, 1
        while symbol in self._names:
            n += 1
            symbol = f"{base}_{n}"
        self._names.add(symbol)
        return symbol

    def add_kernel(self, typed, name=None):
        """Lower *typed* as a kernel entry point; returns its symbol (the PTX .entry name)."""
        symbol = self._unique(name or typed.name)
        with self.context:
            MLIRLower(self, typed, "kernel", symbol).lower()
        return symbol

    def device_callee(self, key):
        """The device function a call resolves to, or None for calls lowered by rules."""
        from ..dispatcher import DeviceFunction

        return key if isinstance(key, DeviceFunction) else None

    def device_symbol(self, callee):
        symbol = self._device_symbols.get(callee)
        if symbol is None:
            symbol = self._unique(callee.symbol_hint)
            self._device_symbols[callee] = symbol
            MLIRLower(self, callee.typed, "device", symbol).lower()
        return symbol

    def emit_device_call(self, lower, callee, sig, args):
        symbol = self.device_symbol(callee)
        ret = callee.typed.return_type
        results = [lower.get_mlir_type(ret)] if lower.has_value(ret) else []
        operands = [
            lower.cast(value, fromty, toty)
            for value, fromty, toty in zip(args, sig.args, callee.typed.args)
            if lower.has_value(toty)
        ]
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(symbol), operands)
        return call.results[0] if results else NO_VALUE
