"""The types of the commonest launch arguments, found without numba.

Arrays of numbers (NumPy, cumlir's own, and any ``__cuda_array_interface__`` object such
as CuPy's and PyTorch's) and Python or NumPy numbers. A process whose kernels all come
from the on-disk cache launches them without importing numba's frontend: each plain
type names itself as numba prints its own type (what the cache's key holds), packs as
that type does, and becomes numba's type (``numba()``) when the kernel must be typed or
compiled. Any other argument (tuples, records, vectors, pointers) has no plain type: its
launch types it with numba.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ..lazy import lazy
from .arg_hints import ArgHint
from .devicearray import DeviceNDArray
from .layout import array_layout, cai_dtype

if TYPE_CHECKING:
    from typing import Literal

    from numba.core import types

    Layout = Literal["C", "F", "A"]  # numba's layout of an array: C or F contiguous, or any
else:  # numba: loaded when a plain type must become numba's (``numba()``), never by a cache hit
    types = lazy("numba.core.types")

# numba's names of the NumPy numbers, with its class of each (the cache key's prefix)
_NUMBERS = {np.dtype("bool"): ("bool", "Boolean")}
_NUMBERS.update({np.dtype(f"{s}int{b}"): (f"{s}int{b}", "Integer") for s in ("", "u") for b in (8, 16, 32, 64)})
_NUMBERS.update({np.dtype(f"float{b}"): (f"float{b}", "Float") for b in (16, 32, 64)})
_NUMBERS.update({np.dtype(f"complex{b}"): (f"complex{b}", "Complex") for b in (64, 128)})
_BOOL, _INT64, _FLOAT64, _COMPLEX128 = (np.dtype(n) for n in ("bool", "int64", "float64", "complex128"))


class PlainType:
    """A type that compares, hashes and prints by its name."""

    __slots__ = ("name", "cache_name")
    name: str
    cache_name: str

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


class PlainNumber(PlainType):
    """A scalar of a NumPy number type: numba's ``Integer``, ``Float``, ``Boolean`` or ``Complex``."""

    __slots__ = ("dtype", "bitwidth")

    def __init__(self, dtype: np.dtype) -> None:
        self.name, kind = _NUMBERS[dtype]
        self.cache_name = f"{kind}:{self.name}"
        self.dtype = dtype
        self.bitwidth = 8 * dtype.itemsize

    def numba(self) -> types.Type:
        return types.boolean if self.name == "bool" else getattr(types, self.name)


class PlainArray(PlainType):
    """numba's ``Array(dtype, ndim, layout, readonly)`` of a NumPy number dtype."""

    __slots__ = ("dtype", "ndim", "layout", "mutable")

    def __init__(self, dtype: np.dtype, ndim: int, layout: Layout, readonly: bool) -> None:
        self.dtype, self.ndim, self.layout, self.mutable = dtype, ndim, layout, not readonly
        self.name = f"{'readonly ' if readonly else ''}array({_NUMBERS[dtype][0]}, {ndim}d, {layout})"
        self.cache_name = f"Array:{self.name}"

    def numba(self) -> types.Array:
        return types.Array(PlainNumber(self.dtype).numba(), self.ndim, self.layout, readonly=not self.mutable)


_NUMBER_TYPES = {dtype: PlainNumber(dtype) for dtype in _NUMBERS}
_ARRAY_TYPES: dict[tuple[np.dtype, int, Layout, bool], PlainArray] = {}  # (dtype, ndim, layout, readonly) -> PlainArray


def _array(
    dtype: np.dtype, shape: tuple[int, ...], strides: tuple[int, ...] | None, readonly: bool
) -> PlainArray | None:
    if dtype not in _NUMBERS:
        return None
    key = (dtype, len(shape), array_layout(shape, strides, dtype.itemsize), bool(readonly))
    found = _ARRAY_TYPES.get(key)
    if found is None:
        found = _ARRAY_TYPES[key] = PlainArray(*key)
    return found


def plain_type(value: Any) -> PlainType | None:
    """The plain type of a launch argument, or None where only numba can type it. The
    kinds are tried in the order ``arguments.argument_type`` tries them."""
    if isinstance(value, DeviceNDArray):
        return _array(value.dtype, value.shape, value.strides, value._readonly)
    if isinstance(value, np.ndarray):
        return _array(value.dtype, value.shape, value.strides, not value.flags.writeable)
    if isinstance(value, ArgHint):
        return plain_type(value.value)
    try:
        cai = value.__cuda_array_interface__
    except AttributeError:
        return _number(value)
    except Exception:  # an interface that fails: the numba path reports it
        return None
    try:
        return _array(cai_dtype(cai), tuple(cai["shape"]), cai.get("strides"), cai["data"][1])
    except Exception:
        return None


def _number(value: Any) -> PlainNumber | None:
    if isinstance(value, (bool, np.bool_)):
        return _NUMBER_TYPES[_BOOL]
    if isinstance(value, int):  # an IntEnum member is numba's IntEnumMember: typed by numba
        return None if isinstance(value, enum.Enum) else _NUMBER_TYPES[_INT64]
    if isinstance(value, float):
        return _NUMBER_TYPES[_FLOAT64]
    if isinstance(value, np.generic):
        return _NUMBER_TYPES.get(value.dtype)
    if isinstance(value, complex):
        return _NUMBER_TYPES[_COMPLEX128]
    return None


def plain_types(args: tuple[Any, ...]) -> tuple[PlainType, ...] | None:
    """The plain types of launch arguments *args* (a tuple), or None if one has none."""
    found = tuple(map(plain_type, args))
    return None if None in found else found  # type: ignore[return-value]  # none of them None
