"""Reading device arrays at launch without their ``__cuda_array_interface__`` dict.

A launch fast path (runtime/fastpack.py) packs an array argument from a reader made
once per argument kind (the exact Python type: CuPy ``ndarray``, PyTorch ``Tensor``,
cumlir's and numba-cuda's ``DeviceNDArray``, a cuda.core ``Buffer``, any other CUDA
Array Interface object) and per argument type. A reader returns the array's parameter slots (data
pointer, offset 0, sizes, strides in elements, as runtime/arguments.py packs them), or
None when the value is not of the type the reader was made for (another dtype,
dimension count, layout or device): the launch then takes the general path, which
types the arguments again.

Readers give exactly the slots the general path gives: compact strides where the CUDA
Array Interface of that kind would give none (a C-contiguous CuPy array or PyTorch
tensor), the array's own strides otherwise, and a null pointer for an empty CuPy array
or tensor. The route that uses a reader checks this on the first value (fastpack's
build_route compares the bytes with the general packer's) and is not made where they
differ.

The CUDA Array Interface's ``stream`` (CuPy exports its current stream) is kept: a
reader of such a kind says so (``producer``), and the launch waits for that stream
unless it is the launch's own (``CUMLIR_CUDA_ARRAY_INTERFACE_SYNC=0`` or Numba-CUDA's
``NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0`` turn the wait off, as for the general path).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..lazy import lazy
from . import placement
from .devicearray import DeviceNDArray, import_dlpack
from .layout import array_layout, cai_dtype, contiguous_strides, element_strides, is_contiguous
from .plain_types import PlainArray
from .streams import interface_sync_enabled

if TYPE_CHECKING:
    import numpy as np
    from numba.core import types

    # a reader maker: (an argument, its type, the launch's device) -> a Reader, or None
    Maker = Callable[[Any, types.Array | PlainArray, int], "Reader | None"]

# CuPy's current stream, read as CuPy's own interface reads it: only for CuPy arrays
cupy_stream = lazy("cupy_backends.cuda.stream")
cupy = lazy("cupy")


SYNC = interface_sync_enabled()


def _compact(shape: Sequence[int]) -> tuple[int, ...]:
    """Element strides of a compact C-order array (what a missing CAI ``strides`` means)."""
    return (1,) if len(shape) == 1 else contiguous_strides(shape, 1, "C")


class Reader:
    """How the fast path reads one array argument: ``read(value)`` gives its slots or
    None; ``producer(value)`` the stream its CUDA Array Interface names (None: no wait)."""

    producer: Callable[[Any], int | None] | None = None  # a function, for kinds whose interface names a stream
    # None, or inline(name) -> (lines, slot expressions, names they use): the reader as code
    # in the launch function itself, reading the argument called *name*; ``return False``
    # where read(value) would give None
    inline: Callable[[str], tuple[list[str], list[str], dict[str, Any]]] | None = None
    stream: int | None  # the stream the last value read names (for producer), where it varies

    def __init__(self, read: Callable[[Any], tuple[int, ...] | None]) -> None:
        self.read = read


def _device_ndarray(sample: DeviceNDArray, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    # arrays remember their numba type: one typed so is read by identity; a plain type
    # (plain_types.py, a kernel from the on-disk cache) is checked array by array
    expected = sample._argument_type if sample._argument_type is ty else None
    if expected is None and not isinstance(ty, PlainArray):
        return None
    dtype, ndim, itemsize, readonly, layout = sample.dtype, ty.ndim, sample.dtype.itemsize, not ty.mutable, ty.layout

    def read(value: DeviceNDArray) -> tuple[int, ...] | None:
        known = value._argument_type
        if known is None or expected is None:  # a new array (a slice, say): typed like the others if it is alike
            if value.dtype is not dtype or value.ndim != ndim or bool(value._readonly) is not readonly:
                return None
            if array_layout(value.shape, value.strides, itemsize) != layout:
                return None
            if expected is not None:
                value._argument_type = known = expected
        elif known is not expected:
            return None
        strides = element_strides(value.strides, itemsize)
        if strides is None:
            return None
        return (value._pointer, 0, *value.shape, *strides)

    if not placement.several_devices():
        return Reader(read)

    # an array of another device goes the general way, which moves the launch
    def read_on_device(value: DeviceNDArray) -> tuple[int, ...] | None:
        return read(value) if value._device_id == ordinal else None

    return Reader(read_on_device)


def _layout_flags(layout: str) -> tuple[bool, bool]:
    return layout == "C", layout == "F"


def _cupy(sample: Any, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    dtype, ndim, itemsize = sample.dtype, sample.ndim, sample.dtype.itemsize
    want_c, want_f = _layout_flags(ty.layout)
    cai = sample.__cuda_array_interface__
    if (not ty.mutable) or cai.get("mask") is not None:
        return None

    def read(value: Any) -> tuple[int, ...] | None:
        data = value.data
        if value.dtype is not dtype or value.ndim != ndim or data.device_id != ordinal:
            return None
        c = value._c_contiguous
        if c is not want_c or not c and value._f_contiguous is not want_f:
            return None
        size = value.size
        pointer = data.ptr if size else 0
        if c:
            if ndim == 1:
                return (pointer, 0, size, 1)
            shape = value.shape
            return (pointer, 0, *shape, *_compact(shape))
        strides = element_strides(value.strides, itemsize)
        return None if strides is None else (pointer, 0, *value.shape, *strides)

    reader = Reader(read)
    if want_c and ndim == 1:
        reader.inline = functools.partial(_cupy_vector_lines, dtype=dtype, ordinal=ordinal)
    if "stream" in cai and cai["stream"] is not None:
        reader.producer = _cupy_producer(cai["stream"])
    return reader


def _cupy_vector_lines(name: str, dtype: np.dtype, ordinal: int) -> tuple[list[str], list[str], dict[str, Any]]:
    """A contiguous 1-d CuPy array read in place (the read of _cupy, for its commonest case)."""
    lines = [
        f"{name}_d = {name}.data",
        f"if {name}.dtype is not {name}_dtype or {name}.ndim != 1 or {name}_d.device_id != {ordinal} or {name}._c_contiguous is not True: return False",
        f"{name}_n = {name}.size",
    ]
    return lines, [f"({name}_d.ptr if {name}_n else 0)", "0", f"{name}_n", "1"], {f"{name}_dtype": dtype}


def _cupy_producer(exported: int) -> Callable[[Any], int]:
    """CuPy's interface names its current stream, the default one as 1 (or 2 with
    per-thread default streams): the same number without building the dict."""
    current = _cupy_current_stream()
    default = exported if current() == 0 else (2 if os.environ.get("CUPY_CUDA_PER_THREAD_DEFAULT_STREAM") == "1" else 1)
    return _cupy_stream(current, default)


@functools.cache
def _cupy_current_stream() -> Callable[[], int]:
    """The handle of CuPy's current stream, read as CuPy's own interface reads it."""
    try:
        return cupy_stream.get_current_stream_ptr
    except (ImportError, AttributeError):
        get = cupy.cuda.get_current_stream
        return lambda: get().ptr


@functools.cache
def _cupy_stream(current: Callable[[], int], default: int) -> Callable[[Any], int]:
    def producer(value: Any) -> int:
        return current() or default

    producer.per_launch = True  # type: ignore[attr-defined]  # the same for every CuPy argument of a launch
    producer.parts = (current, default)  # type: ignore[attr-defined]  # what a launch function may call in its place
    return producer


def _torch(sample: Any, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    """PyTorch tensors, read through their C-implemented attributes: torch builds the
    interface dict in Python at each read, a few microseconds per tensor. What the
    interface would say is rebuilt from them: no strides where ``is_contiguous()``
    (NumPy's rule, in elements), the strides otherwise; it refuses tensors that require
    grad or are not strided, and so does this reader, leaving the general path to say why."""
    if not ty.mutable:  # the interface of a tensor is never read-only
        return None
    dtype, strided, ndim, layout = sample.dtype, sample.layout, ty.ndim, ty.layout
    complex_ = bool(dtype.is_complex)  # a pending conjugation leaves to the general path, which refuses it

    def read(value: Any) -> tuple[int, ...] | None:
        if value.dtype is not dtype or value.layout is not strided or value.requires_grad:
            return None
        if complex_ and value.is_conj():
            return None
        if value.get_device() != ordinal:
            return None
        shape, strides = value.shape, value.stride()  # strides in elements
        if len(shape) != ndim:
            return None
        if is_contiguous(shape, strides, 1, "C"):  # torch's rule, NumPy's, holds for element strides too
            if layout != "C":
                return None
            strides = _compact(shape)
        elif array_layout(shape, strides, 1) != layout:
            return None
        return (value.data_ptr() if 0 not in shape else 0, 0, *shape, *strides)

    reader = Reader(read)
    if layout == "C" and ndim:
        reader.inline = functools.partial(
            _torch_compact_lines, ndim=ndim, dtype=dtype, strided=strided, ordinal=ordinal, complex_=complex_
        )
    return reader


def _torch_compact_lines(
    name: str, ndim: int, dtype: Any, strided: Any, ordinal: int, complex_: bool
) -> tuple[list[str], list[str], dict[str, Any]]:
    """A C-contiguous tensor read in place: torch's own ``is_contiguous()`` (the flag it
    keeps) answers what the interface's missing strides would, and the compact strides
    are computed from the extents, as the general packer computes them."""
    extents = [f"{name}_n{k}" for k in range(ndim)]
    lines = [
        f"if {name}.dtype is not {name}_dtype or {name}.layout is not {name}_strided or {name}.requires_grad: return False",
        f"if {name}.get_device() != {ordinal} or not {name}.is_contiguous(): return False",
        *([f"if {name}.is_conj(): return False"] if complex_ else []),
        f"{', '.join(extents)}, = {name}.shape",  # another dimension count raises: the general path takes it
    ]
    nonempty = " and ".join(extents)
    strides = ["1"]
    for extent in reversed(extents[1:]):  # an extent of 0 counts as 1 (contiguous_strides)
        strides.insert(0, f"({extent} or 1)" if strides[0] == "1" else f"({extent} or 1) * {strides[0]}")
    slots = [f"({name}.data_ptr() if {nonempty} else 0)", "0", *extents, *strides]
    return lines, slots, {f"{name}_dtype": dtype, f"{name}_strided": strided}


def _strides_omitted_by_numba(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    """numba-cuda's interface omits the strides of an array compact in C order once axes
    of extent 1 or stride 0 are left out (its own rule, not NumPy's)."""
    size = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent > 1 and stride != 0:
            if stride != size:
                return False
            size *= extent
    return True


def _numba(sample: Any, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    """numba-cuda's device arrays: what their interface would say, read from the array."""
    dtype, ndim, itemsize, layout = sample.dtype, ty.ndim, sample.dtype.itemsize, ty.layout
    if not ty.mutable:
        return None

    def read(value: Any) -> tuple[int, ...] | None:
        if value.dtype is not dtype or value.ndim != ndim:
            return None
        shape, strides = value.shape, value.strides
        if _strides_omitted_by_numba(shape, strides, itemsize):
            if layout != "C":
                return None
            elements = _compact(shape)
        else:
            counted = element_strides(strides, itemsize)
            if counted is None or array_layout(shape, strides, itemsize) != layout:
                return None
            elements = counted
        stream = value.stream
        reader.stream = int(stream) if stream != 0 else None
        return (value.device_ctypes_pointer.value or 0, 0, *shape, *elements)

    reader = Reader(read)
    reader.producer = lambda value: reader.stream
    return reader


def _cuda_core_buffer(sample: Any, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    imported = import_dlpack(sample, -1)
    itemsize = imported.dtype.itemsize
    if imported.ndim != 1 or imported.strides != (itemsize,) or imported.device_pointer != int(sample.handle):
        return None
    if imported.shape[0] * itemsize != sample.size or ty.layout != "C" or (not ty.mutable):
        return None

    def read(value: Any) -> tuple[int, ...] | None:
        if value.device_id != ordinal:
            return None
        size = value.size
        if size % itemsize:
            return None
        return (int(value.handle), 0, size // itemsize, 1)

    return Reader(read)


def _interface(sample: Any, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    """Any other CUDA Array Interface object: its dict is read, nothing more."""
    cai = sample.__cuda_array_interface__
    typestr = cai.get("typestr")
    if not isinstance(typestr, str) or typestr[1:2] == "V" or cai.get("mask") is not None:
        return None
    ndim, layout, readonly = ty.ndim, ty.layout, not ty.mutable
    itemsize = cai_dtype(cai).itemsize

    def read(value: Any) -> tuple[int, ...] | None:
        cai = value.__cuda_array_interface__
        if cai["typestr"] != typestr or cai.get("mask") is not None:
            return None
        reader.stream = cai.get("stream")  # the route's lock keeps it for this launch's wait
        data = cai["data"]
        if bool(data[1]) is not readonly:
            return None
        shape = tuple(cai["shape"])
        if len(shape) != ndim:
            return None
        strides = cai.get("strides")
        if array_layout(shape, strides, itemsize) != layout:
            return None
        if strides is None:
            strides = _compact(shape)
        else:
            strides = element_strides(strides, itemsize)
            if strides is None:
                return None
        return (data[0] or 0, 0, *shape, *strides)

    reader = Reader(read)
    if "stream" in cai:
        reader.producer = lambda value: reader.stream
    return reader


def _kind_of(value: Any) -> Maker | None:
    """Which reader suits *value*'s type (by its module, so that no library is imported)."""
    kind = type(value)
    if kind is DeviceNDArray:
        return _device_ndarray
    module = kind.__module__ or ""
    if module.startswith("cupy") and hasattr(value, "_c_contiguous"):
        return _cupy
    if module.startswith("torch") and hasattr(value, "data_ptr") and hasattr(value, "get_device"):
        return _torch
    if module.startswith("cuda.core") and kind.__name__ == "Buffer":
        return _cuda_core_buffer
    if module.startswith("numba.cuda") and kind.__name__ == "DeviceNDArray":
        return _numba
    if hasattr(value, "__cuda_array_interface__"):
        return _interface
    return None


# kinds whose readers cannot tell cheaply which device an array is on
_DEVICE_UNKNOWN = (_numba, _interface)


def make_reader(value: Any, ty: types.Array | PlainArray, ordinal: int) -> Reader | None:
    """A Reader for arguments of *value*'s exact type typed *ty* (an Array) on device
    *ordinal*, or None where the fast path does not read such arguments."""
    maker = _kind_of(value)
    if maker is None or maker in _DEVICE_UNKNOWN and placement.several_devices():
        return None  # their device is the driver's to tell: too slow a question for every launch
    try:
        reader = maker(value, ty, ordinal)
        return reader if reader is not None and reader.read(value) is not None else None
    except Exception:  # an object unlike the kind it seemed: the general path takes it
        return None
