"""Page-locked host memory: pinned arrays (fast, asynchronous copies), mapped arrays
(host memory the device reads and writes in place, through its own address), managed
arrays (memory the driver migrates between host and device), and the ``pinned``/``mapped``
context managers that page-lock existing NumPy arrays for a while."""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from . import driver as drv
from . import memory_managers
from .cleanup import release
from .devicearray import DeviceNDArray
from .layout import allocation_strides, byte_extent, checked_dtype, normalize_shape
from .memory_pointers import device_address
from .streams import stream_handle

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from .layout import Extents

    _Array = TypeVar("_Array", bound=np.ndarray)


class HostAllocation:
    """Page-locked host memory from cuMemHostAlloc, freed when the last array over it dies.

    NumPy arrays are built over it through ``__array_interface__``; they keep it alive
    as their base."""

    free_call = "cuMemFreeHost"

    def __init__(self, nbytes: int, mapped: bool = False, portable: bool = False, wc: bool = False) -> None:
        self.made_in = drv.lifetime()  # a reset of the context frees it
        self.nbytes = nbytes
        self.plugin_memory: object = None
        plugin = memory_managers.external(drv.current_context())
        if plugin is not None:  # the context's memory manager page-locks it, and frees it when dropped
            self.pointer, self.device_pointer, self.plugin_memory = memory_managers.host_allocation(
                plugin, max(nbytes, 1), mapped, portable, wc
            )
            return
        cu = drv.driver()
        flags = 0
        if mapped:
            flags |= cu.CU_MEMHOSTALLOC_DEVICEMAP
        if portable:
            flags |= cu.CU_MEMHOSTALLOC_PORTABLE
        if wc:
            flags |= cu.CU_MEMHOSTALLOC_WRITECOMBINED
        # a zero-byte request still gets a valid, unique address
        self.pointer = int(drv.check("cuMemHostAlloc", cu.cuMemHostAlloc(max(nbytes, 1), flags)))
        self.device_pointer = None
        if mapped:
            self.device_pointer = int(
                drv.check("cuMemHostGetDevicePointer", cu.cuMemHostGetDevicePointer(self.pointer, 0))
            )

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return {"data": (self.pointer, False), "shape": (self.nbytes,), "typestr": "|u1", "version": 3}

    def __del__(self) -> None:
        pointer, self.pointer = getattr(self, "pointer", 0), 0
        if pointer and getattr(self, "plugin_memory", None) is None:
            release(self.free_call, pointer, getattr(self, "made_in", None))
        self.plugin_memory = None


def _host_array(
    cls: type[_Array],
    shape: Extents,
    dtype: DTypeLike,
    strides: Extents | None,
    order: str,
    allocation: type[HostAllocation] = HostAllocation,
    **flags: bool,
) -> tuple[_Array, HostAllocation]:
    shape = normalize_shape(shape)
    dtype = checked_dtype(dtype)
    strides = allocation_strides(shape, dtype.itemsize, strides, order)
    _, high = byte_extent(shape, strides, dtype.itemsize)
    memory = allocation(high, **flags)
    array = np.ndarray.__new__(cls, shape, dtype, buffer=np.asarray(memory), strides=strides)
    return array, memory


def pinned_array(
    shape: Extents, dtype: DTypeLike = np.float64, strides: Extents | None = None, order: str = "C"
) -> np.ndarray:
    """A NumPy array in page-locked host memory."""
    array, _ = _host_array(np.ndarray, shape, dtype, strides, order)
    return array


class MappedNDArray(np.ndarray):
    """A NumPy array in page-locked host memory mapped into the device's address space:
    kernels given it read and write the host memory directly, with no copy. ``stream`` is
    the stream it was made with, as a device array's (its CUDA Array Interface names it)."""

    stream: object = 0

    def __array_finalize__(self, parent: object) -> None:
        # views keep the mapping and the stream; results of arithmetic are new, unmapped memory
        memory = getattr(parent, "_mapping", None)
        if memory is not None:
            address = self.__array_interface__["data"][0]
            if not memory.pointer <= address <= memory.pointer + memory.nbytes:
                memory = None
        self._mapping = memory
        self.stream = getattr(parent, "stream", 0) if memory is not None else 0

    @property
    def device_pointer(self) -> int:
        """The device address of element [0, ..., 0] (views included)."""
        memory = self._mapping
        if memory is None:
            raise ValueError("this array does not view mapped host memory")
        return memory.device_pointer + (self.__array_interface__["data"][0] - memory.pointer)

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self.device_pointer)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        contiguous = self.flags.c_contiguous
        return {
            "shape": self.shape,
            "strides": None if contiguous else self.strides,
            "data": (self.device_pointer, not self.flags.writeable),
            "typestr": self.dtype.str,
            "stream": stream_handle(self.stream) or None,
            "version": 3,
        }


def mapped_array(
    shape: Extents,
    dtype: DTypeLike = np.float64,
    strides: Extents | None = None,
    order: str = "C",
    stream: object = 0,
    portable: bool = False,
    wc: bool = False,
) -> MappedNDArray:
    """A host array the device reads and writes in place (``MappedNDArray``)."""
    array, memory = _host_array(MappedNDArray, shape, dtype, strides, order, mapped=True, portable=portable, wc=wc)
    array._mapping = memory
    array.stream = stream
    return array


def mapped_pointer(value: object) -> int | None:
    """The device address of a mapped array, or None for ordinary host arrays."""
    if isinstance(value, MappedNDArray) and value._mapping is not None:
        return value.device_pointer
    return None


class ManagedAllocation(HostAllocation):
    """cuMemAllocManaged memory: one address, valid on the host and on the device."""

    free_call = "cuMemFree"

    def __init__(self, nbytes: int, attach_global: bool = True) -> None:
        self.made_in = drv.lifetime()
        self.nbytes = nbytes
        self.plugin_memory = None
        plugin = memory_managers.external(drv.current_context())
        if plugin is not None and hasattr(plugin, "memallocmanaged"):  # not in the plugin interface itself
            self.plugin_memory = plugin.memallocmanaged(max(nbytes, 1), attach_global)
            self.pointer = self.device_pointer = device_address(self.plugin_memory)
            return
        cu = drv.driver()
        flag = cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL if attach_global else cu.CUmemAttach_flags.CU_MEM_ATTACH_HOST
        self.pointer = int(drv.check("cuMemAllocManaged", cu.cuMemAllocManaged(max(nbytes, 1), int(flag))))
        self.device_pointer = self.pointer


class ManagedNDArray(MappedNDArray):
    """A NumPy array in managed memory: the host and kernels use the same address."""


def managed_array(
    shape: Extents,
    dtype: DTypeLike = np.float64,
    strides: Extents | None = None,
    order: str = "C",
    stream: object = 0,
    attach_global: bool = True,
) -> ManagedNDArray:
    """A NumPy array in managed (unified) memory, usable on the host and by kernels."""
    array, memory = _host_array(
        ManagedNDArray, shape, dtype, strides, order, allocation=ManagedAllocation, attach_global=attach_global
    )
    array._mapping = memory
    array.stream = stream
    return array


class _Registration:
    """The memory of an existing NumPy array page-locked with cuMemHostRegister (and, when
    *mapped*, given a device address) until ``release()``."""

    def __init__(self, array: np.ndarray, mapped: bool) -> None:
        if not isinstance(array, np.ndarray):
            raise TypeError(f"only NumPy arrays can be page-locked, not {type(array).__name__}")
        cu = drv.driver()
        low, high = byte_extent(array.shape, array.strides, array.itemsize)
        self.start = array.__array_interface__["data"][0] + low
        self.offset = -low  # of element [0, ..., 0] from the start of the range
        self.pointer = None
        self.device_pointer = None
        self.pinning: object = None  # a memory manager's object for the pinned range
        if high == low:  # nothing to lock
            self.device_pointer = 0
            return
        plugin = memory_managers.external(drv.current_context())
        if plugin is not None:  # the context's memory manager pins it; dropping its object unpins it
            self.pinning = plugin.mempin(array, self.start, high - low, mapped)
            if mapped:
                self.device_pointer = device_address(self.pinning) + self.offset
            return
        flags = cu.CU_MEMHOSTREGISTER_DEVICEMAP if mapped else 0
        result = cu.cuMemHostRegister(self.start, high - low, flags)
        if result[0] == cu.CUresult.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
            pass  # already page-locked (a pinned array): leave it as it is
        else:
            drv.check("cuMemHostRegister", result)
            self.pointer = self.start
        if mapped:
            start = drv.check("cuMemHostGetDevicePointer", cu.cuMemHostGetDevicePointer(self.start, 0))
            self.device_pointer = int(start) + self.offset

    def release(self) -> None:
        self.pinning = None
        pointer, self.pointer = self.pointer, None
        if pointer is not None:
            drv.check("cuMemHostUnregister", drv.driver().cuMemHostUnregister(pointer))


@contextlib.contextmanager
def pinned(*arrays: np.ndarray) -> Iterator[None]:
    """Page-lock the memory of NumPy *arrays* while the block runs (faster copies)."""
    drv.current_context()
    registrations = []
    try:
        for array in arrays:
            registrations.append(_Registration(array, mapped=False))
        yield
    finally:
        for registration in registrations:
            registration.release()


@contextlib.contextmanager
def mapped(*arrays: np.ndarray, stream: object = 0) -> Iterator[DeviceNDArray | list[DeviceNDArray]]:
    """Page-lock NumPy *arrays* and map them into the device while the block runs: yields
    device arrays over the same memory (one array, or a list for several)."""
    drv.current_context()
    registrations, views = [], []
    try:
        for array in arrays:
            registration = _Registration(array, mapped=True)
            registrations.append(registration)
            views.append(
                DeviceNDArray(
                    array.shape,
                    array.strides,
                    array.dtype,
                    stream=stream,
                    gpu_data=array,
                    pointer=registration.device_pointer,
                    readonly=not array.flags.writeable,
                )
            )
        yield views[0] if len(views) == 1 else views
    finally:
        for registration in registrations:
            registration.release()
