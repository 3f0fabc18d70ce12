"""libNVVM on a module in the LLVM dialect: the LLVM IR text it reads, then PTX or LTO-IR.

libNVVM (13.x, from the nvidia-cuda-nvvm wheel) reads LLVM 7.0 IR for sm_75 ... sm_90,
printed by llvm7.py; for compute_100 and newer it reads modern LLVM IR, which MLIR's
own translation gives once it carries NVVM's data layout and ``!nvvmir.version``.
libdevice is linked lazily by libNVVM, so only the ``__nv_*`` functions a module
calls are kept.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from ... import optional_libraries
from ...lazy import lazy
from .. import targets
from ..passes import pipeline
from . import llvm7

if TYPE_CHECKING:
    from mlir import ir

    from ...chips import ComputeCapability
    from ...options import Options

nvvm_bindings = lazy("cuda.bindings.nvvm")  # libNVVM is an extra: loaded by the first nvvm compile

MODERN_IR_FROM = (10, 0)  # the first compute capability whose libNVVM reads modern LLVM IR


class NvvmError(RuntimeError):
    """libNVVM rejected a module; the message holds its log."""


@functools.lru_cache(maxsize=1)
def _nvvm() -> lazy:
    optional_libraries.load("nvvm")  # before the bindings' module, which loads the library
    return nvvm_bindings


@functools.lru_cache(maxsize=1)
def _libdevice() -> bytes:
    with open(optional_libraries.libdevice_path(), "rb") as f:
        return f.read()


def nvvm_options(cc: ComputeCapability, options: Options | None, output: str) -> list[str]:
    """libNVVM's command-line options for a compute capability, Options and output kind."""
    major, minor = targets.parse_cc(cc)
    suffix = targets.suffix(cc, options)  # compute_90a, compute_100f
    result = [f"-arch=compute_{major}{minor}{suffix}", f"-opt={3 if options is None else options.opt_level}"]
    if options is not None and options.fast:
        result += ["-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"]
    else:
        # what may be contracted into an fma is decided per operation, by the ``contract``
        # flag the optimized stage sets (codegen/passes/pipeline.py): on every operation by
        # default (Options.arithmetic_flags), on none with fma=False, never on the ``_rn``
        # half-precision intrinsics (marks.UNCONTRACTED). Under -fma=0 libNVVM contracts
        # only operations carrying the flag; -fma=1 would contract any a*b+c, those included
        result.append("-fma=0")
    if options is not None and options.debug:
        result.append("-g")  # the variables the LLVM 7 printer describes (llvm7_debug.py)
    if output == "ltoir":
        result.append("-gen-lto")
    return result


def llvm_ir(mlir_module: ir.Module, cc: ComputeCapability, options: Options | None = None) -> str:
    """The LLVM IR text libNVVM is given for *mlir_module* (after the pipeline's "llvm" stage)."""
    if targets.parse_cc(cc) >= MODERN_IR_FROM:
        return modern_ir(mlir_module)
    lines = options is not None and (options.lineinfo or options.debug)
    variables = options is not None and bool(options.debug)
    module = pipeline.gpu_module_of(mlir_module)
    return llvm7.print_module(module, _nvvm().ir_version(), line_tables=lines, variables=variables)


def modern_ir(mlir_module: ir.Module) -> str:
    """MLIR's own LLVM IR, given NVVM's data layout, ``@llvm.used`` kernels and ``!nvvmir.version``."""
    text = pipeline.llvm_ir_of(mlir_module)
    text = re.sub(r'^target datalayout = ".*"$', f'target datalayout = "{llvm7.NVVM_DATA_LAYOUT}"', text, flags=re.M)
    if "target datalayout" not in text:
        text = f'target datalayout = "{llvm7.NVVM_DATA_LAYOUT}"\n' + text
    if "target triple" not in text:
        text = f'target triple = "{llvm7.NVVM_TRIPLE}"\n' + text
    kernels = re.findall(r"^define\s[^@]*ptx_kernel\s[^@]*@([\w.$]+)\(", text, flags=re.M)
    node = max((int(n) for n in re.findall(r"^!(\d+) = ", text, flags=re.M)), default=-1) + 1
    lines = [text.rstrip("\n")]
    if kernels:
        refs = ", ".join(f"ptr @{k}" for k in kernels)
        lines.append(f'@llvm.used = appending global [{len(kernels)} x ptr] [{refs}], section "llvm.metadata"')
    version = ", ".join(f"i32 {v}" for v in _nvvm().ir_version())
    lines += [f"!nvvmir.version = !{{!{node}}}", f"!{node} = !{{{version}}}"]
    return "\n".join(lines) + "\n"


def compile_module(mlir_module: ir.Module, cc: ComputeCapability, options: Options | None, output: str) -> bytes:
    """PTX text (as bytes) or LTO-IR of a module after the pipeline's "llvm" stage, through libNVVM."""
    if output not in targets.CODE_FORMATS:
        raise ValueError(
            f"unknown output {output!r} for the nvvm path; choose one of {', '.join(targets.CODE_FORMATS)}"
        )
    text = llvm_ir(mlir_module, cc, options)
    result = compile_ir(text, nvvm_options(cc, options, output), link_libdevice="@__nv_" in text)
    return result.rstrip(b"\0") if output == "ptx" else result


def compile_ir(text: str, opts: list[str], link_libdevice: bool = True) -> bytes:
    """Run libNVVM on LLVM IR *text* with options *opts*; the compiled bytes."""
    nvvm = _nvvm()
    program = nvvm.create_program()
    try:
        data = text.encode()
        nvvm.add_module_to_program(program, data, len(data), "cumlir")
        if link_libdevice:
            libdevice = _libdevice()
            nvvm.lazy_add_module_to_program(program, libdevice, len(libdevice), "libdevice")
        try:
            nvvm.compile_program(program, len(opts), opts)
        except nvvm.nvvmError as error:
            raise NvvmError(f"libNVVM ({' '.join(opts)}) rejected the module: {error}\n{_log(nvvm, program)}") from None
        size = nvvm.get_compiled_result_size(program)
        buffer = bytearray(size)
        nvvm.get_compiled_result(program, buffer)
        return bytes(buffer)
    finally:
        nvvm.destroy_program(program)


def _log(nvvm: lazy, program: int) -> str:
    size = nvvm.get_program_log_size(program)
    buffer = bytearray(size)
    nvvm.get_program_log(program, buffer)
    return bytes(buffer).rstrip(b"\0").decode(errors="replace")
