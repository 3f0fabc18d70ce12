"""The simulator's CUDA driver: a stand-in for ``cuda.bindings.driver`` whose one device is
the host (docs/simulator.md). ``runtime/driver.py: driver()`` returns this module when
``cumlir.simulation.requested()``; the runtime calls it as it calls the real one.

Every function takes the real one's arguments and returns its result tuple (a ``CUresult``
first, then the outputs, ``None`` for each output where the result is an error), so that
``check()`` and the runtime's own unpacking read it unchanged. Device memory is host
memory: allocations are NumPy byte buffers, 256-byte aligned, kept alive here by address,
and a device pointer is a plain address the CPU code reads and writes. Work runs at once,
on the calling thread, one launch or copy at a time (a valid order of any set of streams).
Modules and launches go to the simulator's loader (``engine.load_module``).

Names this module does not define (the enums and structures: ``CUresult``, ``CUstream``,
``CUlaunchConfig`` ...) are the real module's; its functions are never called: a driver
function the simulator lacks is an AttributeError naming it.

This module is the driver's face: initialisation, the device, contexts and error names are
here; memory is driver_memory's, streams and events driver_streams', modules and launches
driver_kernels', and each of their driver functions is a name of this module too (the
runtime finds every function here). The constants are driver_constants', and what the parts
share (locks, handles, the context stack) driver_state's.
"""

from __future__ import annotations

from typing import Any

from cuda.bindings import driver as _real  # importing it needs no GPU; nothing in it is called

# the parts; every driver function of theirs is a name of this module too (``name as name``)
from . import driver_kernels, driver_memory, driver_streams
from .driver_constants import ALIGNMENT as ALIGNMENT
from .driver_constants import BLOCKS_PER_SM as BLOCKS_PER_SM
from .driver_constants import DEFAULT_STREAMS as DEFAULT_STREAMS
from .driver_constants import (
    DEVICE_ATTRIBUTES,
    INVALID_CONTEXT,
    INVALID_DEVICE,
    INVALID_VALUE,
    NAME,
    NOT_SUPPORTED,
    PRIMARY_CONTEXT,
    SUCCESS,
    UUID,
    VERSION,
)
from .driver_constants import INVALID_HANDLE as INVALID_HANDLE
from .driver_constants import NOT_FOUND as NOT_FOUND
from .driver_constants import OUT_OF_MEMORY as OUT_OF_MEMORY
from .driver_constants import POISON as POISON
from .driver_constants import RESERVED_SHARED_PER_BLOCK as RESERVED_SHARED_PER_BLOCK
from .driver_constants import SHARED_PER_BLOCK as SHARED_PER_BLOCK
from .driver_constants import SHARED_PER_BLOCK_OPTIN as SHARED_PER_BLOCK_OPTIN
from .driver_constants import SHARED_PER_SM as SHARED_PER_SM
from .driver_constants import SMS as SMS
from .driver_constants import THREADS_PER_SM as THREADS_PER_SM
from .driver_constants import TOTAL_MEMORY as TOTAL_MEMORY
from .driver_kernels import FUNCTION_DEFAULTS as FUNCTION_DEFAULTS
from .driver_kernels import cuFuncGetAttribute as cuFuncGetAttribute
from .driver_kernels import cuFuncSetAttribute as cuFuncSetAttribute
from .driver_kernels import cuLaunchCooperativeKernel as cuLaunchCooperativeKernel
from .driver_kernels import cuLaunchKernel as cuLaunchKernel
from .driver_kernels import cuLaunchKernelEx as cuLaunchKernelEx
from .driver_kernels import cuModuleGetFunction as cuModuleGetFunction
from .driver_kernels import cuModuleGetGlobal as cuModuleGetGlobal
from .driver_kernels import cuModuleLoadData as cuModuleLoadData
from .driver_kernels import cuModuleUnload as cuModuleUnload
from .driver_kernels import cuOccupancyMaxActiveBlocksPerMultiprocessor as cuOccupancyMaxActiveBlocksPerMultiprocessor
from .driver_kernels import cuOccupancyMaxPotentialBlockSize as cuOccupancyMaxPotentialBlockSize
from .driver_kernels import cuOccupancyMaxPotentialClusterSize as cuOccupancyMaxPotentialClusterSize
from .driver_memory import cuMemAlloc as cuMemAlloc
from .driver_memory import cuMemAllocManaged as cuMemAllocManaged
from .driver_memory import cuMemcpyDtoD as cuMemcpyDtoD
from .driver_memory import cuMemcpyDtoDAsync as cuMemcpyDtoDAsync
from .driver_memory import cuMemcpyDtoH as cuMemcpyDtoH
from .driver_memory import cuMemcpyDtoHAsync as cuMemcpyDtoHAsync
from .driver_memory import cuMemcpyHtoD as cuMemcpyHtoD
from .driver_memory import cuMemcpyHtoDAsync as cuMemcpyHtoDAsync
from .driver_memory import cuMemFree as cuMemFree
from .driver_memory import cuMemFreeHost as cuMemFreeHost
from .driver_memory import cuMemGetAddressRange as cuMemGetAddressRange
from .driver_memory import cuMemGetInfo as cuMemGetInfo
from .driver_memory import cuMemHostAlloc as cuMemHostAlloc
from .driver_memory import cuMemHostGetDevicePointer as cuMemHostGetDevicePointer
from .driver_memory import cuMemHostRegister as cuMemHostRegister
from .driver_memory import cuMemHostUnregister as cuMemHostUnregister
from .driver_memory import cuMemsetD8 as cuMemsetD8
from .driver_memory import cuMemsetD16 as cuMemsetD16
from .driver_memory import cuMemsetD32 as cuMemsetD32
from .driver_memory import cuPointerGetAttribute as cuPointerGetAttribute
from .driver_state import as_int, context_stack, current_context, tables_lock, wait_for_work
from .driver_streams import cuEventCreate as cuEventCreate
from .driver_streams import cuEventDestroy as cuEventDestroy
from .driver_streams import cuEventElapsedTime as cuEventElapsedTime
from .driver_streams import cuEventQuery as cuEventQuery
from .driver_streams import cuEventRecord as cuEventRecord
from .driver_streams import cuEventSynchronize as cuEventSynchronize
from .driver_streams import cuStreamCreate as cuStreamCreate
from .driver_streams import cuStreamDestroy as cuStreamDestroy
from .driver_streams import cuStreamGetCtx as cuStreamGetCtx
from .driver_streams import cuStreamSynchronize as cuStreamSynchronize
from .driver_streams import cuStreamWaitEvent as cuStreamWaitEvent

_result = _real.CUresult

# cuDeviceGetAttribute's answers, by CU_DEVICE_ATTRIBUTE_* code
_DEVICE_ATTRIBUTES = {
    int(code): DEVICE_ATTRIBUTES[code.name.removeprefix("CU_DEVICE_ATTRIBUTE_")]
    for code in _real.CUdevice_attribute
    if code.name.removeprefix("CU_DEVICE_ATTRIBUTE_") in DEVICE_ATTRIBUTES
}

# cuGetErrorString's text for the errors this module gives (the real driver's words);
# others are their names in words
_MESSAGES = {
    "CUDA_SUCCESS": "no error",
    "CUDA_ERROR_INVALID_VALUE": "invalid argument",
    "CUDA_ERROR_OUT_OF_MEMORY": "out of memory",
    "CUDA_ERROR_INVALID_CONTEXT": "invalid device context",
    "CUDA_ERROR_INVALID_HANDLE": "invalid resource handle",
    "CUDA_ERROR_INVALID_DEVICE": "invalid device ordinal",
    "CUDA_ERROR_NOT_FOUND": "named symbol not found",
    "CUDA_ERROR_NOT_READY": "device not ready",
    "CUDA_ERROR_NOT_SUPPORTED": "operation not supported (the cumlir simulator does not simulate it)",
    "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED": "part or all of the requested memory range is already mapped",
    "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED": "pointer does not correspond to a registered memory region",
    "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE": "too many blocks in cooperative launch",
}


_limits: dict[int, int] = {}  # cuCtxSetLimit
_retained = 0  # references to the primary context (cuDevicePrimaryCtxRetain)


# ---- initialisation, the device, contexts ----


def cuInit(flags: int) -> tuple[Any, ...]:
    return (SUCCESS,)


def cuDriverGetVersion() -> tuple[Any, ...]:
    return (SUCCESS, VERSION)


def cuDeviceGetCount() -> tuple[Any, ...]:
    return (SUCCESS, 1)


def cuDeviceGet(ordinal: int) -> tuple[Any, ...]:
    return (SUCCESS, _real.CUdevice(0)) if int(ordinal) == 0 else (INVALID_DEVICE, None)


def cuDeviceGetName(length: int, dev: Any) -> tuple[Any, ...]:
    if as_int(dev) != 0:
        return (INVALID_DEVICE, None)
    return (SUCCESS, NAME[: length - 1].ljust(length, b"\0"))  # NUL-padded to *length*, as the real one


class _Uuid:
    """What cuDeviceGetUuid gives: its ``bytes`` (CUuuid's are read-only)."""

    def __init__(self, data: bytes) -> None:
        self.bytes = data


def cuDeviceGetUuid(dev: Any) -> tuple[Any, ...]:
    return (SUCCESS, _Uuid(UUID)) if as_int(dev) == 0 else (INVALID_DEVICE, None)


def cuDeviceGetAttribute(attrib: Any, dev: Any) -> tuple[Any, ...]:
    if as_int(dev) != 0:
        return (INVALID_DEVICE, None)
    return (SUCCESS, _DEVICE_ATTRIBUTES.get(int(attrib), 0))


def cuDeviceCanAccessPeer(dev: Any, peer: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED, None)  # one device: peers and IPC are not simulated


def cuDevicePrimaryCtxRetain(dev: Any) -> tuple[Any, ...]:
    global _retained
    if as_int(dev) != 0:
        return (INVALID_DEVICE, None)
    with tables_lock:
        _retained += 1
    return (SUCCESS, _real.CUcontext(PRIMARY_CONTEXT))


def cuDevicePrimaryCtxRelease(dev: Any) -> tuple[Any, ...]:
    global _retained
    if as_int(dev) != 0:
        return (INVALID_DEVICE,)
    with tables_lock:
        if not _retained:
            return (INVALID_CONTEXT,)
        _retained -= 1
        if not _retained:  # the last reference: the context is reset, as the real driver's is
            _reset()
    return (SUCCESS,)


def cuDevicePrimaryCtxReset(dev: Any) -> tuple[Any, ...]:
    if as_int(dev) != 0:
        return (INVALID_DEVICE,)
    with tables_lock:
        _reset()
    return (SUCCESS,)


def _reset() -> None:
    """Free everything made in the context: memory, modules, streams, events (registered
    host memory is the host's own: only its registration goes)."""
    driver_memory.reset()
    driver_kernels.reset()
    driver_streams.reset()
    _limits.clear()


def _context_ok(ctx: Any) -> bool:
    return as_int(ctx) == PRIMARY_CONTEXT


def cuCtxGetCurrent() -> tuple[Any, ...]:
    return (SUCCESS, _real.CUcontext(current_context()))


def cuCtxSetCurrent(ctx: Any) -> tuple[Any, ...]:
    stack = context_stack()
    if not as_int(ctx):  # unbinds the thread's current context
        if stack:
            stack.pop()
        return (SUCCESS,)
    if not _context_ok(ctx):
        return (INVALID_CONTEXT,)
    if stack:
        stack[-1] = as_int(ctx)
    else:
        stack.append(as_int(ctx))
    return (SUCCESS,)


def cuCtxPushCurrent(ctx: Any) -> tuple[Any, ...]:
    if not _context_ok(ctx):
        return (INVALID_CONTEXT,)
    context_stack().append(as_int(ctx))
    return (SUCCESS,)


def cuCtxPopCurrent() -> tuple[Any, ...]:
    stack = context_stack()
    if not stack:
        return (INVALID_CONTEXT, None)
    return (SUCCESS, _real.CUcontext(stack.pop()))


def cuCtxGetDevice() -> tuple[Any, ...]:
    return (SUCCESS, _real.CUdevice(0)) if current_context() else (INVALID_CONTEXT, None)


def cuCtxSynchronize() -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT,)
    wait_for_work()
    return (SUCCESS,)


def cuCtxSetLimit(limit: Any, value: int) -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT,)
    _limits[int(limit)] = int(value)  # kept for cuCtxGetLimit; the engine sizes its own heap
    return (SUCCESS,)


def cuCtxGetLimit(limit: Any) -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT, None)
    return (SUCCESS, _limits.get(int(limit), 0))


def cuProfilerStart() -> tuple[Any, ...]:
    return (SUCCESS,)


def cuProfilerStop() -> tuple[Any, ...]:
    return (SUCCESS,)


def cuGetErrorName(error: Any) -> tuple[Any, ...]:
    try:
        return (SUCCESS, _result(int(error)).name.encode())
    except ValueError:  # not a CUresult
        return (INVALID_VALUE, None)


def cuGetErrorString(error: Any) -> tuple[Any, ...]:
    try:
        name = _result(int(error)).name
    except ValueError:
        return (INVALID_VALUE, None)
    text = _MESSAGES.get(name) or name.removeprefix("CUDA_ERROR_").replace("_", " ").lower()
    return (SUCCESS, text.encode())


# ---- what the simulator does not simulate: an error result, as a driver without it ----


def cuIpcGetMemHandle(dptr: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED, None)


def cuIpcOpenMemHandle(handle: Any, Flags: int) -> tuple[Any, ...]:
    return (NOT_SUPPORTED, None)


def cuIpcCloseMemHandle(dptr: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED,)


def cuLinkCreate(numOptions: int, options: Any, optionValues: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED, None)


def cuLinkAddData(*args: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED,)


def cuLinkComplete(state: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED, None, None)


def cuLinkDestroy(state: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED,)


def cuTensorMapEncodeTiled(*args: Any) -> tuple[Any, ...]:
    return (NOT_SUPPORTED, None)


def __getattr__(name: str) -> Any:
    """The real module's enums, structures and constants; never its functions (they would
    call a driver that is not there, or a GPU the simulator stands in for)."""
    if name.startswith("cu") and name[2:3].isupper():
        raise AttributeError(f"the cumlir simulator's CUDA driver has no {name}: the simulator does not simulate it")
    return getattr(_real, name)
