"""nvJitLink: PTX, LTO-IR and the other link items -> one cubin for one chip.

Link-time optimisation (``-lto``) is switched on whenever any input is LTO-IR;
CUDA C++ sources are then compiled by NVRTC to LTO-IR too, so that the optimiser
sees through every call, else to PTX.
"""

import warnings

from .codegen import targets
from .linkable import LTOIR, CUSource, as_linkable, load
from .nrt import include_dir
from .nvrtc import compile_source


class LinkError(RuntimeError):
    """nvJitLink failed; the message includes its error log."""


class PerformanceWarning(UserWarning):
    """ptxas, inside nvJitLink, compiled a kernel slower than it is written and said so: one of
    its "Potential Performance Loss" notes (wgmma serialized by a call or an early read of
    the accumulator, say)."""


def load_library():
    """Load nvJitLink now (its library takes tens of milliseconds to load, without the GIL)."""
    from cuda.bindings import nvjitlink

    nvjitlink.version()


def toolkit_version():
    """(major, minor) of nvJitLink, which every install has: the version of the CUDA toolkit
    wheels cumlir uses."""
    from cuda.bindings import nvjitlink

    return tuple(nvjitlink.version())


def link_cubin(items, cc, ptxas_options=(), arch_specific=False):
    """A cubin for compute capability *cc* (its architecture-specific target, sm_90a, with
    *arch_specific*) linking every item (LinkableCode objects or paths); *ptxas_options* are
    given to ptxas as it compiles the PTX among them."""
    return _link(items, cc, ptx=False, ptxas_options=ptxas_options, arch_specific=arch_specific)


def link_ptx(items, cc, arch_specific=False):
    """The PTX nvJitLink's link-time optimiser makes for *cc* from the LTO-IR among *items*
    (CUDA C++ compiled to LTO-IR first); items of other kinds are left out."""
    items = [item for item in (load(as_linkable(item)) for item in items) if isinstance(item, (LTOIR, CUSource))]
    if not any(isinstance(item, LTOIR) for item in items):
        raise ValueError("link_ptx needs LTO-IR to optimise (compile with lto=True)")
    return _link(items, cc, ptx=True, arch_specific=arch_specific).rstrip(b"\0").decode()


def _link(items, cc, ptx, ptxas_options=(), arch_specific=False):
    from cuda.bindings import nvjitlink

    items = [load(as_linkable(item)) for item in items]
    lto = any(isinstance(item, LTOIR) for item in items)
    options = [f"-arch={targets.chip(cc, arch_specific)}"] + (["-lto"] if lto else []) + (["-ptx"] if ptx else [])
    options += [f"-Xptxas={option}" for option in ptxas_options]
    handle = nvjitlink.create(len(options), options)
    try:
        names = []
        try:
            for item in items:
                kind, data = _input(item, cc, lto)
                names.append(item.name)
                nvjitlink.add_data(handle, getattr(nvjitlink.InputType, kind), data, len(data), item.name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            log = _error_log(nvjitlink, handle)
            raise LinkError(f"nvJitLink could not link {', '.join(names) or 'the inputs'}: {e}\n{log}") from None
        size, get = (
            (nvjitlink.get_linked_ptx_size, nvjitlink.get_linked_ptx)
            if ptx
            else (nvjitlink.get_linked_cubin_size, nvjitlink.get_linked_cubin)
        )
        output = bytearray(size(handle))
        get(handle, output)
        for note in _performance_notes(nvjitlink, handle):
            warnings.warn(f"ptxas: {note}", PerformanceWarning, stacklevel=2)
        return bytes(output)
    finally:
        nvjitlink.destroy(handle)


def _input(item, cc, lto):
    """(nvJitLink input type name, bytes) for one link item; CUDA C++ is compiled first."""
    if isinstance(item, CUSource):
        output = "ltoir" if lto else "ptx"
        code = compile_source(item.data, cc, name=item.name, output=output, options=_nrt_include(item))
        return ("LTOIR", code) if lto else ("PTX", code.encode())
    return item.kind, item.bytes


def _nrt_include(item):
    """CUDA C++ marked nrt=True finds the runtime's header: ``#include <nrt.cuh>``."""
    if not item.nrt:
        return ()
    return (f"-I{include_dir()}",)


def _performance_notes(nvjitlink, handle):
    """The "Potential Performance Loss" notes of nvJitLink's info log."""
    try:
        log = bytearray(nvjitlink.get_info_log_size(handle))
        nvjitlink.get_info_log(handle, log)
    except Exception:  # the link is done: a log that cannot be read only loses the notes
        return []
    lines = bytes(log).rstrip(b"\0").decode(errors="replace").splitlines()
    return [line.split(":", 1)[-1].strip() for line in lines if "Potential Performance Loss" in line]


def _error_log(nvjitlink, handle):
    try:
        size = nvjitlink.get_error_log_size(handle)
        log = bytearray(size)
        nvjitlink.get_error_log(handle, log)
        return log.rstrip(b"\0").decode(errors="replace")
    except Exception:  # the log is a courtesy; the error itself was already raised
        return ""
