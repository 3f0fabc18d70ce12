"""Synchronization: ``syncthreads()``."""

from . import Stub, nvvm_ops
from ._modules import nvvm, templates, types


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
