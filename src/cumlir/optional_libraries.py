"""The CUDA libraries that only some features use, installed by cumlir's extras rather than
by ``pip install cumlir``: NVRTC (CUDA C++ link items; the extra ``nvrtc``), libNVVM with
libdevice's bitcode (the ``nvvm`` code generator and LTO-IR; the extra ``nvvm``) and nvJitLink
(cubins without a GPU driver, LTO-IR, any ptxas option; the extra ``nvjitlink``, which ``nvvm``
includes). Each is found by cuda-pathfinder where it is first needed; a missing one is a
MissingLibraryError that says which feature needs it and how to install it."""

from __future__ import annotations

from cuda import pathfinder

# library -> (the extra that installs it, what it is for)
EXTRAS = {
    "nvrtc": ("nvrtc", "CUDA C++ (link items written in CUDA C++, CUSource)"),
    "nvvm": ("nvvm", "the nvvm code generator (backend='nvvm') and LTO-IR (lto=True, output='ltoir')"),
    "nvJitLink": ("nvjitlink", "linking LTO-IR (and linking cubins where no CUDA driver is installed)"),
}


class MissingLibraryError(ImportError):
    """A CUDA library an optional feature needs is not installed."""


def _missing(library: str) -> MissingLibraryError:
    extra, purpose = EXTRAS[library]
    return MissingLibraryError(
        f"{purpose} needs the CUDA library {library}, which was not found: install it with "
        f"pip install 'cumlir[{extra}]' (or use a CUDA toolkit)"
    )


def load(library: str) -> None:
    """Load the dynamic library *library* (a key of EXTRAS), or raise MissingLibraryError."""
    try:
        pathfinder.load_nvidia_dynamic_lib(library)
    except pathfinder.DynamicLibNotFoundError as e:
        raise _missing(library) from e


def libdevice_path() -> str:
    """The path of libdevice's bitcode, which libNVVM links (it comes with libNVVM)."""
    try:
        return pathfinder.find_bitcode_lib("device")
    except pathfinder.BitcodeLibNotFoundError as e:
        raise _missing("nvvm") from e
