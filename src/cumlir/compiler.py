"""The compilation pipeline for one function and one argument-type signature.

    frontend   Python function -> typed Numba IR           (typing/frontend.py)
    lowering   typed IR -> MLIR gpu.module                 (lowering/)
    passes     MLIR -> LLVM dialect -> PTX                  (codegen/pipeline.py)
    link       PTX -> cubin                                (linking.py, at load time)

Everything up to PTX runs without a GPU.
"""

from dataclasses import dataclass

EMIT_STAGES = ("typed", "mlir", "optimized", "llvm", "ptx")


@dataclass
class CompiledKernel:
    typed: object  # TypedFunction
    symbol: str  # the PTX .entry name
    ptx: str
    cc: tuple


def type_function(pyfunc, argtypes, return_type=None):
    from .typing.frontend import type_function as frontend

    return frontend(pyfunc, argtypes, return_type)


def lower_kernel(typed, name=None):
    """A ModuleBuilder holding *typed* as a kernel, and the kernel's symbol."""
    from .lowering.module import ModuleBuilder
    from .typing.context import typing_context

    builder = ModuleBuilder(typing_context())
    symbol = builder.add_kernel(typed, name)
    return builder, symbol


def kernel_ptx(typed, cc, name=None):
    from .codegen import pipeline

    builder, symbol = lower_kernel(typed, name)
    with builder.context:
        pipeline.set_target(builder.module, cc)
        pipeline.run_until(builder.module, "ptx")
        ptx = pipeline.ptx_of(builder.module)
    return CompiledKernel(typed=typed, symbol=symbol, ptx=ptx, cc=cc)


def compile_kernel(pyfunc, argtypes, cc):
    return kernel_ptx(type_function(pyfunc, argtypes), cc)


def emit(pyfunc, argtypes, stage, cc):
    """The text of one pipeline stage for *pyfunc* compiled as a kernel."""
    from .codegen import pipeline

    if stage not in EMIT_STAGES:
        raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(EMIT_STAGES)}")
    typed = type_function(pyfunc, argtypes)
    if stage == "typed":
        return typed.dump()
    builder, _ = lower_kernel(typed)
    with builder.context:
        module = builder.module
        if stage == "mlir":
            return str(module)
        pipeline.set_target(module, cc)
        last = {"optimized": "optimize", "llvm": "llvm", "ptx": "ptx"}[stage]
        pipeline.run_until(module, last)
        if stage == "optimized":
            return str(module)
        if stage == "llvm":
            return pipeline.llvm_ir_of(module)
        return pipeline.ptx_of(module)
