"""The names of Numba-CUDA's API that cumlir refuses, each with why and what to use instead.

Reading one of them (``cuda.simulator``, ``kernel.stats`` ...) raises
NotImplementedError with that text. Every other public name of Numba-CUDA 0.30's
``numba.cuda`` namespace and of its kernel dispatcher exists in cumlir and behaves the
same; tests/test_numba_cuda_namespace.py checks both against an installed Numba-CUDA, and
docs/compatibility.md lists every name with its status.
"""

from typing import NoReturn

_INTERNAL = "an internal module of Numba-CUDA that its namespace exposes by accident, not part of its API"
_STDLIB = "a module Numba-CUDA's namespace exposes only because its code imports it, not part of its API"


def _internal(instead: str) -> str:
    return f"{_INTERNAL}; {instead}"


def _stdlib(module: str) -> str:
    return f"{_STDLIB}; import {module} yourself"


# numba.cuda.<name> -> why cumlir refuses it and what to use instead
NAMESPACE = {
    # Numba-CUDA's own modules
    "api": _internal("its functions are cumlir.cuda's (cuda.device_array, cuda.to_device ...)"),
    "api_util": _internal("cuda.device_array takes the shape, strides and dtype directly"),
    "args": _internal("the argument wrappers are cuda.In, cuda.Out and cuda.InOut"),
    "cache_hints": _internal("its loads and stores are cuda.ldca, cuda.ldcg, ..., cuda.stwt"),
    "cext": _internal("cumlir has no C extension"),
    "cgutils": _internal("cumlir lowers to MLIR, not llvmlite; see cumlir.extending"),
    "cloudpickle": _internal(
        "the copy of cloudpickle Numba-CUDA serializes functions with; nothing in it is for users"
    ),
    "codegen": _internal("cumlir's code generators are selected with the backend= option of cuda.jit"),
    "compiler": _internal("compile with cuda.compile, cuda.compile_ptx or the dispatcher's inspect_* methods"),
    "core": _internal("Numba-CUDA's copy of numba.core; cumlir uses numba's own numba.core"),
    "cpython": _internal(
        "Numba-CUDA's copies of numba's implementations of Python's builtins; cumlir types and lowers those itself"
    ),
    "cuda_paths": _internal("cumlir finds the CUDA libraries of the pip wheels with cuda-pathfinder"),
    "cudadrv": _internal(
        "use cuda.current_context(), cuda.get_current_device() and cuda.gpus; the driver itself is cuda.bindings.driver"
    ),
    "datamodel": _internal("see cumlir.extending for data models"),
    "debuginfo": _internal("line tables come from cuda.jit(lineinfo=True) or debug=True"),
    "descriptor": _internal("cumlir has its own typing context"),
    "device_init": _internal("its names are cumlir.cuda's"),
    "deviceufunc": _internal("use cuda.vectorize and cuda.guvectorize"),
    "devices": _internal("use cuda.gpus, cuda.select_device and cuda.current_context()"),
    "dispatcher": _internal(
        "@cuda.jit returns cumlir's dispatcher; its methods are documented in docs/compatibility.md"
    ),
    "driver": _internal(
        "use cuda.current_context(), cuda.get_current_device(); the driver itself is cuda.bindings.driver"
    ),
    "errors": _internal(
        "cuda.KernelRuntimeError and cuda.CudaSupportError are in cumlir.cuda; typing errors are numba.core.errors"
    ),
    "extending": _internal("cumlir's extension API is the module cumlir.extending"),
    "flags": _internal("compile options are the keywords of cuda.jit"),
    "initialize": _internal("cumlir initialises the driver on first use"),
    "intrinsics": _internal("the intrinsics are names of cumlir.cuda (cuda.grid, cuda.syncthreads ...)"),
    "itanium_mangler": _internal("cumlir names device functions itself"),
    "kernels": _internal("the reduction kernel is cuda.reduce"),
    "launchconfig": _internal("a launch is configured with kernel[griddim, blockdim, stream, sharedmem]"),
    "literal": _internal("cuda.literal_unroll is in cumlir.cuda"),
    "locks": _internal("Numba-CUDA's compiler lock; nothing in it is for users"),
    "lowering": _internal("cumlir lowers to MLIR; see cumlir.extending"),
    "mathimpl": _internal("the math module in kernels is cumlir's"),
    "memory_management": _internal(
        "Numba-CUDA's reference-counting runtime (NRT); cumlir has its own: cuda.jit(nrt=True), "
        "its counters cuda.nrt_stats() (rtsys.get_allocation_stats()), its C++ header in cumlir.nrt.include_dir() "
        "(see nrt.md)"
    ),
    "misc": _internal("cuda.literal_unroll is in cumlir.cuda"),
    "models": _internal("see cumlir.extending for data models"),
    "nvvm": _internal("select the libNVVM code generator with cuda.jit(backend='nvvm') or CUMLIR_BACKEND=nvvm"),
    "nvvmutils": _internal("cumlir lowers to MLIR"),
    "reduction": _internal("the reduction kernel is cuda.reduce"),
    "serialize": _internal("Numba-CUDA's pickling helpers; nothing in it is for users"),
    "simulator": (
        "Numba-CUDA's CUDA simulator (NUMBA_ENABLE_CUDASIM) runs kernels in Python threads; cumlir has "
        "no simulator: compile to PTX without a GPU with cuda.compile_ptx(..., cc=(9, 0))"
    ),
    "stubs": _internal("the stubs are names of cumlir.cuda (cuda.threadIdx, cuda.shared ...)"),
    "target": _internal("cumlir has its own target"),
    "typeconv": _internal("numba's numba.core.typeconv is used"),
    "typing": _internal("see cumlir.extending for typing"),
    "ufuncs": _internal("NumPy ufuncs in kernels are typed and lowered by cumlir"),
    "utils": _internal("nothing in it is public"),
    "vectorizers": _internal("use cuda.vectorize and cuda.guvectorize"),
    # modules of Python and NumPy
    "contextlib": _stdlib("contextlib"),
    "importlib": _stdlib("importlib"),
    "np": _stdlib("numpy"),
    "os": _stdlib("os"),
    "sys": _stdlib("sys"),
    "warnings": _stdlib("warnings"),
    # left over from code that builds the namespace
    "alias": "a loop variable Numba-CUDA's namespace keeps by accident (the last vector type alias it made), not part of its API",
    # types of values cumlir types differently
    "Dim3": (
        "Numba-CUDA's numba type of threadIdx, blockIdx, blockDim and gridDim used as values; cumlir types "
        "them as stub namespaces whose .x, .y and .z are int32: read the components (cuda.threadIdx.x)"
    ),
    "dim3": "the instance of Numba-CUDA's Dim3 type; see Dim3: read the components (cuda.threadIdx.x)",
    "GridGroup": (
        "Numba-CUDA's numba type of cuda.cg.this_grid(); in cumlir that value's type is cuda.cg.grid_group.numba_type"
    ),
    "grid_group": "the instance of Numba-CUDA's GridGroup type; in cumlir it is cuda.cg.grid_group.numba_type",
    # constants of Numba-CUDA's configuration
    "config_default_cc": (
        "a default compute capability of Numba-CUDA's configuration; cumlir compiles for the current "
        "device, or for the cc= given to cuda.compile/compile_ptx"
    ),
    "numba_cuda_default_ptx_cc": (
        "the compute capability Numba-CUDA's compile_ptx uses when none is given; cumlir's compiles for "
        "the current device, so give cc= where there is no GPU"
    ),
}


_NUMBA_INTERNAL = "part of Numba's dispatcher machinery, which cumlir's dispatcher does not have"

# CUDADispatcher.<name> -> why cumlir's Dispatcher refuses it and what to use instead
DISPATCHER = {
    "add_overload": f"{_NUMBA_INTERNAL}; compile a signature with kernel.compile(sig)",
    "get_compile_result": f"{_NUMBA_INTERNAL}; the compiled kernel of a signature is kernel.compile(sig) (or kernel.overloads)",
    "get_annotation_info": f"{_NUMBA_INTERNAL}; print the typed IR with kernel.inspect_types()",
    "get_function_type": "first-class function types of kernels are not supported; call device functions directly",
    "targetdescr": f"{_NUMBA_INTERNAL} (the target descriptor of Numba-CUDA); cumlir has its own typing context",
    "inspect_cfg": "control-flow graphs of the LLVM IR are not supported; use kernel.inspect_llvm() or inspect_mlir()",
    "inspect_disasm_cfg": (
        "Numba's rendered control-flow graph of the disassembly is not supported; use "
        "kernel.inspect_sass_cfg() (Graphviz DOT) or kernel.inspect_sass()"
    ),
    "stats": (
        "Numba's cache statistics object does not exist in cumlir; kernel.compile_stats gives, per signature, "
        "the time of each stage and whether the on-disk cache hit"
    ),
}


_BLACKWELL = "needs a Blackwell GPU to test (tcgen05, sm_100); not implemented in cumlir"

# numba-cuda-mlir 0.6's names beyond Numba-CUDA's: namespace -> {name: why cumlir refuses it};
# tests/test_ncm_namespace.py checks them against tests/numba_cuda_mlir_names.json

NUMBA_CUDA_MLIR: dict[str, dict[str, str]] = {
    "cuda": {},
    "cuda.experimental": {
        "tcgen05_descriptors": f"tcgen05 (tensor memory) descriptors: {_BLACKWELL}",
    },
    "cuda.intrin": {
        **dict.fromkeys(
            (
                "encode_instr_descriptor encode_smem_descriptor tcgen05_alloc tcgen05_alloc_2cta "
                "tcgen05_commit_arrive tcgen05_dealloc tcgen05_dealloc_2cta tcgen05_ld tcgen05_ld_x2 "
                "tcgen05_mma tcgen05_mma_2cta tcgen05_relinquish_alloc_permit "
                "tcgen05_relinquish_alloc_permit_2cta"
            ).split(),
            _BLACKWELL,
        ),
        **dict.fromkeys(
            [f"round_ndigits_type_f{f}_type_i{i}" for f in (32, 64) for i in (32, 64)],
            "numba-cuda-mlir's helper behind round(x, ndigits); call round(x, ndigits), which cumlir compiles",
        ),
        "breakpoint": "PTX's brkpt is not implemented in cumlir; debug kernels with debug=True and print()",
        "define": (
            "functions written in MLIR are declared in cumlir through cumlir.extending: a lowering "
            "callback emits the MLIR (extending.md)"
        ),
        "warp_idx": "not implemented in cumlir; use cuda.threadIdx.x // 32 (the warp's index in a 1-D block)",
    },
}


_HANDLERS = (
    "numba-cuda-mlir's module of the ArgumentHandler protocol; cumlir.extending is one module: "
    "import ArgumentHandler from cumlir.extending"
)
_PLANNERS = (
    "whole-function planners rewrite numba-cuda-mlir's Numba IR after inlining and before typing; cumlir "
    "has no such pass. Type calls with templates or @overload, and let the code depend on the launch "
    "with extending.require_launch_config and extending.set_required_dynamic_shared_memory from typing or lowering"
)

# numba_cuda_mlir.extending.<name> -> why cumlir.extending refuses it and what to use instead
EXTENDING = {
    "argument_handler": _HANDLERS,
    "WholeFunctionPlanner": _PLANNERS,
    "register_planner": _PLANNERS,
}

_OWNERS = {
    "cuda": ("numba.cuda", NAMESPACE),
    "dispatcher": ("Numba-CUDA's kernel dispatcher", DISPATCHER),
    "extending": ("numba_cuda_mlir.extending", EXTENDING),
}


def refusal(name: str, where: str = "cuda") -> NotImplementedError:
    """The NotImplementedError for reading the refused *name* of the ``cuda`` namespace,
    of a kernel (``where="dispatcher"``) or of ``cumlir.extending`` (``where="extending"``)."""
    owner, table = _OWNERS[where]
    return NotImplementedError(f"cumlir does not provide {name!r} of {owner}: {table[name]}")


class Refused:
    """A class attribute of the dispatcher that raises the refusal of *name* when read."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> NoReturn:
        raise refusal(self.name, "dispatcher")


def numba_cuda_mlir_refusal(namespace: str, name: str) -> NotImplementedError:
    """The NotImplementedError for reading *name* of numba-cuda-mlir's *namespace*
    (``"cuda"``, ``"cuda.experimental"``, ``"cuda.intrin"``), refused above."""
    why = NUMBA_CUDA_MLIR[namespace][name]
    return NotImplementedError(f"cumlir does not provide {name!r} of numba-cuda-mlir's {namespace}: {why}")
