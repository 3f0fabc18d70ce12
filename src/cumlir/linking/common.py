"""What both linkers share: their errors and warnings, the items as they are given to a linker."""

from __future__ import annotations

from ..linkable import CUSource, LinkableCode
from ..nrt import include_dir
from ..nvrtc import compile_source


class LinkError(RuntimeError):
    """The linker failed; the message includes its error log."""


class PerformanceWarning(UserWarning):
    """ptxas, inside the linker, compiled a kernel slower than it is written and said so: one
    of its "Potential Performance Loss" notes (wgmma serialized by a call or an early read of
    the accumulator, say)."""


def link_input(item: LinkableCode, cc: tuple[int, int], lto: bool) -> tuple[str, bytes]:
    """(input kind, as nvJitLink names it, and bytes) of one link item; CUDA C++ is compiled
    first, to LTO-IR where the link optimises, else to PTX."""
    if isinstance(item, CUSource):
        options = (f"-I{include_dir()}",) if item.nrt else ()  # nrt=True: ``#include <nrt.cuh>`` is found
        code = compile_source(item.data, cc, name=item.name, output="ltoir" if lto else "ptx", options=options)
        return ("LTOIR", code) if lto else ("PTX", code.encode())
    assert item.kind is not None
    return item.kind, item.bytes


def performance_notes(log: str) -> list[str]:
    """The "Potential Performance Loss" notes of a linker's info log."""
    return [line.split(":", 1)[-1].strip() for line in log.splitlines() if "Potential Performance Loss" in line]
