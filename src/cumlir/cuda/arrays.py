"""Device, pinned and mapped arrays, and arrays shared with other libraries
(CUDA Array Interface, DLPack). The runtime is imported when one is first made."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from ..runtime.devicearray import DeviceNDArray
    from ..runtime.hostmemory import ManagedNDArray, MappedNDArray

# an array's shape or strides as given: an int for one axis, or a tuple
Extents = int | tuple[int, ...]


def to_device(obj: Any, stream: object = 0, copy: bool = True, to: DeviceNDArray | None = None) -> Any:
    """Copy a host array (or array-like) to a new device array, or into *to*; a NumPy record
    to a DeviceRecord.

    Device arrays and objects with ``__cuda_array_interface__`` are returned as
    device arrays without a copy."""
    from ..runtime import devicearray as da

    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, (da.DeviceNDArray, da.DeviceRecord)):
        return obj
    if hasattr(obj, "__cuda_array_interface__"):
        return da.as_device_array(obj, sync=False)
    return da.from_host(obj, stream=stream, copy=copy)


def device_array(
    shape: Extents, dtype: DTypeLike = np.float64, strides: Extents | None = None, order: str = "C", stream: object = 0
) -> DeviceNDArray:
    """An uninitialised array in device memory."""
    from ..runtime.devicearray import device_array as allocate

    return allocate(shape, dtype, strides, order, stream)


def device_array_like(ary: Any, stream: object = 0) -> DeviceNDArray:
    """An uninitialised device array with the shape, dtype and axis order of *ary*."""
    from ..runtime.devicearray import device_array as allocate
    from ..runtime.layout import strides_like

    return allocate(ary.shape, ary.dtype, strides_like(ary), stream=stream)


def pinned_array(
    shape: Extents, dtype: DTypeLike = np.float64, strides: Extents | None = None, order: str = "C"
) -> np.ndarray:
    """A NumPy array in page-locked host memory (fast, asynchronous copies)."""
    from ..runtime.hostmemory import pinned_array as allocate

    return allocate(shape, dtype, strides, order)


def pinned_array_like(ary: Any) -> np.ndarray:
    from ..runtime.hostmemory import pinned_array as allocate
    from ..runtime.layout import strides_like

    return allocate(ary.shape, ary.dtype, strides_like(ary))


def mapped_array(
    shape: Extents,
    dtype: DTypeLike = np.float64,
    strides: Extents | None = None,
    order: str = "C",
    stream: object = 0,
    portable: bool = False,
    wc: bool = False,
) -> MappedNDArray:
    """A host array mapped into the device: kernels read and write it in place."""
    from ..runtime.hostmemory import mapped_array as allocate

    return allocate(shape, dtype, strides, order, stream, portable, wc)


def mapped_array_like(ary: Any, stream: object = 0, portable: bool = False, wc: bool = False) -> MappedNDArray:
    from ..runtime.hostmemory import mapped_array as allocate
    from ..runtime.layout import strides_like

    return allocate(ary.shape, ary.dtype, strides_like(ary), stream=stream, portable=portable, wc=wc)


def as_cuda_array(obj: Any, sync: bool = True) -> DeviceNDArray:
    """A device array sharing the memory of *obj*, which has ``__cuda_array_interface__``.

    With *sync*, work queued on the stream *obj* reports is finished first."""
    from ..runtime.devicearray import as_device_array

    return as_device_array(obj, sync=sync)


def is_cuda_array(obj: object) -> bool:
    """Whether *obj* exposes the CUDA Array Interface."""
    return hasattr(obj, "__cuda_array_interface__")


def from_dlpack(obj: Any) -> DeviceNDArray:
    """A device array sharing the memory of *obj* (anything with ``__dlpack__`` on a CUDA device)."""
    from ..runtime.devicearray import from_dlpack as share

    return share(obj)


def is_device_array(obj: object) -> bool:
    """Whether *obj* is a cumlir device array."""
    from ..runtime.devicearray import DeviceNDArray

    return isinstance(obj, DeviceNDArray)


def managed_array(
    shape: Extents,
    dtype: DTypeLike = np.float64,
    strides: Extents | None = None,
    order: str = "C",
    stream: object = 0,
    attach_global: bool = True,
) -> ManagedNDArray:
    """A NumPy array in managed memory, which host code and kernels use at the same address.
    With *attach_global* False it is attached to the host (see cuMemAllocManaged)."""
    from ..runtime.hostmemory import managed_array as allocate

    return allocate(shape, dtype, strides, order, stream, attach_global)


def pinned(*arrays: np.ndarray) -> contextlib.AbstractContextManager[None]:
    """``with cuda.pinned(a, b):`` page-locks the NumPy arrays' memory for the block."""
    from ..runtime.hostmemory import pinned as pin

    return pin(*arrays)


def mapped(
    *arrays: np.ndarray, stream: object = 0
) -> contextlib.AbstractContextManager[DeviceNDArray | list[DeviceNDArray]]:
    """``with cuda.mapped(a) as d_a:`` page-locks NumPy arrays and maps them into the device
    for the block; yields a device array over each (one, or a list for several)."""
    from ..runtime.hostmemory import mapped as map_arrays

    return map_arrays(*arrays, stream=stream)


def from_cuda_array_interface(desc: dict[str, Any], owner: object = None, sync: bool = True) -> DeviceNDArray:
    """A device array over the memory a ``__cuda_array_interface__`` dict *desc* describes,
    keeping *owner* alive; with *sync*, work queued on its stream is finished first."""
    from ..runtime.devicearray import from_cuda_array_interface as wrap

    return wrap(desc, owner=owner, sync=sync)


def defer_cleanup() -> contextlib.AbstractContextManager[None]:
    """``with cuda.defer_cleanup():`` holds back frees of device and host memory until the
    block ends (frees can synchronize the device); where a memory manager plugin is set,
    its own ``defer_cleanup()`` is held as well."""
    from ..runtime.memory_managers import defer_cleanup as defer

    return defer()


def prepare_shape_strides_dtype(
    shape: Extents, strides: Extents | None, dtype: DTypeLike, order: str
) -> tuple[tuple[int, ...], tuple[int, ...], np.dtype]:
    """(shape, strides, dtype) of a new array, checked: an int shape or stride becomes a
    tuple, strides default to compact ones in *order*, dtype becomes a NumPy dtype."""
    from ..runtime.layout import allocation_strides, checked_dtype, normalize_shape

    extents = normalize_shape(shape)
    checked = checked_dtype(dtype)
    if isinstance(strides, int):
        strides = (strides,)
    return extents, allocation_strides(extents, checked.itemsize, strides, order), checked


def open_ipc_array(
    handle: bytes, shape: Extents, dtype: DTypeLike, strides: Extents | None = None, offset: int = 0
) -> contextlib.AbstractContextManager[DeviceNDArray]:
    """``with cuda.open_ipc_array(handle, shape, dtype) as d:`` opens the CUDA IPC memory
    handle *handle* (its 64 bytes, from another process on this machine) as a device array
    for the block (compact C order unless *strides* are given)."""
    from ..runtime.devicearray import open_ipc_array as open_array

    return open_array(handle, shape, dtype, strides, offset)


def resolve_cuda_array_interface_dtype(typestr: str, owner_dtype: DTypeLike | None = None) -> np.dtype:
    """The dtype of a ``__cuda_array_interface__`` whose ``typestr`` is *typestr*: a record's
    typestr is only its size (``|V8``), so where *owner_dtype*, the dtype of the object
    exporting the interface, is a record of that size that kernels can take, that dtype."""
    from numba.core.errors import NumbaError
    from numba.np.numpy_support import from_dtype

    from ..runtime.layout import cai_dtype

    dtype = cai_dtype({"typestr": typestr})
    if dtype.kind != "V" or owner_dtype is None:
        return dtype
    try:
        owner = np.dtype(owner_dtype)
    except TypeError:
        return dtype
    if owner.itemsize != dtype.itemsize:
        return dtype
    try:
        from_dtype(owner)
    except NumbaError:
        return dtype
    return owner
