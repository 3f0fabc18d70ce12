"""CUDA C++ -> PTX or LTO-IR with NVRTC (from the CUDA pip wheels of the extra ``nvrtc``,
found by cuda-pathfinder)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cuda import pathfinder

from . import optional_libraries
from .codegen import targets
from .lazy import lazy

if TYPE_CHECKING:
    from .chips import ComputeCapability

nvrtc_bindings = lazy("cuda.bindings.nvrtc")  # NVRTC is an extra: loaded by the first CUDA C++ compiled


class NVRTCError(RuntimeError):
    """NVRTC could not compile a source; the message holds its log."""


def compile_source(
    source: str | bytes | bytearray,
    cc: ComputeCapability,
    name: str = "source.cu",
    output: str = "ptx",
    options: Sequence[str] = (),
) -> Any:  # PTX text (str) or LTO-IR (bytes), as *output* asks
    """Compile CUDA C++ *source* for compute capability *cc* into PTX text or LTO-IR bytes.

    The code is compiled for separate linking (``-rdc=true``), so its ``extern``
    device functions are resolved by nvJitLink against cumlir's code.
    """
    if output not in ("ptx", "ltoir"):
        raise ValueError(f"NVRTC output is 'ptx' or 'ltoir', not {output!r}")
    nvrtc = _nvrtc()
    major, minor = targets.parse_cc(cc)
    flags = [f"-arch=compute_{major}{minor}", "-rdc=true", "-default-device", *_include_options(), *options]
    if output == "ltoir":
        flags.append("-dlto")
    text = source.encode() if isinstance(source, str) else bytes(source)
    prog = _check(nvrtc, nvrtc.nvrtcCreateProgram(text, name.encode(), 0, [], []), name)
    try:
        encoded = [f.encode() for f in flags]
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise NVRTCError(f"NVRTC could not compile {name}:\n{_log(nvrtc, prog)}")
        get_size, get = (
            (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
            if output == "ptx"
            else (nvrtc.nvrtcGetLTOIRSize, nvrtc.nvrtcGetLTOIR)
        )
        buffer = b" " * _check(nvrtc, get_size(prog), name)
        _check(nvrtc, get(prog, buffer), name)
        return buffer.rstrip(b"\0").decode() if output == "ptx" else buffer
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


@functools.lru_cache(maxsize=1)
def _nvrtc() -> Any:
    optional_libraries.load("nvrtc")  # before the bindings' module, which loads the library
    return nvrtc_bindings


def _check(nvrtc: Any, returned: Sequence[Any], name: str) -> Any:
    result, *values = returned
    if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise NVRTCError(f"NVRTC failed on {name}: {nvrtc.nvrtcGetErrorString(result)[1].decode()}")
    return values[0] if values else None


def _log(nvrtc: Any, prog: Any) -> str:
    size = _check(nvrtc, nvrtc.nvrtcGetProgramLogSize(prog), "the log")
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, log)
    return log.rstrip(b"\0").decode(errors="replace")


_includes: list[str] | None = None


def _include_options() -> list[str]:
    """-I for the CUDA runtime headers of the pip wheels, where they are installed."""
    global _includes
    if _includes is None:
        try:
            directory = pathfinder.find_nvidia_header_directory("cudart")
        except Exception:  # the headers are optional: plain device code needs none
            directory = None
        _includes = [f"-I{directory}"] if directory else []
    return _includes


def version() -> tuple[int, int]:
    """The (major, minor) version of the NVRTC library cumlir uses: the CUDA toolkit's."""
    nvrtc = _nvrtc()
    result, major, minor = nvrtc.nvrtcVersion()
    if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise NVRTCError(f"nvrtcVersion failed: {nvrtc.nvrtcGetErrorString(result)[1].decode()}")
    return major, minor
