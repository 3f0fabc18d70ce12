"""Whether a launch's arrays all span less than 2**31 bytes: then the kernel compiled with
32-bit element offsets (``index_bits=32``) is correct for them, and the launch picks it.

An array's span is the bytes from its lowest element to the end of its highest,
``sum((n - 1) * |stride|) + itemsize`` (0 when it is empty: no element is ever reached).
An element in bounds is at most that far from the array's first, so every offset the
kernel computes into it, and every partial sum of one, fits in an int32.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .arg_hints import ArgHint
from .devicearray import DeviceNDArray, import_dlpack
from .layout import cai_dtype, contiguous_strides

LIMIT = 2**31


def span(shape: Sequence[int], byte_strides: Sequence[int] | None, itemsize: int) -> int:
    """The byte span of an array (*byte_strides* None: compact in C order)."""
    if 0 in shape:
        return 0
    if byte_strides is None:
        byte_strides = contiguous_strides(shape, itemsize, "C")
    return sum((n - 1) * abs(s) for n, s in zip(shape, byte_strides)) + itemsize


def element_span_fits(itemsize: int, ndim: int, slots: Sequence[int]) -> bool:
    """Whether the array of *slots* as a kernel parameter takes them (pointer, offset,
    extents, strides counted in *itemsize* units) spans less than LIMIT bytes: the check
    of the fast path (runtime/fastpack.py)."""
    shape = slots[2 : 2 + ndim]
    if 0 in shape:
        return True
    return sum((n - 1) * abs(s) for n, s in zip(shape, slots[2 + ndim :])) * itemsize + itemsize < LIMIT


def narrow_arguments(args: Iterable[object]) -> bool:
    """Whether every array among the launch arguments *args* (tuples searched) spans less
    than LIMIT bytes; False where one's span cannot be read without launching."""
    return all(_fits(value) for value in args)


def _fits(value: Any) -> bool:
    if isinstance(value, DeviceNDArray):
        return span(value.shape, value.strides, value.dtype.itemsize) < LIMIT
    if isinstance(value, np.ndarray):
        # a host array is staged as a compact copy: a broadcast one spans more there
        return max(span(value.shape, value.strides, value.itemsize), value.nbytes) < LIMIT
    if isinstance(value, ArgHint):
        return _fits(value.value)
    if isinstance(value, tuple):
        return all(_fits(member) for member in value)
    try:
        interface = value.__cuda_array_interface__
    except AttributeError:
        interface = None
    except Exception:  # one the general path refuses, with its own error
        return False
    if interface is not None:
        return span(tuple(interface["shape"]), interface.get("strides"), cai_dtype(interface).itemsize) < LIMIT
    if hasattr(value, "__dlpack__"):
        imported = import_dlpack(value, -1)  # -1: no stream ordering, as typing asks
        return span(imported.shape, imported.strides, imported.dtype.itemsize) < LIMIT
    return True  # not an array
