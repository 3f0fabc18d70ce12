"""Line tables (``lineinfo``, ``debug`` on the nvptx path; always for the simulator's "cpu",
whose reports name lines): a debug scope on every LLVM function, so that NVPTX writes
``.file``/``.loc`` and the host's code keeps ``!DILocation``s. The "nvvm" printer writes its
own (codegen/nvvm/llvm7_debug.py)."""

from __future__ import annotations

from mlir import ir

from .pipeline import pass_manager

LINE_TABLES = "builtin.module(ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly})"


def add(module: ir.Module) -> None:
    """Give every LLVM function of *module* a debug scope (line tables only), in place."""
    _known_call_sites(module)
    pass_manager(LINE_TABLES).run(module.operation)


def _known_call_sites(module: ir.Module) -> None:
    """Operations inlined from a location-less origin (constants) are located at
    ``callsite(unknown at caller)``; ensure-debug-info-scope-on-llvm-func crashes on those
    (MLIR 22), so they are given their caller's location."""

    unknown = ir.Location.unknown()

    def known(location: ir.Location) -> ir.Location:
        if not location.is_a_callsite():
            return location
        callee, caller = known(location.callee), known(location.caller)
        if callee == unknown:
            return caller
        if callee == location.callee and caller == location.caller:
            return location
        return ir.Location.callsite(callee, [caller])

    def visit(op: ir.Operation) -> ir.WalkResult:
        location = op.location
        if location.is_a_callsite():
            op.location = known(location)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
