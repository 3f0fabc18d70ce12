"""What a process's first kernel will wait for and that runs without the GIL, started on
another thread at the first launch: the driver (cuInit, and the primary context of the
machine's only GPU) and the nvJitLink library where it links. Both then load while numba types the
arguments, MLIR is imported and the kernel compiles, instead of one after the other."""

from __future__ import annotations

import threading

from ..linking import load_library
from . import driver as drv

_started: list[threading.Thread] = []  # the warming thread, once started
_lock = threading.Lock()


def start() -> None:
    """Start the warm-up, once per process. Failures (no GPU, no driver) are left for the
    first real use to report."""
    if _started or drv.initialised():
        return
    with _lock:
        if not _started:
            thread = threading.Thread(target=_warm, name="cumlir-warm-up", daemon=True)
            _started.append(thread)
            thread.start()


def _warm() -> None:
    for step in (_driver_and_context, load_library):
        try:
            step()
        except Exception:  # reported where it matters, by the call that needs it
            pass


def _driver_and_context() -> None:
    # with several GPUs the launch may be meant for another device (one another library made
    # current on the launching thread, say): retaining device 0's context would cost it memory
    if drv.device_count() == 1:
        drv.context_for(0)
