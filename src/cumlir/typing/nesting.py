"""Room on the Python stack for chains of device functions.

numba types a call by typing its callee there and then, inside the caller's type inference
(about 20 Python frames a level), and lowering emits a callee at its first call the same
way, so a chain of device functions each calling the next nests the compiler as deep as the
chain: Python's default limit of 1,000 frames stops it near 50. While a compilation runs,
the process's recursion limit is raised to ``FRAMES`` (the limit is the process's, so it is
raised once for every thread compiling and put back when the last of them is done, unless
someone else changed it meanwhile), and a chain deeper than ``MAX_DEPTH`` is refused with
an error naming the function, before the stack could run out.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

from numba.core import errors

MAX_DEPTH = 400  # device functions typed one inside another
FRAMES = 12_000  # covers MAX_DEPTH levels of typing and lowering, well within an 8 MiB C stack

_lock = threading.Lock()
_holders = 0  # compilations running under the raised limit
_restore: int | None = None  # the limit before it was raised
_local = threading.local()  # .depth: device functions being typed in this thread


@contextlib.contextmanager
def room_to_nest() -> Iterator[None]:
    """The recursion limit at least ``FRAMES`` while the block runs."""
    global _holders, _restore
    with _lock:
        if _holders == 0 and sys.getrecursionlimit() < FRAMES:
            _restore = sys.getrecursionlimit()
            sys.setrecursionlimit(FRAMES)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _restore is not None:
                if sys.getrecursionlimit() == FRAMES:
                    sys.setrecursionlimit(_restore)
                _restore = None


class CallsTooDeep(errors.UnsupportedError):
    """A chain of device functions deeper than MAX_DEPTH. Raised through every level of the
    chain, it keeps its one message (numba would add each caller's line to it)."""

    def add_context(self, msg: str) -> CallsTooDeep:
        return self


@contextlib.contextmanager
def nested_typing(name: str) -> Iterator[None]:
    """Typing the device function *name* inside the typing of its callers."""
    depth = getattr(_local, "depth", 0) + 1
    if depth > MAX_DEPTH:
        raise CallsTooDeep(f"device functions call one another more than {MAX_DEPTH} deep, the deepest {name}")
    _local.depth = depth
    try:
        with room_to_nest():
            yield
    finally:
        _local.depth = depth - 1
