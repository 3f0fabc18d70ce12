"""What a kernel's code needs of its launches, found while it compiles.

An extension may make a kernel's code depend on the launch configuration (a block size
read at compile time: ``require_launch_config``), or ask that every launch give it dynamic
shared memory (``set_required_dynamic_shared_memory``). Both speak of the kernel being
compiled on this thread: the dispatcher records into the kernel's LaunchNeeds while it
types and lowers it (``recording``), and a launch that compiles says which configuration
it compiles for (``launching``). A kernel whose code read the configuration is compiled
again for each other configuration (dispatcher/launching.py); the shared memory asked for
is added to each of its launches.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass

Dim3 = tuple[int, int, int]
LaunchKey = tuple[Dim3, Dim3, int]  # grid, block, dynamic shared memory bytes: what code may depend on


@dataclass
class LaunchNeeds:
    """What one kernel's compilation found it needs of its launches."""

    config: LaunchKey | None = None  # the configuration its code was specialised for (it read it)
    dynamic_shared: int = 0  # bytes of dynamic shared memory each launch must give at least
    # the largest alignment above 16 bytes a dynamic shared array asks for: its start is
    # rounded up in the kernel, so a launch with dynamic shared memory gives that many bytes
    # more where static shared arrays come first (the dynamic ones start where they end)
    dynamic_alignment: int = 0

    @property
    def trivial(self) -> bool:
        return self.config is None and not self.dynamic_shared and not self.dynamic_alignment


_current = threading.local()


@contextlib.contextmanager
def _bound(name: str, value: object) -> Iterator[None]:
    """This thread's *name* is *value* for the block, and what it was afterwards."""
    previous = getattr(_current, name, None)
    setattr(_current, name, value)
    try:
        yield
    finally:
        setattr(_current, name, previous)


def launching(config: LaunchKey | None) -> contextlib.AbstractContextManager[None]:
    """Kernels compiled on this thread meanwhile are compiled for a launch with *config*
    (None: a compilation without a launch, as ``compile_ptx``)."""
    return _bound("config", config)


def recording(needs: LaunchNeeds) -> contextlib.AbstractContextManager[None]:
    """The kernel typed and lowered on this thread meanwhile records its needs into *needs*."""
    return _bound("needs", needs)


@contextlib.contextmanager
def compiling_kernel() -> Iterator[None]:
    """A compilation runs on this thread: where no dispatcher records what its code asks of
    launches (``compile_ptx``: there is no launch), it is taken and dropped."""
    if getattr(_current, "needs", None) is not None:
        yield
        return
    with recording(LaunchNeeds()):
        yield


def compiling() -> bool:
    """Whether a kernel is being typed or lowered on this thread."""
    return getattr(_current, "needs", None) is not None


def _needs(asked: str) -> LaunchNeeds:
    needs = getattr(_current, "needs", None)
    if needs is None:
        raise RuntimeError(f"{asked} is called by extensions while a kernel is compiled (typing or lowering it)")
    return needs


def require_launch_config() -> dict[str, object]:
    """The launch configuration the kernel being compiled is launched with, as
    ``{"grid": (x, y, z), "block": (x, y, z), "sharedmem": bytes, "cluster": None}``; the
    kernel's code may depend on it, and is compiled again for each other configuration."""
    needs = _needs("require_launch_config()")
    config = getattr(_current, "config", None)
    if config is None:
        raise RuntimeError(
            "require_launch_config(): this kernel's code depends on its launch configuration, and it is "
            "being compiled without a launch (compile_ptx, kernel.compile, inspect_*, forall without tpb): "
            "launch it (kernel[grid, block](...)) to compile it"
        )
    needs.config = config
    grid, block, sharedmem = config
    return {"grid": grid, "block": block, "sharedmem": sharedmem, "cluster": None}


def align_dynamic_shared_memory(alignment: int) -> None:
    """A dynamic shared array of the kernel being compiled starts on *alignment* bytes (a power
    of two over 16), rounded up in its code; outside a recorded compilation (a module built
    by hand), nothing is noted."""
    needs = getattr(_current, "needs", None)
    if needs is not None:
        needs.dynamic_alignment = max(needs.dynamic_alignment, alignment)


def require_dynamic_shared_memory(size_in_bytes: object) -> None:
    """Every launch of the kernel being compiled gives it at least *size_in_bytes* of dynamic
    shared memory (the largest of the sizes asked for)."""
    if isinstance(size_in_bytes, bool) or not isinstance(size_in_bytes, int):
        raise TypeError(f"the required dynamic shared memory must be an int of bytes, got {size_in_bytes!r}")
    if size_in_bytes < 0:
        raise ValueError(f"the required dynamic shared memory cannot be negative, got {size_in_bytes}")
    needs = _needs("set_required_dynamic_shared_memory()")
    needs.dynamic_shared = max(needs.dynamic_shared, size_in_bytes)
