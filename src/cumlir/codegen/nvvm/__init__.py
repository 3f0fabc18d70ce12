"""The "nvvm" code generator: the LLVM dialect printed as LLVM IR for libNVVM, which makes
PTX or LTO-IR (libnvvm.py); the LLVM 7 printer (llvm7*.py) and the intrinsics it knows
(intrinsics_nvvm.py). See docs/nvvm.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..backend import Backend
from ..targets import parse_cc
from . import libnvvm

if TYPE_CHECKING:
    from mlir import ir

    from ...options import Options


class NvvmBackend(Backend):
    name = "nvvm"
    formats = ("ptx", "ltoir")

    def code(self, module: ir.Module, cc: tuple[int, int], options: Options, code_format: str) -> str | bytes:
        code = libnvvm.compile_module(module, cc, options, code_format)
        return code.decode() if code_format == "ptx" else code

    def llvm_ir(self, module: ir.Module, cc: tuple[int, int], options: Options) -> str:
        return libnvvm.llvm_ir(module, cc, options)

    def keeps_line_tables(self, cc: tuple[int, int]) -> bool:
        # the LLVM 7 printer writes them; MLIR's modern-IR translation (sm_100+) has none yet
        return parse_cc(cc) < libnvvm.MODERN_IR_FROM


BACKEND = NvvmBackend()
