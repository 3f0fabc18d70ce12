"""The simulator's CUDA driver's memory (driver.py): allocations, host memory registered,
copies, memsets and pointer queries. Device memory is host memory: an allocation is a NumPy
byte buffer, 256-byte aligned, kept alive here by address, and a device pointer is a plain
address the CPU code reads and writes. Every region a kernel may address is in one table,
so that a copy or memset to a device pointer outside them is refused, as the real driver
refuses it."""

from __future__ import annotations

import bisect
import ctypes
import itertools
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from cuda.bindings import driver as _real  # importing it needs no GPU; nothing in it is called

from .driver_constants import (
    ALIGNMENT,
    INVALID_CONTEXT,
    INVALID_HANDLE,
    INVALID_VALUE,
    NOT_FOUND,
    NOT_SUPPORTED,
    OUT_OF_MEMORY,
    POISON,
    PRIMARY_CONTEXT,
    SUCCESS,
    TOTAL_MEMORY,
)
from .driver_state import Working, as_int, current_context, let_go, tables_lock
from .driver_streams import stream_ok


@dataclass(eq=False)
class _Region:
    """Memory a kernel may address: what this module allocated (``buffer`` holds its bytes),
    registered host memory, or a module's global (both owned elsewhere)."""

    base: int
    size: int
    kind: str  # "device" (cuMemAlloc), "managed", "host" (cuMemHostAlloc), "registered", "global"
    buffer: np.ndarray | None
    serial: int  # CU_POINTER_ATTRIBUTE_BUFFER_ID

    def holds(self, address: int, nbytes: int = 0) -> bool:
        """Whether [address, address + nbytes) lies in it."""
        end = self.base + max(self.size, 1)  # a zero-size allocation still owns its one address
        return self.base <= address < end and address + nbytes <= self.base + self.size


regions: dict[int, _Region] = {}  # base address -> region
_bases: list[int] = []  # their bases, sorted: what holds an address is found by bisection
_allocated = 0  # bytes of device and managed memory allocated (cuMemGetInfo)
_serials = itertools.count(1)


def _region_at(address: int) -> _Region | None:
    """The region holding *address* (the caller holds tables_lock)."""
    k = bisect.bisect_right(_bases, address) - 1
    if k < 0:
        return None
    region = regions[_bases[k]]
    return region if region.holds(address) else None


def add_region(base: int, size: int, kind: str, buffer: np.ndarray | None) -> _Region:
    region = _Region(base, size, kind, buffer, next(_serials))
    regions[base] = region
    bisect.insort(_bases, base)
    return region


def drop_region(region: _Region) -> None:
    global _allocated
    del regions[region.base]
    _bases.pop(bisect.bisect_left(_bases, region.base))
    if region.kind in ("device", "managed"):
        _allocated -= region.size
    if region.buffer is not None:
        let_go(region.buffer)


def reset() -> None:
    """Free every region: the context's memory, and the registrations of host memory (the
    host's own, which stays)."""
    for region in list(regions.values()):
        drop_region(region)


def knows(address: int) -> bool:
    """Whether *address* is null or in memory the simulator made or was given (a kernel
    reading another address would read whatever the host has there)."""
    return not address or _device_span(address, 1)


def _device_span(address: int, nbytes: int) -> bool:
    """Whether [address, address + nbytes) lies in one region: the real driver refuses other
    device pointers, and here a copy to one would write over whatever the host has there."""
    with tables_lock:
        region = _region_at(address)
        return region is not None and region.holds(address, nbytes)


def _buffer(nbytes: int, fill: int) -> tuple[np.ndarray, int]:
    """A host buffer with ALIGNMENT-aligned room for *nbytes* (at least one byte, so that a
    zero-size allocation has an address of its own) filled with *fill*; and that address."""
    room = max(nbytes, 1) + ALIGNMENT - 1
    buffer = np.zeros(room, np.uint8) if fill == 0 else np.empty(room, np.uint8)  # zeros: pages untouched
    address = buffer.ctypes.data
    offset = -address % ALIGNMENT
    if fill:
        buffer[offset : offset + nbytes] = fill
    return buffer, address + offset


def _allocate(nbytes: int, kind: str, fill: int) -> tuple[Any, int]:
    """(CUresult, address) of a new region of *kind*."""
    global _allocated
    nbytes = int(nbytes)
    if nbytes < 0:
        return INVALID_VALUE, 0
    if not current_context():
        return INVALID_CONTEXT, 0
    counted = kind in ("device", "managed")
    with tables_lock:
        if counted and _allocated + nbytes > TOTAL_MEMORY:
            return OUT_OF_MEMORY, 0
        try:
            buffer, address = _buffer(nbytes, fill)
        except MemoryError:
            return OUT_OF_MEMORY, 0
        add_region(address, nbytes, kind, buffer)
        if counted:
            _allocated += nbytes
    return SUCCESS, address


def cuMemAlloc(bytesize: int) -> tuple[Any, ...]:
    # poisoned: cudaMalloc'd memory is not zeroed, and a kernel relying on it should show it
    err, address = _allocate(bytesize, "device", POISON)
    return (err, _real.CUdeviceptr(address) if err == SUCCESS else None)


def cuMemAllocManaged(bytesize: int, flags: int) -> tuple[Any, ...]:
    # zeroed, as a GPU's managed memory is in practice (fresh pages)
    err, address = _allocate(bytesize, "managed", 0)
    return (err, _real.CUdeviceptr(address) if err == SUCCESS else None)


def cuMemHostAlloc(bytesize: int, flags: int) -> tuple[Any, ...]:
    # every flag (portable, mapped, write-combined) holds of host memory as it is
    err, address = _allocate(bytesize, "host", 0)
    return (err, address if err == SUCCESS else None)


def _free(address: Any, kinds: tuple[str, ...]) -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT,)
    with tables_lock:
        region = regions.get(as_int(address))
        if region is None or region.kind not in kinds:
            return (INVALID_VALUE,)
        drop_region(region)
    return (SUCCESS,)


def cuMemFree(dptr: Any) -> tuple[Any, ...]:
    return _free(dptr, ("device", "managed"))


def cuMemFreeHost(p: Any) -> tuple[Any, ...]:
    return _free(p, ("host",))


def cuMemHostRegister(p: Any, bytesize: int, flags: int) -> tuple[Any, ...]:
    """Registered memory stays the host's: its own address is its device pointer."""
    base, size = as_int(p), int(bytesize)
    if not base or size <= 0:
        return (INVALID_VALUE,)
    with tables_lock:
        k = bisect.bisect_left(_bases, base)
        overlaps = _region_at(base) is not None or (k < len(_bases) and _bases[k] < base + size)
        if overlaps:  # also memory this module allocated: pinned already
            return (_real.CUresult.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,)
        add_region(base, size, "registered", None)
    return (SUCCESS,)


def cuMemHostUnregister(p: Any) -> tuple[Any, ...]:
    with tables_lock:
        region = regions.get(as_int(p))
        if region is None or region.kind != "registered":
            return (_real.CUresult.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,)
        drop_region(region)
    return (SUCCESS,)


def cuMemHostGetDevicePointer(p: Any, flags: int) -> tuple[Any, ...]:
    with tables_lock:
        region = _region_at(as_int(p))
        if region is None or region.kind not in ("host", "registered"):
            return (INVALID_VALUE, None)
    return (SUCCESS, _real.CUdeviceptr(as_int(p)))  # host memory is mapped at its own address


def cuMemGetInfo() -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT, None, None)
    free = TOTAL_MEMORY - _allocated
    try:  # not more than the host has left
        free = min(free, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    return (SUCCESS, max(free, 0), TOTAL_MEMORY)


def cuMemGetAddressRange(dptr: Any) -> tuple[Any, ...]:
    with tables_lock:
        region = _region_at(as_int(dptr))
    if region is None:
        return (NOT_FOUND, None, None)
    return (SUCCESS, _real.CUdeviceptr(region.base), region.size)


def _copy(destination: int, source: int, nbytes: int, device_sides: tuple[bool, bool]) -> tuple[Any, ...]:
    """A synchronous copy; the sides that are device memory must lie in a region."""
    if not current_context():
        return (INVALID_CONTEXT,)
    if nbytes < 0:
        return (INVALID_VALUE,)
    if not nbytes:
        return (SUCCESS,)
    for address, device in zip((destination, source), device_sides):
        if device and not _device_span(address, nbytes):
            return (INVALID_VALUE,)
    with Working():
        ctypes.memmove(destination, source, nbytes)
    return (SUCCESS,)


def cuMemcpyHtoD(dstDevice: Any, srcHost: Any, ByteCount: int) -> tuple[Any, ...]:
    return _copy(as_int(dstDevice), as_int(srcHost), int(ByteCount), (True, False))


def cuMemcpyDtoH(dstHost: Any, srcDevice: Any, ByteCount: int) -> tuple[Any, ...]:
    return _copy(as_int(dstHost), as_int(srcDevice), int(ByteCount), (False, True))


def cuMemcpyDtoD(dstDevice: Any, srcDevice: Any, ByteCount: int) -> tuple[Any, ...]:
    return _copy(as_int(dstDevice), as_int(srcDevice), int(ByteCount), (True, True))


# the Async forms run at once too: the stream's earlier work is done already


def cuMemcpyHtoDAsync(dstDevice: Any, srcHost: Any, ByteCount: int, hStream: Any) -> tuple[Any, ...]:
    return cuMemcpyHtoD(dstDevice, srcHost, ByteCount) if stream_ok(hStream) else (INVALID_HANDLE,)


def cuMemcpyDtoHAsync(dstHost: Any, srcDevice: Any, ByteCount: int, hStream: Any) -> tuple[Any, ...]:
    return cuMemcpyDtoH(dstHost, srcDevice, ByteCount) if stream_ok(hStream) else (INVALID_HANDLE,)


def cuMemcpyDtoDAsync(dstDevice: Any, srcDevice: Any, ByteCount: int, hStream: Any) -> tuple[Any, ...]:
    return cuMemcpyDtoD(dstDevice, srcDevice, ByteCount) if stream_ok(hStream) else (INVALID_HANDLE,)


def _memset(destination: Any, value: int, count: int, dtype: type[Any]) -> tuple[Any, ...]:
    """Set *count* elements of *dtype* at *destination* to *value*."""
    address, count, itemsize = as_int(destination), int(count), np.dtype(dtype).itemsize
    if not current_context():
        return (INVALID_CONTEXT,)
    if count < 0 or address % itemsize:  # the driver wants the elements aligned
        return (INVALID_VALUE,)
    if not count:
        return (SUCCESS,)
    if not _device_span(address, count * itemsize):
        return (INVALID_VALUE,)
    with Working():
        target = np.ctypeslib.as_array((ctypes.c_uint8 * (count * itemsize)).from_address(address))
        target.view(dtype)[:] = int(value) & (256**itemsize - 1)
    return (SUCCESS,)


def cuMemsetD8(dstDevice: Any, uc: int, N: int) -> tuple[Any, ...]:
    return _memset(dstDevice, uc, N, np.uint8)


def cuMemsetD16(dstDevice: Any, us: int, N: int) -> tuple[Any, ...]:
    return _memset(dstDevice, us, N, np.uint16)


def cuMemsetD32(dstDevice: Any, ui: int, N: int) -> tuple[Any, ...]:
    return _memset(dstDevice, ui, N, np.uint32)


def _pointer_attribute(region: _Region, name: str, address: int) -> Any:
    """The value of CU_POINTER_ATTRIBUTE_<name> for *address* in *region*, or None: not simulated."""
    device = region.kind in ("device", "managed", "global")
    memory = _real.CUmemorytype
    values: dict[str, Any] = {
        "CONTEXT": _real.CUcontext(PRIMARY_CONTEXT),
        "MEMORY_TYPE": memory.CU_MEMORYTYPE_DEVICE if device else memory.CU_MEMORYTYPE_HOST,
        "DEVICE_POINTER": _real.CUdeviceptr(address),
        "IS_MANAGED": region.kind == "managed",
        "DEVICE_ORDINAL": 0,
        "RANGE_START_ADDR": _real.CUdeviceptr(region.base),
        "RANGE_SIZE": region.size,
        "MAPPED": True,
        "BUFFER_ID": region.serial,
        "SYNC_MEMOPS": True,
        "IS_LEGACY_CUDA_IPC_CAPABLE": False,
    }
    if region.kind != "device":  # host, registered and managed memory have a host address: their own
        values["HOST_POINTER"] = address
    return values.get(name)


def cuPointerGetAttribute(attribute: Any, ptr: Any) -> tuple[Any, ...]:
    address = as_int(ptr)
    with tables_lock:
        region = _region_at(address)
    if region is None:  # not memory of this driver's (the real one says the same of a host pointer)
        return (INVALID_VALUE, None)
    name = _real.CUpointer_attribute(int(attribute)).name.removeprefix("CU_POINTER_ATTRIBUTE_")
    value = _pointer_attribute(region, name, address)
    if value is None:
        return (NOT_SUPPORTED, None)
    return (SUCCESS, value)
