"""The "nvptx" code generator (the default): LLVM's NVPTX back end in process, through
MLIR's gpu-module-to-binary, with the ``#nvvm.target`` the optimized stage attached
(libdevice linked where the module calls it, LLVM's O3 pipeline, then NVPTX): PTX text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import gpu

from ..backend import Backend
from ..passes import line_tables
from ..passes.pipeline import gpu_module_of, llvm_ir_of, pass_manager
from . import libdevice_link

if TYPE_CHECKING:
    from ...options import Options

TO_PTX = "builtin.module(gpu-module-to-binary{format=isa})"
TRIPLE = "nvptx64-nvidia-cuda"


class NvptxBackend(Backend):
    name = "nvptx"
    formats = ("ptx",)

    def prepare(self, module: ir.Module, options: Options) -> None:
        if options.lineinfo or options.debug:
            line_tables.add(module)

    def code(self, module: ir.Module, cc: tuple[int, int], options: Options, code_format: str) -> str | bytes:
        libdevice_link.add_where_called(gpu_module_of(module))
        pass_manager(TO_PTX).run(module.operation)
        binary = gpu_module_of(module)
        return bytes(gpu.ObjectAttr(binary.attributes["objects"][0]).object).decode()

    def llvm_ir(self, module: ir.Module, cc: tuple[int, int], options: Options) -> str:
        # MLIR's translation, given the NVPTX triple: host-side JIT linkers need it
        gpu_module_of(module).attributes["llvm.target_triple"] = ir.StringAttr.get(TRIPLE)
        return llvm_ir_of(module)

    def keeps_line_tables(self, cc: tuple[int, int]) -> bool:
        return True


BACKEND = NvptxBackend()
