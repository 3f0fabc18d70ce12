"""What every part of the simulator's CUDA driver shares: the lock on its tables, the lock
device work runs under (one piece at a time), handles, and each thread's context stack."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

tables_lock = threading.RLock()  # the tables: allocations, frees and launches come from many threads
# held while work runs (a launch, a copy): one at a time, and what synchronizes waits for it.
# Frees never wait for it (they run from finalizers, maybe on a thread the running launch
# waits for); what they free while work runs on another thread lives until that work ends.
_work = threading.RLock()
_retired: list[np.ndarray] = []  # buffers freed while work ran on another thread

handles = itertools.count(0x1000, 0x10)  # streams, events, modules, functions: never 0, 1 or 2
_thread = threading.local()  # .stack: this OS thread's context stack, as the driver keeps one per thread


def as_int(handle: Any) -> int:
    """A handle or pointer as an int (the runtime passes ints and the bindings' types)."""
    return 0 if handle is None else int(handle)


def context_stack() -> list[int]:
    stack: list[int] | None = getattr(_thread, "stack", None)
    if stack is None:
        stack = _thread.stack = []
    return stack


def current_context() -> int:
    stack = context_stack()
    return stack[-1] if stack else 0


def let_go(buffer: np.ndarray) -> None:
    """Let a freed buffer go: now, or, while work runs on another thread, when that work ends."""
    if _work.acquire(blocking=False):  # no work running on another thread: the bytes go now
        _work.release()
    else:  # a kernel on another thread may still use them
        _retired.append(buffer)


class Working:
    """``with Working():`` runs device work: one piece at a time; buffers freed meanwhile
    are let go when it ends."""

    def __enter__(self) -> None:
        _work.acquire()

    def __exit__(self, *exc: object) -> None:
        try:
            if _retired:
                with tables_lock:
                    _retired.clear()
        finally:
            _work.release()


def wait_for_work() -> None:
    """What synchronizing waits for: a launch or copy another thread is running."""
    with Working():
        pass
