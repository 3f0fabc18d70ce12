"""A module that calls libdevice names its bitcode in its NVVM target's ``link``: the MLIR
contexts cumlir makes hold an empty module where MLIR would link its built-in copy into
every module (libdevice_bitcode.py says why)."""

from __future__ import annotations

from mlir import ir

from ...libdevice_bitcode import ROUTINE_PREFIX, path


def add_where_called(gpu_module: ir.Operation) -> None:
    """Add libdevice to the ``link`` of *gpu_module*'s target if it declares a routine of it."""
    if not _calls_libdevice(gpu_module):
        return
    found = path()
    if found is None:  # MLIR links its own copy
        return
    targets = ir.ArrayAttr(gpu_module.attributes["targets"])
    text = str(targets[0])
    if "link = " in text:  # linked already (a module serialized again)
        return
    linked = ir.Attribute.parse(f'{text[:-1]}, link = ["{found}"]>')
    gpu_module.attributes["targets"] = ir.ArrayAttr.get([linked, *list(targets)[1:]])


def _calls_libdevice(gpu_module: ir.Operation) -> bool:
    for op in gpu_module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "llvm.func" and ir.StringAttr(op.attributes["sym_name"]).value.startswith(ROUTINE_PREFIX):
            return True
    return False
