"""The PTX special registers of thread indexing, read as NVVM ops: what ``cuda.threadIdx``
and its kin lower to, and what the grid-stride loops of codegen/passes/parallel_loops.py
read."""

from .modules import ir, nvvm

# register -> (the NVVM op class prefix, the PTX special register)
REGISTERS = {
    "threadIdx": ("ThreadId", "tid"),
    "blockIdx": ("BlockId", "ctaid"),
    "blockDim": ("BlockDim", "ntid"),
    "gridDim": ("GridDim", "nctaid"),
}


def read_register(register, axis):
    """An i32 read of a PTX special register, e.g. ("threadIdx", "x") for %tid.x."""
    op = getattr(nvvm, f"{REGISTERS[register][0]}{axis.upper()}Op")
    return op(ir.IntegerType.get_signless(32)).result
