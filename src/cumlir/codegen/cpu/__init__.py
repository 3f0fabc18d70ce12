"""The "cpu" code generator: the simulator's (docs/simulator.md). The ``llvm`` stage's
module, translated to LLVM IR, becomes the host's: NVVM intrinsics read the simulated
thread's state (``host_ir``), device functions are inlined, and a kernel whose threads wait
for each other becomes a coroutine (``threads``). Its code format is ``host``: LLVM IR text
for the host, which the ``cubin`` stage links with the runtime (``runtime.ll``) and
optimizes (``objects.py``) and the simulator's driver JIT-compiles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir

from ..backend import Backend
from ..passes import line_tables
from ..passes.pipeline import llvm_ir_of
from .ir_text import NotSimulated
from .objects import host_code

if TYPE_CHECKING:
    from ...options import Options

__all__ = ["BACKEND", "NotSimulated"]


class CpuBackend(Backend):
    name = "cpu"
    formats = ("host",)

    def prepare(self, module: ir.Module, options: Options) -> None:
        line_tables.add(module)  # the lines the simulator's reports name

    def code(self, module: ir.Module, cc: tuple[int, int], options: Options, code_format: str) -> str | bytes:
        return host_code(llvm_ir_of(module), bool(options.checks))

    def llvm_ir(self, module: ir.Module, cc: tuple[int, int], options: Options) -> str:
        return host_code(llvm_ir_of(module), bool(options.checks))


BACKEND = CpuBackend()
