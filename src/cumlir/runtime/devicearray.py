"""Device arrays: N-d arrays in GPU memory, with Numba-CUDA's ``DeviceNDArray`` API.

An array is a pointer to element [0, ..., 0], a shape, byte strides and a dtype,
plus ``gpu_data``: the object that keeps the memory alive (an allocation of ours,
or the CuPy array, PyTorch tensor or DLPack capsule it was imported from). Views
share their parent's ``gpu_data``; memory is freed when the last of them dies.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dlpack, ipc, memory_managers
from . import driver as drv
from .array_types import array_type
from .cleanup import release
from .device_of import device_of
from .devicerecord import DeviceRecord
from .dlpack_export import export_array
from .implicit_copies import warn_of_the_copy
from .layout import (
    allocation_strides,
    byte_extent,
    cai_dtype,
    checked_dtype,
    contiguous_strides,
    is_contiguous,
    normalize_shape,
    reshaped,
    transposed,
    view_geometry,
)
from .streams import Stream, interface_sync_enabled, stream_handle

if TYPE_CHECKING:
    from numba.core import types
    from numpy.typing import DTypeLike

    from .layout import Extents


class _Addressed:
    """Numba-CUDA's names of a memory object's address (its ``MemoryPointer``'s), for code that
    reads ``array.gpu_data.device_pointer``."""

    pointer: int

    @property
    def device_pointer(self) -> int:
        return self.pointer

    @property
    def device_pointer_value(self) -> int | None:
        return self.pointer or None


class DeviceMemory(_Addressed):
    """Device memory of the current context, freed when garbage-collected: a cuMemAlloc
    allocation, or the memory object of the context's memory manager (``plugin_memory``,
    which gives the memory back when it is dropped)."""

    def __init__(self, nbytes: int) -> None:
        context = drv.current_context()
        self.made_in = drv.lifetime(context.ordinal)
        self.ordinal = context.ordinal  # the device it is on
        self.nbytes = nbytes
        self.plugin_memory: object = None
        if not nbytes:
            self.pointer = 0
        elif memory_managers.external(context) is None:
            try:
                self.pointer = int(drv.check("cuMemAlloc", drv.driver().cuMemAlloc(nbytes)))
            except drv.CudaDriverError as e:
                e.doing(f"allocating {nbytes} bytes of device memory on CUDA device {context.ordinal}")
                raise
        else:
            self.pointer, self.plugin_memory = memory_managers.device_allocation(context, nbytes)

    def __del__(self) -> None:
        pointer, self.pointer = getattr(self, "pointer", 0), 0
        if pointer and getattr(self, "plugin_memory", None) is None:
            release("cuMemFree", pointer, self.made_in)
        self.plugin_memory = None


class ForeignMemory(_Addressed):
    """Device memory an array was made over without an object that owns it
    (``from_cuda_array_interface`` with no *owner*): whoever made it keeps it alive."""

    def __init__(self, pointer: int) -> None:
        self.pointer = pointer


# ---- copies --------------------------------------------------------------------------------


def _copy(kind: str, destination: int, source: int, nbytes: int, stream: int) -> None:
    """cuMemcpy{kind}: synchronous on stream 0, else queued on *stream*."""
    if not nbytes:
        return
    drv.current_context()  # a thread that has not used CUDA yet has no context current
    cu = drv.driver()
    if stream:
        name = f"cuMemcpy{kind}Async"
        drv.check(name, getattr(cu, name)(destination, source, nbytes, stream))
    else:
        name = f"cuMemcpy{kind}"
        drv.check(name, getattr(cu, name)(destination, source, nbytes))


def _host_address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _same_shape(
    what: str, a_shape: Sequence[int], a_dtype: DTypeLike, b_shape: Sequence[int], b_dtype: DTypeLike
) -> None:
    if np.dtype(a_dtype) != np.dtype(b_dtype):
        raise TypeError(f"{what}: incompatible dtypes {a_dtype} and {b_dtype}")
    if tuple(a_shape) != tuple(b_shape):
        raise ValueError(f"{what}: incompatible shapes {tuple(a_shape)} and {tuple(b_shape)}")


class DeviceNDArray:
    """An array in device memory (Numba-CUDA's ``DeviceNDArray``)."""

    def __init__(
        self,
        shape: Extents,
        strides: Extents | None,
        dtype: DTypeLike,
        stream: object = 0,
        gpu_data: object = None,
        *,
        pointer: int | None = None,
        readonly: bool = False,
    ) -> None:
        self.shape = normalize_shape(shape)
        self.dtype = checked_dtype(dtype)
        itemsize = self.dtype.itemsize
        self.strides = allocation_strides(self.shape, itemsize, strides, "C")
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.stream = stream
        if gpu_data is None and pointer is not None:  # memory someone else owns (no owner given)
            gpu_data = ForeignMemory(pointer)
        if gpu_data is None:
            low, high = byte_extent(self.shape, self.strides, itemsize)
            if low < 0:
                raise ValueError(f"a new device array cannot have negative strides {self.strides}")
            gpu_data = DeviceMemory(high)
            pointer = gpu_data.pointer
        elif pointer is None:
            pointer = int(getattr(gpu_data, "pointer", 0))
        self.gpu_data = gpu_data
        self._pointer = int(pointer)
        self._readonly = readonly
        self._argument_type: types.Array | None = None  # the kernel argument type, computed at the first launch

    # ---- attributes ----

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def alloc_size(self) -> int:
        low, high = byte_extent(self.shape, self.strides, self.dtype.itemsize)
        return high - low

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self._pointer or None)

    @property
    def device_pointer(self) -> int:
        """The device address of element [0, ..., 0], as an int."""
        return self._pointer

    @property
    def _device_id(self) -> int | None:
        """The device the memory is on: the allocation's, or that of the CuPy array or
        PyTorch tensor it was imported from; None where its kind does not say."""
        ordinal = getattr(self.gpu_data, "ordinal", None)
        return ordinal if ordinal is not None else device_of(self.gpu_data)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"<cumlir DeviceNDArray shape={self.shape} dtype={self.dtype} at {self._pointer:#x}>"

    def is_c_contiguous(self) -> bool:
        return is_contiguous(self.shape, self.strides, self.dtype.itemsize, "C")

    def is_f_contiguous(self) -> bool:
        return is_contiguous(self.shape, self.strides, self.dtype.itemsize, "F")

    @property
    def flags(self) -> dict[str, bool]:
        return {"C_CONTIGUOUS": self.is_c_contiguous(), "F_CONTIGUOUS": self.is_f_contiguous()}

    def _default_stream(self, stream: object) -> int:
        return stream_handle(stream if stream else self.stream)

    # ---- views ----

    def _view(
        self, shape: Extents, strides: Extents | None, offset: int = 0, dtype: np.dtype | None = None
    ) -> DeviceNDArray:
        return DeviceNDArray(
            shape,
            strides,
            self.dtype if dtype is None else dtype,
            stream=self.stream,
            gpu_data=self.gpu_data,
            pointer=self._pointer + offset,
            readonly=self._readonly,
        )

    def __getitem__(self, key: Any) -> Any:
        return self.getitem(key)

    def getitem(self, key: Any, stream: object = 0) -> Any:
        """A view for slices; an element (copied to the host) when every axis gets an integer,
        but a record, which stays in device memory as a DeviceRecord (as Numba-CUDA's)."""
        offset, shape, strides, is_element = view_geometry(self.shape, self.strides, self.dtype, key)
        view = self._view(shape, strides, offset)
        if not is_element:
            return view
        if self.dtype.names is not None:
            return DeviceRecord.over(view)
        host = np.empty(1, self.dtype)
        stream = self._default_stream(stream)
        _copy("DtoH", _host_address(host), view._pointer, self.dtype.itemsize, stream)
        if stream:
            drv.check("cuStreamSynchronize", drv.driver().cuStreamSynchronize(stream))
        return host[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.setitem(key, value)

    def setitem(self, key: Any, value: Any, stream: object = 0) -> None:
        offset, shape, strides, _ = view_geometry(self.shape, self.strides, self.dtype, key)
        view = self._view(shape, strides, offset)
        if is_device_array(value):
            view.copy_to_device(value, stream=stream)
        else:
            view.copy_to_device(np.broadcast_to(np.asarray(value, dtype=self.dtype), shape), stream=stream)

    def bind(self, stream: object = 0) -> DeviceNDArray:
        """This array with *stream* the default of its copies (Numba-CUDA's ``bind``)."""
        bound = self._view(self.shape, self.strides)
        bound.stream = stream
        return bound

    def split(self, section: int, stream: object = 0) -> Iterator[DeviceNDArray]:
        """Views of *section* elements each (the last may be shorter) of a 1-d array of unit stride."""
        if self.ndim != 1 or (self.size > 1 and self.strides[0] != self.dtype.itemsize):
            raise ValueError(f"split() takes a 1-d array of unit stride, got shape {self.shape} strides {self.strides}")
        for begin in range(0, self.size, section):
            piece = self._view((min(section, self.size - begin),), None, begin * self.dtype.itemsize)
            piece.stream = stream if stream else self.stream
            yield piece

    def transpose(self, *axes: Any) -> DeviceNDArray:
        shape, strides = transposed(self.shape, self.strides, axes)
        return self._view(shape, strides)

    @property
    def T(self) -> DeviceNDArray:
        return self.transpose()

    def reshape(self, *newshape: Any, order: str = "C") -> DeviceNDArray:
        if order == "A":  # NumPy's: F for an array that is F-contiguous only, else C
            order = "F" if self.is_f_contiguous() and not self.is_c_contiguous() else "C"
        shape, strides = reshaped(self.shape, self.strides, self.dtype.itemsize, newshape, order)
        return self._view(shape, strides)

    def ravel(self, order: str = "C") -> DeviceNDArray:
        return self.reshape(self.size, order=order)

    def view(self, dtype: DTypeLike) -> DeviceNDArray:
        """Reinterpret the elements as *dtype* (the last axis must be contiguous)."""
        dtype = checked_dtype(dtype)
        if dtype.itemsize == self.dtype.itemsize:
            return self._view(self.shape, self.strides, dtype=dtype)
        if not self.shape or self.strides[-1] != self.dtype.itemsize:
            raise ValueError("changing the item size needs a contiguous last axis")
        last = self.shape[-1] * self.dtype.itemsize
        if last % dtype.itemsize:
            raise ValueError(f"the last axis of {last} bytes is not a multiple of the new item size {dtype.itemsize}")
        return self._view(
            self.shape[:-1] + (last // dtype.itemsize,), self.strides[:-1] + (dtype.itemsize,), dtype=dtype
        )

    # ---- copies ----

    def copy_to_host(self, ary: np.ndarray | None = None, stream: object = 0) -> np.ndarray:
        """Copy to a new host array, or into *ary*; queued on *stream* when one is given."""
        stream = self._default_stream(stream)
        low, high = byte_extent(self.shape, self.strides, self.dtype.itemsize)
        if ary is not None:
            if not isinstance(ary, np.ndarray):
                raise TypeError(f"copy_to_host needs a NumPy array to copy into, got {type(ary).__name__}")
            _same_shape("copy_to_host", self.shape, self.dtype, ary.shape, ary.dtype)
            if not ary.flags.writeable:
                raise ValueError("copy_to_host: the destination array is read-only")
        contiguous = self.is_c_contiguous() or self.is_f_contiguous()
        if ary is not None and contiguous and _matches(ary, self):
            _copy("DtoH", _host_address(ary) + low, self._pointer + low, high - low, stream)
            return ary
        span = np.empty(high - low, np.uint8)
        _copy("DtoH", _host_address(span), self._pointer + low, high - low, stream)
        result = np.ndarray(self.shape, self.dtype, buffer=span, offset=-low, strides=self.strides)
        if ary is None:
            return result
        if stream:  # the gathered bytes must be here before they are scattered into *ary*
            drv.check("cuStreamSynchronize", drv.driver().cuStreamSynchronize(stream))
        ary[...] = result
        return ary

    def copy_to_device(self, ary: Any, stream: object = 0) -> None:
        """Copy *ary* (a host array or another device array of the same shape and dtype) here."""
        stream = self._default_stream(stream)
        if is_device_array(ary):
            source: Any = ary if isinstance(ary, DeviceNDArray) else as_device_array(ary)  # further on, a host array
            _same_shape("copy_to_device", self.shape, self.dtype, source.shape, source.dtype)
            if not (_matches(source, self) and (self.is_c_contiguous() or self.is_f_contiguous())):
                raise ValueError(
                    f"incompatible strides: {source.strides} vs. {self.strides}: copies between device "
                    "arrays need the same layout; copy through the host or a kernel"
                )
            _copy("DtoD", self._pointer, source._pointer, self.nbytes, stream)
            return
        if not isinstance(ary, np.ndarray):
            ary = np.asarray(ary)
            if ary.dtype.hasobject:
                raise TypeError(f"cannot copy a {type(ary).__name__} of Python objects to a device array")
        _same_shape("copy_to_device", self.shape, self.dtype, ary.shape, ary.dtype)
        low, high = byte_extent(self.shape, self.strides, self.dtype.itemsize)
        for order in ("C", "F"):
            if is_contiguous(self.shape, self.strides, self.dtype.itemsize, order):
                source = np.asarray(ary, order=order)
                _copy("HtoD", self._pointer + low, _host_address(source), high - low, stream)
                return
        # a strided view: write the elements into its span, leaving the bytes between them as they are
        span = self.copy_to_host(stream=stream)
        if stream:
            drv.check("cuStreamSynchronize", drv.driver().cuStreamSynchronize(stream))
        span[...] = ary
        _copy("HtoD", self._pointer + low, _host_address(span) + low, high - low, 0)

    def copy(self, stream: object = 0) -> DeviceNDArray:
        """A new contiguous device array with the same contents."""
        if not (self.is_c_contiguous() or self.is_f_contiguous()):
            raise NotImplementedError("copying a non-contiguous device array is not supported")
        result = DeviceNDArray(self.shape, self.strides, self.dtype, stream=self.stream)
        result.copy_to_device(self, stream=stream)
        return result

    # ---- interoperability ----

    @property
    def _numba_type_(self) -> Any:
        """numba's typeof protocol: the Numba type the array has as a kernel argument (layout
        "C", "F" or "A", as its strides give)."""
        if self._argument_type is None:
            self._argument_type = array_type(self.dtype, self.shape, self.strides, self._readonly, "the array")
        return self._argument_type

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        handle = stream_handle(self.stream)
        return {
            "shape": self.shape,
            "strides": None if self.is_c_contiguous() else self.strides,
            "data": (self._pointer, self._readonly),
            "typestr": self.dtype.str,
            "stream": handle if handle else None,
            "version": 3,
        }

    def get_ipc_handle(self) -> IpcArrayHandle:
        """An IpcArrayHandle another process on this machine opens to use this array's memory
        (memory from cuMemAlloc; the handle pickles)."""
        handle = ipc.export(self.device_pointer, self.gpu_data, IpcHandle)
        return IpcArrayHandle(handle, {"shape": self.shape, "strides": self.strides, "dtype": self.dtype})

    def __dlpack_device__(self) -> tuple[int, int]:
        return (dlpack.CUDA, drv.current_context().ordinal)

    def __dlpack__(
        self,
        *,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> object:
        return export_array(self, stream, max_version, dl_device, copy)


def _matches(a: np.ndarray | DeviceNDArray, b: DeviceNDArray) -> bool:
    """Same layout in memory: strides equal on every axis longer than 1."""
    return all(n <= 1 or s == t for n, s, t in zip(a.shape, a.strides, b.strides))


# ---- constructing ---------------------------------------------------------------------------


def device_array(
    shape: Extents, dtype: DTypeLike = np.float64, strides: Extents | None = None, order: str = "C", stream: object = 0
) -> DeviceNDArray:
    shape = normalize_shape(shape)
    dtype = checked_dtype(dtype)
    strides = allocation_strides(shape, dtype.itemsize, strides, order)
    return DeviceNDArray(shape, strides, dtype, stream=stream)


DeviceRecord._array_class = DeviceNDArray


def from_record_like(rec: Any, stream: object = 0, gpu_data: object = None) -> DeviceRecord:
    """A DeviceRecord of *rec*'s dtype (a NumPy or device record), uninitialised unless it
    is over *gpu_data* (Numba-CUDA's ``devicearray.from_record_like``)."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


def from_host(obj: Any, stream: object = 0, copy: bool = True) -> Any:
    """A device array holding (a copy of) the host array-like *obj*; a DeviceRecord for a
    NumPy record."""
    if isinstance(obj, np.void) and obj.dtype.names is not None:
        return DeviceRecord.over(from_host(np.asarray(obj), stream, copy))
    array = obj if isinstance(obj, np.ndarray) else np.asarray(obj)
    if array.dtype.hasobject:
        raise TypeError(f"a {type(obj).__name__} holding Python objects cannot be copied to the device")
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        array = np.ascontiguousarray(array)
    result = DeviceNDArray(array.shape, array.strides, array.dtype, stream=stream)
    if copy:
        result.copy_to_device(array, stream=stream)
    return result


def auto_device(
    obj: Any, stream: object = 0, copy: bool = True, user_explicit: bool = False
) -> tuple[DeviceNDArray | DeviceRecord, bool]:
    """Numba-CUDA's ``devicearray.auto_device``: (a device array for *obj*, whether it is a new
    copy). Device arrays and ``__cuda_array_interface__`` objects are used in place; anything
    else NumPy reads is copied (when *copy*), which must be contiguous (ValueError); a NumPy
    array copied when not *user_explicit* gets the implicit copy's performance warning."""
    if isinstance(obj, (DeviceNDArray, DeviceRecord)):
        return obj, False
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return from_cuda_array_interface(interface, owner=obj), False
    array = np.asarray(obj)
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        raise ValueError("auto_device: the array is not contiguous; copy it with np.ascontiguousarray first")
    if copy and not user_explicit and isinstance(obj, np.ndarray):
        warn_of_the_copy()
    return from_host(obj if isinstance(obj, np.void) else array, stream=stream, copy=copy), True


def is_device_array(obj: object) -> bool:
    return isinstance(obj, DeviceNDArray) or hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(cai: Mapping[str, Any], owner: object = None, sync: bool = True) -> DeviceNDArray:
    """A DeviceNDArray over the memory a ``__cuda_array_interface__`` dict describes."""
    if cai.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported (a __cuda_array_interface__ with a mask)")
    if "version" not in cai or "shape" not in cai or "data" not in cai or "typestr" not in cai:
        raise TypeError(f"a __cuda_array_interface__ needs version, shape, typestr and data; got {sorted(cai)}")
    dtype = cai_dtype(cai)
    shape = tuple(cai["shape"])
    strides = cai.get("strides") or contiguous_strides(shape, dtype.itemsize, "C")
    pointer, readonly = cai["data"]
    producer = cai.get("stream")
    if producer == 0:
        raise ValueError("a __cuda_array_interface__ stream of 0 is not allowed (use 1 for the legacy default stream)")
    # the producer's stream, as Numba-CUDA takes it: the array's own, waited for once here
    stream = Stream(producer, external=True) if producer is not None else 0
    if isinstance(stream, Stream) and sync and interface_sync_enabled():
        stream.synchronize()
    return DeviceNDArray(
        shape, strides, dtype, stream=stream, gpu_data=owner, pointer=pointer or 0, readonly=bool(readonly)
    )


def as_device_array(obj: Any, sync: bool = True) -> DeviceNDArray:
    """A DeviceNDArray sharing the memory of *obj* (any ``__cuda_array_interface__`` object)."""
    if isinstance(obj, DeviceNDArray):
        return obj._view(obj.shape, obj.strides)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError(f"a {type(obj).__name__} does not implement the CUDA Array Interface")
    return from_cuda_array_interface(cai, owner=obj, sync=sync)


def from_dlpack(obj: Any, stream: object = None) -> DeviceNDArray:
    """A DeviceNDArray sharing the memory of any object with ``__dlpack__`` on the current GPU;
    work the producer queued is ordered before *stream* (the legacy default stream if None)."""
    array = import_dlpack(obj, 1 if not stream else stream_handle(stream))
    array.stream = stream or 0
    return array


def import_dlpack(obj: Any, consumer: int) -> DeviceNDArray:
    """from_dlpack with the consumer's stream given as DLPack numbers it (-1: no ordering)."""
    context = drv.current_context()
    imported = dlpack.import_capsule(obj, consumer)
    if imported.device[1] != context.ordinal:
        raise BufferError(
            f"the tensor is on CUDA device {imported.device[1]}, not the current device {context.ordinal}"
        )
    return DeviceNDArray(
        imported.shape,
        imported.strides,
        imported.dtype,
        gpu_data=imported,
        pointer=imported.pointer,
        readonly=imported.readonly,
    )


# ---- CUDA IPC --------------------------------------------------------------------------------


class IpcHandle(ipc.IpcMemoryHandle):
    """An IPC handle (see runtime/ipc.py) that also opens as a device array."""

    def open_array(
        self, context: drv.Context | None, shape: Extents, dtype: DTypeLike, strides: Extents | None = None
    ) -> DeviceNDArray:
        """``open`` as a device array of *shape*, *dtype* and *strides* (compact C order by default)."""
        shape, dtype = normalize_shape(shape), checked_dtype(dtype)
        strides = allocation_strides(shape, dtype.itemsize, strides, "C")
        return DeviceNDArray(shape, strides, dtype, gpu_data=self, pointer=self.open(context))


class IpcArrayHandle:
    """What ``DeviceNDArray.get_ipc_handle()`` returns: an IpcHandle and the array's shape,
    strides and dtype. In another process, ``open()`` (or ``with handle as array:``) gives
    a device array over the same memory; ``close()`` unmaps it."""

    def __init__(self, ipc_handle: IpcHandle, array_desc: dict[str, Any]) -> None:
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self) -> DeviceNDArray:
        desc = self._array_desc
        return self._ipc_handle.open_array(drv.current_context(), desc["shape"], desc["dtype"], desc["strides"])

    def close(self) -> None:
        self._ipc_handle.close()

    def __enter__(self) -> DeviceNDArray:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def open_ipc_array(
    handle: bytes, shape: Extents, dtype: DTypeLike, strides: Extents | None = None, offset: int = 0
) -> Iterator[DeviceNDArray]:
    """Open the IPC memory handle *handle* (its 64 bytes) as a device array for the block."""
    dtype = checked_dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    opened = IpcHandle(None, handle, size, offset=offset)
    array = opened.open_array(drv.current_context(), shape, dtype, strides)
    try:
        yield array
    finally:
        opened.close()
