"""``cuda.jit(profile_jit=True)``, numba-cuda-mlir's: Python's profiler (cProfile) run over a
kernel's compilation, its statistics printed on stderr by cumulative time (the 50 costliest
functions) and, with ``profile_jit=PATH``, saved to PATH for ``pstats``/snakeviz.

A kernel's compilation may come in parts: typed when its signature is given (at decoration),
then compiled for a chip at its first launch. Each part is profiled and printed as it ends;
the file holds every part of the kernel so far."""

from __future__ import annotations

import contextlib
import cProfile
import pstats
import sys
import threading
from collections.abc import Iterator

_profiling = threading.local()  # one profiler per thread: a compilation inside another is the outer's


class CompileProfile:
    """The profile of one kernel's compilation: *enabled* (profile_jit), saved to *path* where given."""

    def __init__(self, name: str, enabled: bool, path: str | None = None) -> None:
        self.name = name
        self.enabled = enabled
        self.path = path
        self._saved: pstats.Stats | None = None  # every part so far, for the file
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def part(self, what: str) -> Iterator[None]:
        """Profile what runs inside, *what* of the compilation (its typing, its code for a chip)."""
        if not self.enabled or getattr(_profiling, "active", False):
            yield
            return
        profile = cProfile.Profile()
        _profiling.active = True
        profile.enable()
        try:
            yield
        finally:
            profile.disable()
            _profiling.active = False
            self._report(profile, what)

    def _report(self, profile: cProfile.Profile, what: str) -> None:
        print(f"\n--- cProfile for compilation of {self.name} ({what}) ---", file=sys.stderr)
        pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(50)
        if self.path is None:
            return
        with self._lock:
            if self._saved is None:
                self._saved = pstats.Stats(profile)
            else:
                self._saved.add(profile)
            self._saved.dump_stats(self.path)
        print(f"Profile saved to: {self.path}", file=sys.stderr)
