"""SASS listings of cubins with nvdisasm (from the nvidia-cuda-nvdisasm wheel of the extra
``cumlir[tools]``, or a CUDA toolkit, found by cuda-pathfinder)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence

from cuda import pathfinder

_MISSING = (
    "nvdisasm was not found: it comes with cumlir's command-line tools (pip install 'cumlir[tools]') or a CUDA toolkit"
)


def nvdisasm(cubin: bytes, flags: Sequence[str]) -> str:
    """nvdisasm's output for the cubin bytes *cubin* with the command-line *flags*."""
    path = pathfinder.find_nvidia_binary_utility("nvdisasm")
    if path is None:
        raise RuntimeError(_MISSING)
    fd, name = tempfile.mkstemp(suffix=".cubin")  # nvdisasm reads only files
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        done = subprocess.run([path, *flags, name], capture_output=True)
    finally:
        os.unlink(name)
    if done.returncode:
        raise RuntimeError(f"nvdisasm failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode()


def sass(cubin: bytes) -> str:
    """The SASS of a cubin, with line information where the cubin has it."""
    return nvdisasm(cubin, ["-gi"])


def sass_cfg(cubin: bytes) -> str:
    """The control-flow graph of a cubin's SASS, in Graphviz DOT."""
    return nvdisasm(cubin, ["-cfg"])
