"""nvJitLink (the extra ``nvjitlink``): every kind of link item, LTO-IR among them, into a
cubin or (from LTO-IR) PTX, with no GPU needed."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import optional_libraries
from ..codegen import targets
from ..lazy import lazy, loaded
from ..linkable import LTOIR
from .common import LinkError, link_input

if TYPE_CHECKING:
    from ..linkable import LinkableCode


nvjitlink_bindings = lazy("cuda.bindings.nvjitlink")  # nvJitLink is an extra: loaded by the first link


@functools.cache
def available() -> bool:
    """Whether cuda-pathfinder finds nvJitLink (its wheel first, then a CUDA toolkit)."""
    try:
        optional_libraries.load("nvJitLink")
    except optional_libraries.MissingLibraryError:
        return False
    return True


def version() -> tuple[int, int]:
    """(major, minor) of the nvJitLink library."""
    major, minor = _nvjitlink().version()
    return (major, minor)


def _nvjitlink() -> Any:
    optional_libraries.load("nvJitLink")  # a MissingLibraryError naming the extra where it is not installed
    return loaded(nvjitlink_bindings)


def link(
    items: Sequence[LinkableCode],
    cc: tuple[int, int],
    output: str,
    ptxas_options: tuple[str, ...],
    arch_specific: bool | str,
) -> tuple[bytes, str]:
    """(the linked cubin or PTX, as *output* says, and the info log) of *items* for *cc*."""
    nvjitlink = _nvjitlink()
    lto = any(isinstance(item, LTOIR) for item in items)
    options = (
        [f"-arch={targets.chip(cc, arch_specific)}"] + (["-lto"] if lto else []) + (["-ptx"] if output == "ptx" else [])
    )
    options += [f"-Xptxas={option}" for option in ptxas_options]
    handle = nvjitlink.create(len(options), options)
    try:
        names = []
        try:
            for item in items:
                kind, data = link_input(item, cc, lto)
                names.append(item.name)
                nvjitlink.add_data(handle, getattr(nvjitlink.InputType, kind), data, len(data), item.name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            log = _log(nvjitlink.get_error_log_size, nvjitlink.get_error_log, handle)
            raise LinkError(f"nvJitLink could not link {', '.join(names) or 'the inputs'}: {e}\n{log}") from None
        size, get = (
            (nvjitlink.get_linked_ptx_size, nvjitlink.get_linked_ptx)
            if output == "ptx"
            else (nvjitlink.get_linked_cubin_size, nvjitlink.get_linked_cubin)
        )
        linked = bytearray(size(handle))
        get(handle, linked)
        return bytes(linked), _log(nvjitlink.get_info_log_size, nvjitlink.get_info_log, handle)
    finally:
        nvjitlink.destroy(handle)


def _log(size_of: Any, read: Any, handle: Any) -> str:
    try:
        log = bytearray(size_of(handle))
        read(handle, log)
        return bytes(log).rstrip(b"\0").decode(errors="replace")
    except Exception:  # a log is a courtesy: the link itself is done, or its error raised
        return ""
