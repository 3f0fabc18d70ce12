"""Freeing driver resources, now or, inside ``defer_cleanup()``, when the outermost such
block ends: a free (cuMemFree, cuMemFreeHost) can synchronize the device, which the
block keeps out of code that must stay asynchronous."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from . import driver as drv

_lock = threading.Lock()
_depth = 0
# (driver function name or a function, handle) freed when the outermost block ends
_pending: list[tuple[str | Callable[[object], object], object]] = []


def release(function: str | Callable[[object], object], handle: object, made_in: tuple[int, int] | None = None) -> None:
    """Call the driver's *function* (a name, e.g. "cuMemFree", or a function of one argument)
    on *handle*, now or deferred,
    unless the context it was made in (*made_in*, ``driver.lifetime()``) was reset since:
    the reset freed it. Errors are ignored: this runs from finalizers, also at interpreter
    shutdown."""
    try:
        if made_in is not None and not drv.alive(made_in):
            return
    except (TypeError, AttributeError):  # interpreter shutdown: module globals may be None already
        return
    if _depth:
        with _lock:
            if _depth:
                _pending.append((function, handle))
                return
    try:
        _free(function, handle)
    except TypeError:  # interpreter shutdown: this module's globals are already None
        pass


def _free(function: str | Callable[[object], object], handle: object) -> None:
    try:
        cu = drv._driver
        if cu is None:
            return
        drv.current_context()  # the finalizer may run on a thread with no context current
        (getattr(cu, function) if isinstance(function, str) else function)(handle)
    except Exception:  # interpreter shutdown
        pass


def deferring() -> bool:
    """Whether a ``defer_cleanup()`` block is open (frees wait for it)."""
    return _depth > 0


def pending() -> int:
    """How many frees wait for the outermost ``defer_cleanup()`` block to end."""
    return len(_pending)


def flush() -> None:
    """Free what waits, unless a ``defer_cleanup()`` block is open."""
    with _lock:
        waiting = list(_pending) if not _depth else []
        if not _depth:
            _pending.clear()
    for function, handle in waiting:
        _free(function, handle)


@contextlib.contextmanager
def defer_cleanup() -> Iterator[None]:
    """Hold back frees of device and host memory until the block (the outermost, when
    nested) ends."""
    global _depth
    with _lock:
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            pending = list(_pending) if not _depth else []
            if not _depth:
                _pending.clear()
        for function, handle in pending:
            _free(function, handle)
