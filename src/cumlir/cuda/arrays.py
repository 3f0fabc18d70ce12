"""Device, pinned and mapped arrays, and arrays shared with other libraries
(CUDA Array Interface, DLPack). The runtime is imported when one is first made."""

import numpy as np


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a host array (or array-like) to a new device array, or into *to*.

    Device arrays and objects with ``__cuda_array_interface__`` are returned as
    device arrays without a copy."""
    from ..runtime import devicearray as da

    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, da.DeviceNDArray):
        return obj
    if hasattr(obj, "__cuda_array_interface__"):
        return da.as_device_array(obj, sync=False)
    return da.from_host(obj, stream=stream, copy=copy)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised array in device memory."""
    from ..runtime.devicearray import device_array as allocate

    return allocate(shape, dtype, strides, order, stream)


def device_array_like(ary, stream=0):
    """An uninitialised device array with the shape, dtype and axis order of *ary*."""
    from ..runtime.devicearray import device_array as allocate
    from ..runtime.layout import strides_like

    return allocate(ary.shape, ary.dtype, strides_like(ary), stream=stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A NumPy array in page-locked host memory (fast, asynchronous copies)."""
    from ..runtime.hostmemory import pinned_array as allocate

    return allocate(shape, dtype, strides, order)


def pinned_array_like(ary):
    from ..runtime.hostmemory import pinned_array as allocate
    from ..runtime.layout import strides_like

    return allocate(ary.shape, ary.dtype, strides_like(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """A host array mapped into the device: kernels read and write it in place."""
    from ..runtime.hostmemory import mapped_array as allocate

    return allocate(shape, dtype, strides, order, stream, portable, wc)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    from ..runtime.hostmemory import mapped_array as allocate
    from ..runtime.layout import strides_like

    return allocate(ary.shape, ary.dtype, strides_like(ary), stream=stream, portable=portable, wc=wc)


def as_cuda_array(obj, sync=True):
    """A device array sharing the memory of *obj*, which has ``__cuda_array_interface__``.

    With *sync*, work queued on the stream *obj* reports is finished first."""
    from ..runtime.devicearray import as_device_array

    return as_device_array(obj, sync=sync)


def is_cuda_array(obj):
    """Whether *obj* exposes the CUDA Array Interface."""
    return hasattr(obj, "__cuda_array_interface__")


def from_dlpack(obj):
    """A device array sharing the memory of *obj* (anything with ``__dlpack__`` on a CUDA device)."""
    from ..runtime.devicearray import from_dlpack as share

    return share(obj)


def is_device_array(obj):
    """Whether *obj* is a cumlir device array."""
    from ..runtime.devicearray import DeviceNDArray

    return isinstance(obj, DeviceNDArray)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """A NumPy array in managed memory, which host code and kernels use at the same address.
    With *attach_global* False it is attached to the host (see cuMemAllocManaged)."""
    from ..runtime.hostmemory import managed_array as allocate

    return allocate(shape, dtype, strides, order, stream, attach_global)


def pinned(*arrays):
    """``with cuda.pinned(a, b):`` page-locks the NumPy arrays' memory for the block."""
    from ..runtime.hostmemory import pinned as pin

    return pin(*arrays)


def mapped(*arrays, stream=0):
    """``with cuda.mapped(a) as d_a:`` page-locks NumPy arrays and maps them into the device
    for the block; yields a device array over each (one, or a list for several)."""
    from ..runtime.hostmemory import mapped as map_arrays

    return map_arrays(*arrays, stream=stream)


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array over the memory a ``__cuda_array_interface__`` dict *desc* describes,
    keeping *owner* alive; with *sync*, work queued on its stream is finished first."""
    from ..runtime.devicearray import from_cuda_array_interface as wrap

    return wrap(desc, owner=owner, sync=sync)


def defer_cleanup():
    """``with cuda.defer_cleanup():`` holds back frees of device and host memory until the
    block ends (frees can synchronize the device)."""
    from ..runtime.cleanup import defer_cleanup as defer

    return defer()


def prepare_shape_strides_dtype(shape, strides, dtype, order):
    """(shape, strides, dtype) of a new array, checked: an int shape or stride becomes a
    tuple, strides default to compact ones in *order*, dtype becomes a NumPy dtype."""
    from ..runtime.layout import allocation_strides, checked_dtype, normalize_shape

    shape = normalize_shape(shape)
    dtype = checked_dtype(dtype)
    if isinstance(strides, int):
        strides = (strides,)
    return shape, allocation_strides(shape, dtype.itemsize, strides, order), dtype


def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """``with cuda.open_ipc_array(handle, shape, dtype) as d:`` opens the CUDA IPC memory
    handle *handle* (its 64 bytes, from another process on this machine) as a device array
    for the block (compact C order unless *strides* are given)."""
    from ..runtime.devicearray import open_ipc_array as open_array

    return open_array(handle, shape, dtype, strides, offset)
