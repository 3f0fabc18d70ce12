"""Synchronization: ``syncthreads()``."""

from . import Stub, lazy, nvvm_ops

types = lazy("numba.core.types")
templates = lazy("numba.core.typing.templates")
nvvm = lazy("mlir.dialects.nvvm")

syncthreads = Stub(
    "syncthreads",
    "syncthreads(): wait until every thread of the block has reached this point and the "
    "block's shared and global memory accesses made before it are visible to all of them.",
)

nvvm_ops(nullary={"nvvm.barrier0": "llvm.nvvm.barrier0"})


@syncthreads.cases
def _syncthreads_cases():
    return [templates.signature(types.none)]


@syncthreads.lower
def _syncthreads(lower, sig, args):
    nvvm.Barrier0Op()
