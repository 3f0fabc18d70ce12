"""``DeviceRecord``: one record of a device array of records, in device memory, as Numba-CUDA's.

Indexing a device array of records down to one element gives a DeviceRecord, not a host copy,
so that ``d[0]["y"]["i"] = 1`` writes the device's bytes. Its fields read as Numba-CUDA's do:
a scalar field is copied to the host, a nested record is a DeviceRecord, a sub-array field a
device array over the record's bytes; assigning a field writes its bytes in place. A
DeviceRecord passed to a kernel is the record itself (a kernel's writes land in it).

It holds the 0-d device array of its bytes (a DeviceNDArray, whose module makes it, and sets
the class here) and asks that array for its views, so that this module does not import it.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .layout import record_bytes


class DeviceRecord:
    """One record (a structured dtype's element) in device memory."""

    # DeviceNDArray, set by its module, which imports this one
    _array_class: Any = None

    def __init__(self, dtype: Any, stream: object = 0, gpu_data: object = None) -> None:
        """A record of *dtype* in device memory: *gpu_data*'s, or a new allocation."""
        self._array = self._array_class((), None, dtype, stream=stream, gpu_data=gpu_data)
        if self.dtype.names is None:
            raise TypeError(f"a DeviceRecord holds a structured dtype, got {self.dtype}")

    @classmethod
    def over(cls, array: Any) -> DeviceRecord:
        """The record a 0-d device array of a structured dtype holds (its view, not a copy)."""
        if array.shape != () or array.dtype.names is None:
            raise TypeError(f"a DeviceRecord is one element of a structured dtype, got {array!r}")
        record = cls.__new__(cls)
        record._array = array
        return record

    dtype = property(lambda self: self._array.dtype)
    gpu_data = property(lambda self: self._array.gpu_data)
    stream = property(lambda self: self._array.stream)
    shape: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    ndim = 0
    size = 1

    @property
    def device_pointer(self) -> int:
        return self._array.device_pointer

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        return self._array.device_ctypes_pointer

    @property
    def alloc_size(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.dtype.itemsize

    @property
    def _numba_type_(self) -> Any:
        from numba.np import numpy_support  # loads numba: only numba's typeof asks this

        return numpy_support.from_dtype(self.dtype)

    def __repr__(self) -> str:
        return f"<cumlir DeviceRecord dtype={self.dtype} at {self.device_pointer:#x}>"

    def _field(self, key: str | int) -> tuple[np.dtype, Any]:
        names = self.dtype.names
        if isinstance(key, int) and not isinstance(key, bool) and -len(names) <= key < len(names):
            key = names[key]
        if not isinstance(key, str) or key not in self.dtype.fields:
            raise KeyError(f"the record dtype {self.dtype} has no field {key!r} (fields: {', '.join(names)})")
        ftype, offset = self.dtype.fields[key][:2]
        if ftype.subdtype is not None:
            base, shape = ftype.subdtype
            view = self._array._view(shape, None, offset, dtype=base)
        else:
            view = self._array._view((), (), offset, dtype=ftype)
        return ftype, view

    def __getitem__(self, key: str | int) -> Any:
        return self.getitem(key)

    def getitem(self, key: str | int, stream: object = 0) -> Any:
        """A field: a scalar copied to the host, a nested record as a DeviceRecord, a sub-array
        as a device array over the record's bytes."""
        ftype, view = self._field(key)
        if ftype.subdtype is not None:
            return view
        if ftype.names is not None:
            return DeviceRecord.over(view)
        return view.copy_to_host(stream=stream)[()]

    def __setitem__(self, key: str | int, value: Any) -> None:
        self.setitem(key, value)

    def setitem(self, key: str | int, value: Any, stream: object = 0) -> None:
        """Write the field's bytes: *value* converted to its dtype (broadcast over a sub-array)."""
        _, view = self._field(key)
        if isinstance(value, DeviceRecord):
            value = value.copy_to_host(stream=stream)
        view.copy_to_device(np.broadcast_to(np.asarray(value, dtype=view.dtype), view.shape), stream=stream)

    def copy_to_host(self, ary: Any = None, stream: object = 0) -> Any:
        """The record copied to the host (a 0-d array), or into *ary*: a NumPy record or 0-d array."""
        if isinstance(ary, np.void):
            if ary.dtype != self.dtype:
                raise TypeError(f"copy_to_host: incompatible dtypes {self.dtype} and {ary.dtype}")
            record_bytes(ary)[...] = self._array.copy_to_host(stream=stream).reshape(1).view(np.uint8)
            return ary
        return self._array.copy_to_host(ary, stream=stream)

    def copy_to_device(self, ary: Any, stream: object = 0) -> None:
        """Write the whole record from a NumPy record (or 0-d array) of its dtype."""
        if isinstance(ary, DeviceRecord):
            ary = ary._array
        self._array.copy_to_device(ary if hasattr(ary, "__cuda_array_interface__") else np.asarray(ary), stream=stream)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return self._array.__cuda_array_interface__
