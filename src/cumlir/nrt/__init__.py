"""cumlir's device runtime (NRT): reference-counted memory for arrays made in device code.

The runtime is written in MLIR's LLVM dialect (``nrt.mlir``; its API, for CUDA C++ link
items, is the public header ``nrt.cuh``) and compiled by cumlir's own code generators on
first use for each chip and code format, kept for the process (``compiled.py``): NVPTX makes its PTX,
libNVVM its LTO-IR, so that kernels that allocate need neither NVRTC nor libNVVM. Kernels
whose code allocates, and kernels linking an item marked ``nrt=True``, get it as one more
link item (compiler.py). docs/nrt.md describes the API and its ownership rules.
"""

import os

from ..linkable import LTOIR, PTXSource

# the runtime's symbols that cumlir's generated code calls or reads
ALLOCATE = "NRT_MemInfo_alloc_aligned"
INCREF = "NRT_incref"
DECREF = "NRT_decref"
STATS_GLOBAL = "cumlir_nrt_stats"
STATS_FIELDS = ("alloc", "free", "mi_alloc", "mi_free")  # the order of the global's words
RUNTIME_NAME = "cumlir_nrt"  # the link item's name, in link lists and nvJitLink's messages


def include_dir() -> str:
    """The directory holding ``nrt.cuh``, for ``#include <nrt.cuh>`` (``-I`` to NVRTC or nvcc)."""
    return os.path.dirname(os.path.abspath(__file__))


def source() -> str:
    """The runtime's MLIR (a gpu.module in the LLVM dialect)."""
    with open(os.path.join(include_dir(), "nrt.mlir")) as f:
        return f.read()


def is_runtime(item: object) -> bool:
    """Whether a link item is the runtime itself (so that it is linked once)."""
    return isinstance(item, (PTXSource, LTOIR)) and item.name == RUNTIME_NAME
