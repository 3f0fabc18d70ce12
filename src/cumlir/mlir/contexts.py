"""The MLIR context of each thread. Creating one costs about 10 ms, so a thread makes one,
on first use, and keeps it for CONTEXT_USES compilations: a context keeps every type and
attribute made in it (kernel names, constants, source locations) until it is freed, so a
process compiling ever new kernels would grow without end.

One per thread because MLIR's Python bindings keep per-context tables of the live
operations that two threads must not change at once, and a pass manager belongs to one
context; the modules and pass managers of a thread are its own, so compilations on
different threads run their MLIR stages without sharing any MLIR object. A compilation lowered on one thread
and continued on another still works: its stages enter the module's own context.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..lazy import lazy
from ..libdevice_bitcode import hold_empty_library

if TYPE_CHECKING:
    from mlir import ir as mlir_ir

ir = lazy("mlir.ir")  # loaded by the first context made: what imports this module needs no MLIR
CONTEXT_USES = 256  # compilations a context serves; a fresh one costs 10 ms, 0.04 ms a compilation


class _ThreadMLIR(threading.local):
    # the pass managers are listed first: when a thread ends its attributes are freed in
    # this order, and a pass manager must go before the context it was made in
    pass_managers: dict
    context: object
    uses: int

    def __init__(self) -> None:
        self.pass_managers = {}  # textual pipeline -> its PassManager in this thread's context
        self.context = None
        self.uses = 0


_thread = _ThreadMLIR()


def mlir_context() -> mlir_ir.Context:
    """This thread's MLIR context, for one compilation. Modules made in a context this thread
    has since replaced keep theirs alive and finish in it."""
    if _thread.context is None or _thread.uses >= CONTEXT_USES:
        _thread.pass_managers = {}
        _thread.context = ir.Context()
        hold_empty_library(_thread.context)  # libdevice only where a module calls it
        _thread.uses = 0
    _thread.uses += 1
    return _thread.context


def thread_pass_managers(context: mlir_ir.Context) -> dict[str, mlir_ir.PassManager] | None:
    """The pass managers kept for *context* (pipeline -> PassManager) when it is this thread's
    context, else None (a module of another thread's context: its pass managers are made
    afresh)."""
    return _thread.pass_managers if context is _thread.context else None
