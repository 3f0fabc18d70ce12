"""Shared arrays aligned as the module's operations need (marks.SHARED_ALIGNMENT): a TMA copy of
a box faults at run time (misaligned address) unless its shared array starts on 128 bytes,
and the array's type cannot say where it starts, so every shared array of a module that copies
boxes is raised to that alignment. An alignment asked for with ``alignment=`` that is larger
stays."""

from __future__ import annotations

from mlir import ir

from ...marks import DYNAMIC_SHARED_ROUNDED, SHARED_ALIGNMENT

_SHARED = 3  # the NVPTX address space of shared memory


def apply(gpu_module: ir.Operation) -> None:
    # a dynamic buffer whose arrays round their start up keeps the 16 bytes it is given:
    # declaring more would let LLVM drop the rounding
    rounded = None
    if DYNAMIC_SHARED_ROUNDED in gpu_module.attributes:
        rounded = ir.StringAttr(gpu_module.attributes[DYNAMIC_SHARED_ROUNDED]).value
        del gpu_module.attributes[DYNAMIC_SHARED_ROUNDED]
    if SHARED_ALIGNMENT not in gpu_module.attributes:
        return
    least = ir.IntegerAttr(gpu_module.attributes[SHARED_ALIGNMENT]).value
    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name == "llvm.mlir.global" and _address_space(op) == _SHARED:
            if ir.StringAttr(op.attributes["sym_name"]).value == rounded:
                continue
            current = ir.IntegerAttr(op.attributes["alignment"]).value if "alignment" in op.attributes else 0
            if current < least:
                op.attributes["alignment"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), least)
    del gpu_module.attributes[SHARED_ALIGNMENT]


def _address_space(op: ir.OpView) -> int:
    if "addr_space" not in op.attributes:
        return 0
    return ir.IntegerAttr(op.attributes["addr_space"]).value
