"""Lowering rules for the CUDA thread-indexing intrinsics of ``cumlir.cuda``."""

from mlir import ir
from mlir.dialects import arith, nvvm
from numba.core import types

from ..cuda import stubs
from ..typing.cudatypes import Dim3Register
from .registry import lower, lower_getattr

_SPECIAL_REGISTERS = {
    "threadIdx": (nvvm.ThreadIdXOp, nvvm.ThreadIdYOp, nvvm.ThreadIdZOp),
    "blockIdx": (nvvm.BlockIdXOp, nvvm.BlockIdYOp, nvvm.BlockIdZOp),
    "blockDim": (nvvm.BlockDimXOp, nvvm.BlockDimYOp, nvvm.BlockDimZOp),
    "gridDim": (nvvm.GridDimXOp, nvvm.GridDimYOp, nvvm.GridDimZOp),
}
_AXES = {"x": 0, "y": 1, "z": 2}


def read_register(register, axis):
    """An i32 read of a PTX special register, e.g. ("threadIdx", 0) for %tid.x."""
    return _SPECIAL_REGISTERS[register][axis](ir.IntegerType.get_signless(32)).result


@lower_getattr(Dim3Register, "x")
@lower_getattr(Dim3Register, "y")
@lower_getattr(Dim3Register, "z")
def dim3_component(lower, ty, value, attr):
    return read_register(ty.register, _AXES[attr])


def _wide(register, axis):
    return arith.extui(ir.IntegerType.get_signless(64), read_register(register, axis))


def _global_id(axis):
    # int64 arithmetic so that grids of more than 2**31 threads index correctly
    block_start = arith.muli(_wide("blockIdx", axis), _wide("blockDim", axis))
    return arith.addi(block_start, _wide("threadIdx", axis))


def _threads_in_grid(axis):
    return arith.muli(_wide("blockDim", axis), _wide("gridDim", axis))


def _per_axis(lower, sig, compute):
    ty = sig.return_type
    if isinstance(ty, types.UniTuple):
        return lower.make_struct(ty, [compute(axis) for axis in range(ty.count)])
    return compute(0)


@lower(stubs.grid, types.Any)
def grid(lower, sig, args):
    return _per_axis(lower, sig, _global_id)


@lower(stubs.gridsize, types.Any)
def gridsize(lower, sig, args):
    return _per_axis(lower, sig, _threads_in_grid)
