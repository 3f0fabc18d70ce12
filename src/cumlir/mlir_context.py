"""The MLIR context of each thread. Creating one costs about 10 ms, so a thread makes one,
on first use, and keeps it.

One per thread because MLIR's Python bindings keep per-context tables of the live
operations that two threads must not change at once, and a pass manager belongs to one
context; the modules and pass managers of a thread are its own, so compilations on
different threads run their MLIR stages without sharing any MLIR object. A compilation lowered on one thread
and continued on another still works: its stages enter the module's own context.
"""

import threading


class _ThreadMLIR(threading.local):
    # the pass managers are listed first: when a thread ends its attributes are freed in
    # this order, and a pass manager must go before the context it was made in
    pass_managers: dict
    context: object

    def __init__(self):
        self.pass_managers = {}  # textual pipeline -> its PassManager in this thread's context
        self.context = None


_thread = _ThreadMLIR()


def mlir_context():
    """This thread's MLIR context."""
    if _thread.context is None:
        from mlir import ir

        _thread.context = ir.Context()
    return _thread.context


def thread_pass_managers(context):
    """The pass managers kept for *context* (pipeline -> PassManager) when it is this thread's
    context, else None (a module of another thread's context: its pass managers are made
    afresh)."""
    return _thread.pass_managers if context is _thread.context else None
