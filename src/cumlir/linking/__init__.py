"""The ``cubin`` stage: PTX, LTO-IR and the other link items -> one cubin for one chip.

Two linkers do it (docs/compiling.md, "Linking"):

- nvJitLink (``nvjitlink.py``; the extras ``nvjitlink`` and ``nvvm``) links every kind of
  item, LTO-IR among them, on a machine with no GPU. Link-time optimisation (``-lto``) is
  switched on whenever any input is LTO-IR; CUDA C++ sources are then compiled by NVRTC to
  LTO-IR too, so that the optimiser sees through every call, else to PTX.
- The CUDA driver's own linker (``driver.py``), which every machine that launches kernels
  has: PTX, cubins, fatbins, objects and libraries, compiled by the driver's ptxas.

nvJitLink links where it is installed, the driver elsewhere; ``CUMLIR_LINKER=driver`` or
``CUMLIR_LINKER=nvjitlink`` chooses one.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence

from .. import nvrtc, optional_libraries
from ..lazy import lazy
from ..linkable import LTOIR, CUSource, LinkableCode, as_linkable, load
from . import driver, nvjitlink
from .common import LinkError, PerformanceWarning, performance_notes

cuda_bindings = lazy("cuda.bindings")  # its version: what the toolkit is where neither nvJitLink nor NVRTC is

__all__ = [
    "LINKERS",
    "LinkError",
    "PerformanceWarning",
    "link_cubin",
    "link_ptx",
    "linker",
    "load_library",
    "toolkit_version",
]

LINKERS = ("nvjitlink", "driver")


def linker() -> str:
    """The linker links go to: ``CUMLIR_LINKER`` where set, else nvJitLink where it is
    installed, else the driver's."""
    chosen = os.environ.get("CUMLIR_LINKER", "").strip().lower()
    if chosen:
        if chosen not in LINKERS:
            raise ValueError(f"CUMLIR_LINKER must be one of {', '.join(LINKERS)}, not {chosen!r}")
        return chosen
    return "nvjitlink" if nvjitlink.available() else "driver"


def linker_identity() -> str:
    """The linker and its version, as the disk cache's key names what made a cubin."""
    if linker() == "nvjitlink":
        return "nvjitlink " + ".".join(map(str, nvjitlink.version()))
    return f"driver {driver.version()}"


def load_library() -> None:
    """Load nvJitLink now where it links (its library takes tens of milliseconds to load,
    without the GIL); the driver's linker needs nothing more."""
    if linker() == "nvjitlink":
        nvjitlink.version()


def toolkit_version() -> tuple[int, int]:
    """(major, minor) of the CUDA toolkit wheels cumlir uses: nvJitLink's version where it
    is installed, else NVRTC's, else the version the driver's bindings were made for."""
    if nvjitlink.available():
        return nvjitlink.version()
    try:
        return nvrtc.version()
    except optional_libraries.MissingLibraryError:
        major, minor = cuda_bindings.__version__.split(".")[:2]
        return (int(major), int(minor))


def link_cubin(
    items: Iterable[object], cc: tuple[int, int], ptxas_options: Sequence[str] = (), arch_specific: bool | str = False
) -> bytes:
    """A cubin for compute capability *cc* (its architecture-specific target, sm_90a, with
    *arch_specific* True or "a"; its family target, sm_100f, with "f") linking every item
    (LinkableCode objects or paths); *ptxas_options* are given to ptxas as it compiles the PTX
    among them."""
    linked = [load(as_linkable(item)) for item in items]
    if _needs_nvjitlink(linked):
        cubin, info = nvjitlink.link(linked, cc, "cubin", tuple(ptxas_options), arch_specific)
    else:
        cubin, info = driver.link(linked, cc, tuple(ptxas_options), arch_specific)
    for note in performance_notes(info):
        warnings.warn(f"ptxas: {note}", PerformanceWarning, stacklevel=2)
    return cubin


def link_ptx(items: Iterable[object], cc: tuple[int, int], arch_specific: bool | str = False) -> str:
    """The PTX nvJitLink's link-time optimiser makes for *cc* from the LTO-IR among *items*
    (CUDA C++ compiled to LTO-IR first); items of other kinds are left out."""
    kept = [item for item in (load(as_linkable(item)) for item in items) if isinstance(item, (LTOIR, CUSource))]
    if not any(isinstance(item, LTOIR) for item in kept):
        raise ValueError("link_ptx needs LTO-IR to optimise (compile with lto=True)")
    ptx, _ = nvjitlink.link(kept, cc, "ptx", (), arch_specific)
    return ptx.rstrip(b"\0").decode()


def _needs_nvjitlink(items: list[LinkableCode]) -> bool:
    """Whether nvJitLink must link *items*: it is the linker, or they hold LTO-IR, which only
    it reads (the driver's linker is then refused by name where it was asked for)."""
    chosen = linker()
    if chosen == "nvjitlink":
        return True
    lto = [item.name for item in items if isinstance(item, LTOIR)]
    if lto and os.environ.get("CUMLIR_LINKER", "").strip().lower() == "driver":
        raise LinkError(f"CUMLIR_LINKER=driver cannot link LTO-IR ({', '.join(lto)}): only nvJitLink reads it")
    if lto:
        optional_libraries.load("nvJitLink")  # raises, naming the extra: nvJitLink is not installed
    return bool(lto)
