"""Kernel parameters passed by value and read in place (TMA tensor maps), marked by lowering
with BY_VALUE_PARAMS (``[index, bytes, alignment]`` each), become ``llvm.byval`` parameters of
that size and alignment, marked ``nvvm.grid_constant``, once the llvm stage has made the
kernels ``llvm.func``s (MLIR's conversion of gpu.func keeps no ``llvm.byval``, and accepts
``nvvm.grid_constant`` on kernels only). LLVM's NVPTX then reads such a parameter where it
lies, its address a generic address of the parameter space (``cvta.param``), never a copy on
the stack; the LLVM 7 printer writes it ``byval`` with a "grid_constant" annotation."""

from __future__ import annotations

from mlir import ir

from ...marks import BY_VALUE_PARAMS

GRID_CONSTANT = "nvvm.grid_constant"


def apply(gpu_module: ir.Operation) -> None:
    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name == "llvm.func" and BY_VALUE_PARAMS in op.attributes:
            _apply_to(op)


def _apply_to(op: ir.OpView) -> None:
    arguments = _argument_attributes(op)
    for entry in ir.ArrayAttr(op.attributes[BY_VALUE_PARAMS]):
        index, size, alignment = ir.DenseI64ArrayAttr(entry)
        storage = ir.Type.parse(f"!llvm.struct<(array<{size // 8} x i64>)>")
        attributes = {named.name: named.attr for named in arguments[index]}
        attributes["llvm.byval"] = ir.TypeAttr.get(storage)
        attributes["llvm.align"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), alignment)
        attributes[GRID_CONSTANT] = ir.UnitAttr.get()
        arguments[index] = ir.DictAttr.get(attributes)
    op.attributes["arg_attrs"] = ir.ArrayAttr.get(arguments)
    del op.attributes[BY_VALUE_PARAMS]


def _argument_attributes(op: ir.OpView) -> list[ir.DictAttr]:
    """The function's argument attribute dictionaries, one per argument."""
    if "arg_attrs" in op.attributes:
        return [ir.DictAttr(a) for a in ir.ArrayAttr(op.attributes["arg_attrs"])]
    count = len(op.regions[0].blocks[0].arguments)
    return [ir.DictAttr.get({}) for _ in range(count)]
