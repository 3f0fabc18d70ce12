"""Device arrays read as globals or closure variables: anything exposing
``__cuda_array_interface__`` (cumlir's, Numba-CUDA's, CuPy's, PyTorch's arrays), typed from
the interface as Numba-CUDA types them. The kernel keeps the address, shape and strides
the interface gave when it was compiled (operations/numpy/_captured.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.np import numpy_support


def interface_of(value: Any) -> dict[str, Any] | None:
    """The ``__cuda_array_interface__`` dict of *value*, or None (classes have none)."""
    if isinstance(value, type):
        return None
    try:
        return value.__cuda_array_interface__
    except AttributeError:
        return None
    except Exception as e:  # a mapped array whose mapping is gone, say
        raise TypingError(f"reading a global's __cuda_array_interface__ failed: {e}") from None


class _CapturedArray(types.Array):
    """numba types every array read from a global as read-only, for a NumPy array is baked
    into the code as a constant; a device array is memory the kernel may write, as in
    Numba-CUDA. The copy numba's typing of globals makes is therefore a plain array that
    keeps the interface's own read-only flag."""

    def copy(  # type: ignore[override]
        self,
        dtype: types.Type | None = None,
        ndim: int | None = None,
        layout: Literal["C", "F", "CS", "FS", "A"] | None = None,
        readonly: bool | None = None,
    ) -> types.Array:
        return types.Array(
            self.dtype if dtype is None else dtype,
            self.ndim if ndim is None else ndim,
            self.layout if layout is None else layout,
            readonly=not self.mutable,
            aligned=self.aligned,
        )


def captured_array_type(interface: Mapping[str, Any]) -> types.Array:
    """The Array type of the memory a ``__cuda_array_interface__`` dict describes."""
    try:
        shape = tuple(int(n) for n in interface["shape"])
        typestr = interface["typestr"]
        data = interface["data"]
        strides = interface.get("strides")
    except (KeyError, TypeError, ValueError):
        raise TypingError(
            f"a global's __cuda_array_interface__ needs shape, typestr and data; got {interface!r}"
        ) from None
    if interface.get("mask") is not None:
        raise TypingError("a global device array with a mask (masked __cuda_array_interface__) is not supported")
    try:
        descr = interface.get("descr")
        dtype = np.dtype(descr) if np.dtype(typestr).kind == "V" and descr else np.dtype(typestr)
        if dtype.hasobject:
            raise ValueError("Python objects")
        element = numpy_support.from_dtype(dtype)
    except Exception:
        raise TypingError(f"a global device array of typestr {typestr!r} is not supported") from None
    layout = _layout(shape, None if strides is None else tuple(strides), dtype.itemsize)
    return _CapturedArray(element, len(shape), layout, readonly=bool(data[1]))


def _layout(shape: tuple[int, ...], strides: tuple[int, ...] | None, itemsize: int) -> Literal["C", "F", "A"]:
    if strides is None or _compact(shape, strides, itemsize, reversed(range(len(shape)))):
        return "C"
    if _compact(shape, strides, itemsize, range(len(shape))):
        return "F"
    return "A"


def _compact(shape: Sequence[int], strides: Sequence[int], itemsize: int, axes: Iterable[int]) -> bool:
    step = itemsize
    for axis in axes:
        if shape[axis] != 1 and strides[axis] != step:
            return False
        step *= shape[axis]
    return True
