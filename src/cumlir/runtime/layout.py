"""Shapes, byte strides and extents of arrays held outside NumPy (device and page-locked memory).

The one place that reads a dtype from a CUDA Array Interface dict (``cai_dtype``),
computes compact C or F strides (``contiguous_strides``) and decides contiguity
(``is_contiguous``, NumPy's rules); the rest of the runtime calls these.
"""

from __future__ import annotations

import ctypes
import functools
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    Extents = int | Sequence[int]  # a shape or strides: an int or a sequence of ints


def _ints(value: Any, what: str) -> tuple[int, ...]:
    try:
        return (operator.index(value),)
    except TypeError:
        try:
            return tuple(operator.index(v) for v in value)
        except TypeError:
            raise TypeError(f"{what} is an int or a tuple of ints, got {value!r}") from None


def normalize_shape(shape: Extents) -> tuple[int, ...]:
    """A tuple of non-negative ints from an int or a sequence of ints."""
    shape = _ints(shape, "a shape")
    if any(extent < 0 for extent in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def checked_dtype(dtype: DTypeLike) -> np.dtype:
    """The NumPy dtype of *dtype*, if arrays of it can live in device memory."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a NumPy dtype: {e}") from None
    if dtype.hasobject:
        raise TypeError(f"arrays of dtype {dtype} hold Python objects and cannot be stored in device memory")
    return dtype


def element_strides(strides: Iterable[int], unit: int) -> tuple[int, ...] | None:
    """Byte *strides* counted in *unit* bytes (an item's size), or None if one is not a
    multiple of it."""
    out = []
    for s in strides:
        if s % unit:
            return None
        out.append(s // unit)
    return tuple(out)


def contiguous_strides(shape: Sequence[int], itemsize: int, order: str = "C") -> tuple[int, ...]:
    """Byte strides of a compact array of *shape* in C or F order (an axis of extent 0
    counts as extent 1, so no stride is 0)."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    strides, step = [0] * len(shape), itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def allocation_strides(shape: Sequence[int], itemsize: int, strides: Extents | None, order: str) -> tuple[int, ...]:
    """The strides of a new allocation: given ones (checked), else compact in *order*."""
    if strides is None:
        return contiguous_strides(shape, itemsize, order)
    strides = _ints(strides, "strides")
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} do not match the {len(shape)} dimensions of shape {shape}")
    return strides


def byte_extent(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> tuple[int, int]:
    """(low, high): the byte range an array touches, relative to element [0, ..., 0]."""
    if any(extent == 0 for extent in shape):
        return 0, 0
    low = high = 0
    for extent, stride in zip(shape, strides):
        span = (extent - 1) * stride
        if span < 0:
            low += span
        else:
            high += span
    return low, high + itemsize


def is_contiguous(shape: Sequence[int], strides: Sequence[int] | None, itemsize: int, order: str) -> bool:
    """Whether an array of *shape* and byte *strides* is compact in *order* ('C' or 'F'),
    by NumPy's rules (its ``flags.c_contiguous`` / ``f_contiguous``): an array with an axis
    of extent 0 is both, and axes of extent 1 may have any stride (so an array of one
    element is both too). ``strides=None`` means compact C order, as in the CUDA Array
    Interface."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    if strides is None:
        strides = contiguous_strides(shape, itemsize, "C")
    if 0 in shape:
        return True
    expected = itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        extent = shape[axis]
        if extent != 1:
            if strides[axis] != expected:
                return False
            expected *= extent
    return True


def array_layout(shape: Sequence[int], strides: Sequence[int] | None, itemsize: int) -> Literal["C", "F", "A"]:
    """Numba's layout letter for an array: 'C', else 'F', else 'A' (as ``numba.typeof``
    picks it from NumPy's flags); ``strides=None`` is compact C order."""
    if strides is None or is_contiguous(shape, strides, itemsize, "C"):
        return "C"
    if is_contiguous(shape, strides, itemsize, "F"):
        return "F"
    return "A"


def strides_like(array: Any) -> tuple[int, ...]:
    """Compact strides that keep the axis order of *array*'s strides (Numba's ``*_like``)."""
    shape, strides, itemsize = tuple(array.shape), tuple(array.strides), array.dtype.itemsize
    if is_contiguous(shape, strides, itemsize, "C"):
        return contiguous_strides(shape, itemsize, "C")
    if is_contiguous(shape, strides, itemsize, "F"):
        return contiguous_strides(shape, itemsize, "F")
    # compact in the order of the strides, innermost axis first
    axes = sorted(range(len(shape)), key=lambda a: (abs(strides[a]), -a))
    result = [0] * len(shape)
    for axis, stride in zip(axes, contiguous_strides([shape[a] for a in axes], itemsize, "F")):
        result[axis] = stride
    return tuple(result)


# ---- the dtype of a CUDA Array Interface -------------------------------------------------


def cai_dtype(cai: Mapping[str, Any]) -> np.dtype:
    """The NumPy dtype of a ``__cuda_array_interface__`` dict, read as NumPy reads an
    ``__array_interface__``: ``typestr`` gives it, and for records (``typestr`` ``|V<n>``)
    ``descr`` gives the fields unless it is the default ``[("", typestr)]``. Unnamed void
    entries of ``descr`` are padding: they set the offsets of the fields after them and
    do not become fields. TypeError, naming the interface, for what cannot be read."""
    typestr = cai.get("typestr")
    if not isinstance(typestr, str):
        raise TypeError(f"a __cuda_array_interface__ typestr is a string such as '<f4', got {typestr!r}")
    dtype = _typestr_dtype(typestr)
    descr = cai.get("descr")
    if dtype.kind != "V" or not descr or _is_default_descr(descr, typestr):
        return dtype
    try:
        record = _descr_dtype(descr)
    except (TypeError, ValueError) as e:
        raise TypeError(f"the __cuda_array_interface__ descr {descr!r} is not a NumPy array descr: {e}") from None
    if record.itemsize != dtype.itemsize:
        raise TypeError(
            f"the __cuda_array_interface__ descr describes {record.itemsize}-byte elements, "
            f"but its typestr {typestr!r} {dtype.itemsize}-byte ones"
        )
    return checked_dtype(record)


@functools.lru_cache(maxsize=256)
def _typestr_dtype(typestr: str) -> np.dtype:
    try:
        dtype = np.dtype(typestr)
    except (TypeError, ValueError):
        raise TypeError(f"the __cuda_array_interface__ typestr {typestr!r} is not a NumPy type string") from None
    if dtype.hasobject:
        raise TypeError(
            f"a __cuda_array_interface__ of typestr {typestr!r} (Python objects) cannot describe device memory"
        )
    return dtype


def _is_default_descr(descr: Any, typestr: str) -> bool:
    return (
        isinstance(descr, (list, tuple))
        and len(descr) == 1
        and isinstance(descr[0], (list, tuple))
        and tuple(descr[0]) == ("", typestr)
    )


def _descr_dtype(descr: Any) -> np.dtype:
    """A structured dtype from the list form of ``dtype.descr`` (nested lists for nested records)."""
    if isinstance(descr, str):
        return np.dtype(descr)
    names, formats, offsets, titles, offset = [], [], [], [], 0
    for entry in descr:
        if not isinstance(entry, (tuple, list)) or len(entry) not in (2, 3):
            raise TypeError(f"a descr entry is (name, type) or (name, type, shape), got {entry!r}")
        name, field = entry[0], _descr_dtype(entry[1])
        if len(entry) == 3:
            field = np.dtype((field, tuple(entry[2])))
        title = None
        if isinstance(name, (tuple, list)):
            title, name = name
        if name == "" and field.kind == "V" and field.names is None and field.subdtype is None:
            offset += field.itemsize  # padding
            continue
        names.append(name)
        formats.append(field)
        offsets.append(offset)
        titles.append(title)
        offset += field.itemsize
    # Any: NumPy's stubs type this dict as a TypedDict of their own
    spec: Any = {"names": names, "formats": formats, "offsets": offsets, "itemsize": offset}
    if any(t is not None for t in titles):
        spec["titles"] = titles
    return np.dtype(spec)


# ---- views: NumPy computes them over a fake address it never reads ----------------------

_FAKE_BASE = 1 << 44


class _Geometry:
    def __init__(self, shape: Sequence[int], strides: Sequence[int], dtype: np.dtype) -> None:
        self.__array_interface__ = {
            "data": (_FAKE_BASE, True),
            "shape": tuple(shape),
            "strides": tuple(strides),
            "typestr": f"|V{dtype.itemsize}",
            "version": 3,
        }


def _check_basic_index(key: Any) -> tuple[Any, ...]:
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if part is None or part is Ellipsis or isinstance(part, slice):
            continue
        if isinstance(part, (bool, np.bool_)) or isinstance(part, (np.ndarray, list)):
            raise IndexError(
                f"device arrays support integer and slice indices only (got a {type(part).__name__}); "
                "copy the array to the host for boolean or array indexing"
            )
        try:
            operator.index(part)
        except TypeError:
            raise IndexError(f"only integers, slices, ... and None are valid indices, not {part!r}") from None
    return parts


def view_geometry(
    shape: Sequence[int], strides: Sequence[int], dtype: np.dtype, key: Any
) -> tuple[int, tuple[int, ...], tuple[int, ...], bool]:
    """(byte offset, shape, strides, is_element) of ``array[key]`` for basic indexing."""
    parts = _check_basic_index(key)
    geometry = np.asarray(_Geometry(shape, strides, dtype))
    # a trailing Ellipsis makes NumPy return a 0-d view instead of reading an element
    view = geometry[parts + (Ellipsis,)] if Ellipsis not in parts else geometry[parts]
    offset = view.__array_interface__["data"][0] - _FAKE_BASE
    is_element = view.ndim == 0 and Ellipsis not in parts and None not in parts
    return offset, view.shape, view.strides, is_element


# NumPy's error for an axis out of range (a ValueError and an IndexError); np.exceptions from 1.25
_AxisError: type[Exception] = np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError  # type: ignore[attr-defined]


def transposed(
    shape: Sequence[int], strides: Sequence[int], axes: Sequence[Any] | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if axes is None or axes == () or axes == (None,):  # (None,): np.transpose(a) calls a.transpose(None)
        axes = tuple(range(len(shape) - 1, -1, -1))
    elif len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    ndim = len(shape)
    given = [operator.index(a) for a in axes]
    if len(given) != ndim:
        raise ValueError(f"axes don't match array: {len(given)} axes given for {ndim} dimensions")
    for axis in given:  # NumPy's errors, in its words
        if not -ndim <= axis < ndim:
            raise _AxisError(axis, ndim)
    order = [axis % ndim for axis in given]
    if len(set(order)) != ndim:
        raise ValueError("repeated axis in transpose")
    return tuple(shape[a] for a in order), tuple(strides[a] for a in order)


def reshaped(
    shape: Sequence[int], strides: Sequence[int], itemsize: int, newshape: Sequence[Any], order: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape and strides of a reshape that needs no copy (contiguous arrays only)."""
    if len(newshape) == 1 and not isinstance(newshape[0], int) and not hasattr(newshape[0], "__index__"):
        newshape = tuple(newshape[0])
    newshape = tuple(operator.index(n) for n in newshape)
    size = int(np.prod(shape, dtype=np.int64))
    unknown = [i for i, n in enumerate(newshape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in newshape):
        raise ValueError(f"cannot reshape to {newshape}")
    if unknown:
        known = int(np.prod([n for n in newshape if n != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into shape {newshape}")
        newshape = tuple(size // known if n == -1 else n for n in newshape)
    if int(np.prod(newshape, dtype=np.int64)) != size:
        raise ValueError(f"cannot reshape an array of size {size} into shape {newshape}")
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    if not is_contiguous(shape, strides, itemsize, order):
        raise NotImplementedError(f"reshaping a device array that is not {order}-contiguous would need a copy")
    return newshape, contiguous_strides(newshape, itemsize, order)


def record_bytes(record: np.void) -> np.ndarray:
    """A writable array over the memory of a NumPy record (whose buffer NumPy exports read-only):
    a record taken from an array shares that array's memory, so the copy back updates both."""
    address = np.frombuffer(record, np.uint8).ctypes.data
    return np.ctypeslib.as_array((ctypes.c_uint8 * record.dtype.itemsize).from_address(address))
