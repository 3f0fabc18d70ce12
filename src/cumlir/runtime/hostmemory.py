"""Page-locked host memory: pinned arrays (fast, asynchronous copies) and mapped
arrays (host memory the device reads and writes in place, through its own address)."""

import numpy as np

from . import driver as drv
from .layout import allocation_strides, byte_extent, checked_dtype, normalize_shape


class HostAllocation:
    """Page-locked host memory from cuMemHostAlloc, freed when the last array over it dies.

    NumPy arrays are built over it through ``__array_interface__``; they keep it alive
    as their base."""

    def __init__(self, nbytes, mapped=False, portable=False, wc=False):
        drv.current_context()
        cu = drv.driver()
        flags = 0
        if mapped:
            flags |= cu.CU_MEMHOSTALLOC_DEVICEMAP
        if portable:
            flags |= cu.CU_MEMHOSTALLOC_PORTABLE
        if wc:
            flags |= cu.CU_MEMHOSTALLOC_WRITECOMBINED
        self.nbytes = nbytes
        # a zero-byte request still gets a valid, unique address
        self.pointer = int(drv.check("cuMemHostAlloc", cu.cuMemHostAlloc(max(nbytes, 1), flags)))
        self.device_pointer = None
        if mapped:
            self.device_pointer = int(
                drv.check("cuMemHostGetDevicePointer", cu.cuMemHostGetDevicePointer(self.pointer, 0))
            )

    @property
    def __array_interface__(self):
        return {"data": (self.pointer, False), "shape": (self.nbytes,), "typestr": "|u1", "version": 3}

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", 0), 0
        if pointer and drv._driver is not None:
            try:
                drv._driver.cuMemFreeHost(pointer)
            except Exception:  # interpreter shutdown
                pass


def _host_array(cls, shape, dtype, strides, order, **flags):
    shape = normalize_shape(shape)
    dtype = checked_dtype(dtype)
    strides = allocation_strides(shape, dtype.itemsize, strides, order)
    _, high = byte_extent(shape, strides, dtype.itemsize)
    memory = HostAllocation(high, **flags)
    array = np.ndarray.__new__(cls, shape, dtype, buffer=np.asarray(memory), strides=strides)
    return array, memory


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A NumPy array in page-locked host memory."""
    array, _ = _host_array(np.ndarray, shape, dtype, strides, order)
    return array


class MappedNDArray(np.ndarray):
    """A NumPy array in page-locked host memory mapped into the device's address space:
    kernels given it read and write the host memory directly, with no copy."""

    def __array_finalize__(self, parent):
        # views keep the mapping; results of arithmetic are new, unmapped memory
        memory = getattr(parent, "_mapping", None)
        if memory is not None:
            address = self.__array_interface__["data"][0]
            if not memory.pointer <= address <= memory.pointer + memory.nbytes:
                memory = None
        self._mapping = memory

    @property
    def device_pointer(self):
        """The device address of element [0, ..., 0] (views included)."""
        memory = self._mapping
        if memory is None:
            raise ValueError("this array does not view mapped host memory")
        return memory.device_pointer + (self.__array_interface__["data"][0] - memory.pointer)

    @property
    def device_ctypes_pointer(self):
        import ctypes

        return ctypes.c_void_p(self.device_pointer)

    @property
    def __cuda_array_interface__(self):
        contiguous = self.flags.c_contiguous
        return {
            "shape": self.shape,
            "strides": None if contiguous else self.strides,
            "data": (self.device_pointer, not self.flags.writeable),
            "typestr": self.dtype.str,
            "stream": None,
            "version": 3,
        }


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """A host array the device reads and writes in place (``MappedNDArray``)."""
    array, memory = _host_array(MappedNDArray, shape, dtype, strides, order, mapped=True, portable=portable, wc=wc)
    array._mapping = memory
    return array


def mapped_pointer(value):
    """The device address of a mapped array, or None for ordinary host arrays."""
    if isinstance(value, MappedNDArray) and value._mapping is not None:
        return value.device_pointer
    return None
