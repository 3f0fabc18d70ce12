"""The compilation pipeline for one function and one argument-type signature.

    frontend   Python function -> typed Numba IR           (typing/frontend.py)
    lowering   typed IR -> MLIR gpu.module                 (lowering/)
    passes     MLIR -> LLVM dialect -> PTX                  (codegen/pipeline.py)
    link       PTX -> cubin                                (linking.py, at load time)

Everything up to PTX runs without a GPU.
"""

import os
from dataclasses import dataclass, field

BACKENDS = ("nvptx", "nvvm")
EMIT_STAGES = ("typed", "mlir", "optimized", "llvm", "ptx")


@dataclass(frozen=True)
class CompileOptions:
    """Options of @cuda.jit that change the generated code."""

    fastmath: bool = False
    debug: bool = False
    lineinfo: bool = False
    opt: bool = True
    # code generation: "nvptx" (LLVM's NVPTX back end) or "nvvm" (libNVVM); CUMLIR_BACKEND sets the default
    backend: str = field(default_factory=lambda: os.environ.get("CUMLIR_BACKEND", "nvptx"))

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; choose one of {', '.join(BACKENDS)}")

    @classmethod
    def from_targetoptions(cls, options):
        flags = {k: bool(options[k]) for k in ("fastmath", "debug", "lineinfo", "opt") if k in options}
        return cls(**flags, **({"backend": options["backend"]} if "backend" in options else {}))


@dataclass
class CompiledKernel:
    typed: object  # TypedFunction
    symbol: str  # the PTX .entry name
    ptx: str
    cc: tuple
    raise_sites: list = field(default_factory=list)  # debug mode: what each exception code means
    link: list = field(default_factory=list)  # link items of the external functions it calls


def type_function(pyfunc, argtypes, return_type=None):
    from .typing.frontend import type_function as frontend

    return frontend(pyfunc, argtypes, return_type)


def lower_kernel(typed, name=None, options=None):
    """A ModuleBuilder holding *typed* as a kernel, and the kernel's symbol."""
    from .lowering.module import ModuleBuilder
    from .typing.context import typing_context

    builder = ModuleBuilder(typing_context(), options)
    symbol = builder.add_kernel(typed, name)
    return builder, symbol


def kernel_ptx(typed, cc, name=None, options=None):
    from .codegen import pipeline

    options = options or CompileOptions()
    builder, symbol = lower_kernel(typed, name, options)
    with builder.context:
        pipeline.set_target(builder.module, cc, options)
        ptx = _ptx(builder.module, cc, options)
    return CompiledKernel(
        typed=typed, symbol=symbol, ptx=ptx, cc=cc, raise_sites=list(builder.raise_sites), link=_external_links(builder)
    )


def _external_links(builder):
    """Link items of the external functions the module calls and of its device functions' link=."""
    from .lowering.externals import link_items

    items = link_items(builder)
    for callee in builder._device_symbols:
        for item in callee.dispatcher.targetoptions.get("link") or ():
            if item not in items:
                items.append(item)
    return items


def emit(pyfunc, argtypes, stage, cc, options=None):
    """The text of one pipeline stage for *pyfunc* compiled as a kernel."""
    from .codegen import pipeline

    if stage not in EMIT_STAGES:
        raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(EMIT_STAGES)}")
    typed = type_function(pyfunc, argtypes)
    if stage == "typed":
        return typed.dump()
    options = options or CompileOptions()
    builder, _ = lower_kernel(typed, options=options)
    with builder.context:
        module = builder.module
        if stage == "mlir":
            return str(module)
        pipeline.set_target(module, cc, options)
        if options.backend == "nvvm" and stage in ("llvm", "ptx"):
            from .codegen import nvvm

            pipeline.run_until(module, "llvm", options)
            if stage == "llvm":
                return nvvm.llvm_ir(module, cc, options)  # what libNVVM reads
            return nvvm.compile_module(module, cc, options, "ptx").decode()
        last = {"optimized": "optimize", "llvm": "llvm", "ptx": "ptx"}[stage]
        pipeline.run_until(module, last, options)
        if stage == "optimized":
            return str(module)
        if stage == "llvm":
            return pipeline.llvm_ir_of(module)
        return pipeline.ptx_of(module)


# ---- device functions compiled on their own (the compile API) -------------------------

OUTPUTS = ("ptx", "ltoir", "llvm")


@dataclass
class CompiledDevice:
    symbol: str  # the function's name in the PTX / LTO-IR / LLVM IR
    code: object  # PTX text, LTO-IR bytes or LLVM IR text
    return_type: object
    cc: tuple


def device_entry(pyfunc, argtypes, return_type=None):
    """The DeviceFunction compiling *pyfunc* for *argtypes* (the return type inferred unless given)."""
    from .dispatcher import DeviceFunction, Dispatcher

    dispatcher = pyfunc if isinstance(pyfunc, Dispatcher) else Dispatcher(pyfunc, device=True)
    if return_type is None:
        return dispatcher.compile_device(argtypes)
    return DeviceFunction(dispatcher, type_function(dispatcher.py_func, argtypes, return_type))


def lower_device(callee, symbol, abi, options=None):
    """A ModuleBuilder holding *callee* behind a public function *symbol* with ABI *abi*."""
    from .lowering.entry import add_entry
    from .lowering.module import ModuleBuilder
    from .typing.context import typing_context

    builder = ModuleBuilder(typing_context(), options)
    add_entry(builder, callee, symbol, abi)
    return builder


def device_code(callee, symbol, cc, abi="c", output="ptx", options=None):
    """Compile the DeviceFunction *callee* on its own into *output* for compute capability *cc*."""
    from .codegen import nvvm, pipeline

    if output not in OUTPUTS:
        raise ValueError(f"unknown output {output!r}; choose one of {', '.join(OUTPUTS)}")
    options = options or CompileOptions()
    builder = lower_device(callee, symbol, abi, options)
    with builder.context:
        pipeline.set_target(builder.module, cc, options)
        if output == "ptx":
            code = _ptx(builder.module, cc, options)
        else:
            pipeline.run_until(builder.module, "llvm", options)
            code = _llvm_ir(builder.module) if output == "llvm" else nvvm.compile_module(builder.module, cc, options, "ltoir")
    return CompiledDevice(symbol=symbol, code=code, return_type=callee.typed.return_type, cc=cc)


NVPTX_TRIPLE = "nvptx64-nvidia-cuda"


def _llvm_ir(module):
    """LLVM IR text with the NVPTX data layout and triple, for host-side JIT linkers."""
    from mlir import ir

    from .codegen import pipeline

    pipeline.gpu_module_of(module).attributes["llvm.target_triple"] = ir.StringAttr.get(NVPTX_TRIPLE)
    return pipeline.llvm_ir_of(module)


def _ptx(module, cc, options):
    """PTX of a freshly lowered module, through the chosen code-generation path (options.backend)."""
    from .codegen import nvvm, pipeline

    if options.backend == "nvvm":
        pipeline.run_until(module, "llvm", options)
        return nvvm.compile_module(module, cc, options, "ptx").decode()
    pipeline.run_until(module, "ptx", options)
    return pipeline.ptx_of(module)
