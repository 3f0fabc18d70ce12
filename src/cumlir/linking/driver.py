"""The CUDA driver's linker (``cuLinkCreate``): PTX, cubins, fatbins, objects and libraries
into a cubin, the PTX compiled by the driver's own ptxas. It needs no library beyond the
driver, so ``pip install cumlir`` links and launches without nvJitLink; it needs a driver
(and a context: the current one, else device 0's primary context for the link), and it does
not read LTO-IR."""

from __future__ import annotations

import contextlib
import ctypes
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .. import optional_libraries
from ..chips import target_suffix
from ..lazy import lazy, loaded
from .common import LinkError, link_input

if TYPE_CHECKING:
    from ..linkable import LinkableCode

driver_bindings = lazy("cuda.bindings.driver")  # loaded by the first link, on a machine with a driver
LOG_SIZE = 1 << 16  # bytes of each log buffer the driver writes into

# ptxas options the driver's JIT has a setting for: option -> (CUjit_option name, its value
# from the option's argument, or None for a switch)
_SWITCHES = {
    "-g": ("CU_JIT_GENERATE_DEBUG_INFO", 1),
    "--device-debug": ("CU_JIT_GENERATE_DEBUG_INFO", 1),
    "-lineinfo": ("CU_JIT_GENERATE_LINE_INFO", 1),
    "--generate-line-info": ("CU_JIT_GENERATE_LINE_INFO", 1),
}
_VALUED = {  # -O3, --opt-level=3, -maxrregcount=64, --maxrregcount=64
    re.compile(r"(?:-O|--opt-level=)([0-4])"): "CU_JIT_OPTIMIZATION_LEVEL",
    re.compile(r"--?maxrregcount=(\d+)"): "CU_JIT_MAX_REGISTERS",
}


def version() -> int:
    """The driver's CUDA version (13000 for 13.0)."""
    cu = _driver()
    return int(_check(cu, "cuDriverGetVersion", cu.cuDriverGetVersion()))


def link(
    items: Sequence[LinkableCode], cc: tuple[int, int], ptxas_options: tuple[str, ...], arch_specific: bool | str
) -> tuple[bytes, str]:
    """(the linked cubin, the info log) of *items* for *cc*, by the driver's linker."""
    cu = _driver()
    settings = {"CU_JIT_TARGET": _target(cu, cc, arch_specific), "CU_JIT_LOG_VERBOSE": 1}
    for option in ptxas_options:
        settings.update([_setting(option)])
    info, errors = bytearray(LOG_SIZE), bytearray(LOG_SIZE)
    settings.update(
        CU_JIT_INFO_LOG_BUFFER=info,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES=LOG_SIZE,
        CU_JIT_ERROR_LOG_BUFFER=errors,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES=LOG_SIZE,
    )
    keys = [getattr(cu.CUjit_option, name) for name in settings]
    with _a_current_context(cu):
        state = _check(cu, "cuLinkCreate", cu.cuLinkCreate(len(keys), keys, list(settings.values())))
        try:
            names: list[str] = []
            try:
                for item in items:
                    kind, data = link_input(item, cc, lto=False)
                    names.append(item.name)
                    _check(
                        cu,
                        "cuLinkAddData",
                        cu.cuLinkAddData(
                            state, _input_type(cu, kind, item), data, len(data), item.name.encode(), 0, [], []
                        ),
                    )
                address, size = _check(cu, "cuLinkComplete", cu.cuLinkComplete(state))
            except LinkError as e:
                what = ", ".join(names) or "the inputs"
                raise LinkError(f"the CUDA driver's linker could not link {what}: {e}\n{_text(errors)}") from None
            cubin = ctypes.string_at(int(address), size)  # the driver's buffer lives until cuLinkDestroy
        finally:
            cu.cuLinkDestroy(state)
    return cubin, _text(info)


def _setting(option: str) -> tuple[str, int]:
    """The driver's setting for one ptxas option, or a MissingLibraryError: only nvJitLink
    passes other options on to ptxas."""
    if option in _SWITCHES:
        return _SWITCHES[option]
    for pattern, name in _VALUED.items():
        found = pattern.fullmatch(option)
        if found:
            return name, int(found.group(1))
    raise optional_libraries.MissingLibraryError(
        f"the ptxas option {option!r} is passed on to ptxas by nvJitLink only (the CUDA driver's linker, used where "
        "nvJitLink is not installed, takes -g, -lineinfo, -O<n> and -maxrregcount=<n>): install it with "
        "pip install 'cumlir[nvjitlink]'"
    )


def _target(cu: Any, cc: tuple[int, int], arch_specific: bool | str) -> Any:
    suffix = target_suffix(arch_specific)
    name = f"CU_TARGET_COMPUTE_{cc[0]}{cc[1]}{suffix.upper()}"
    target = getattr(cu.CUjit_target, name, None)
    if target is None:
        raise LinkError(f"this CUDA driver cannot compile for sm_{cc[0]}{cc[1]}{suffix}")
    return target


def _input_type(cu: Any, kind: str, item: LinkableCode) -> Any:
    names = {"PTX": "PTX", "CUBIN": "CUBIN", "FATBIN": "FATBINARY", "OBJECT": "OBJECT", "LIBRARY": "LIBRARY"}
    if kind not in names:
        raise LinkError(f"the CUDA driver's linker cannot link {item.name} ({kind})")
    return getattr(cu.CUjitInputType, f"CU_JIT_INPUT_{names[kind]}")


@contextlib.contextmanager
def _a_current_context(cu: Any) -> Iterator[None]:
    """The driver links in a context: the thread's current one, else device 0's primary
    context for the time of the link (a launch always has one current; compiling to a cubin
    with no launch before may not)."""
    if int(_check(cu, "cuCtxGetCurrent", cu.cuCtxGetCurrent())):
        yield
        return
    device = _check(cu, "cuDeviceGet", cu.cuDeviceGet(0))
    context = _check(cu, "cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(device))
    _check(cu, "cuCtxPushCurrent", cu.cuCtxPushCurrent(context))
    try:
        yield
    finally:
        cu.cuCtxPopCurrent()
        cu.cuDevicePrimaryCtxRelease(device)


def _driver() -> Any:
    """``cuda.bindings.driver``, initialised; a MissingLibraryError where there is no driver:
    then only nvJitLink can link."""
    cu = loaded(driver_bindings)
    try:
        (err,) = cu.cuInit(0)
    except RuntimeError as e:  # libcuda.so is missing
        raise _no_linker(str(e)) from None
    if err != cu.CUresult.CUDA_SUCCESS:
        raise _no_linker(f"cuInit failed ({err!r})")
    return cu


def _no_linker(why: str) -> optional_libraries.MissingLibraryError:
    return optional_libraries.MissingLibraryError(
        "linking a cubin needs nvJitLink or a CUDA driver, and neither was found "
        f"({why}): install nvJitLink with pip install 'cumlir[nvjitlink]', or compile to PTX (output='ptx')"
    )


def _check(cu: Any, call: str, result: tuple[Any, ...]) -> Any:
    err, *values = result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise LinkError(f"{call} failed: {name.decode() if name else repr(err)}")
    return values[0] if len(values) == 1 else tuple(values)


def _text(buffer: bytearray) -> str:
    return bytes(buffer).split(b"\0", 1)[0].decode(errors="replace").strip()
