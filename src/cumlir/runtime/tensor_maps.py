"""TMA tensor maps made on the host: the rules ``cuTensorMapEncodeTiled`` has, checked before
the driver is called (it answers a broken rule with CUDA_ERROR_INVALID_VALUE, naming none),
and the arguments it is called with.

Dimensions are given in the array's axis order (NumPy's: the last axis varies fastest) and
reversed for the driver, whose dimension 0 is the innermost. The innermost axis must be
contiguous; the other strides are byte strides, multiples of 16. ``TiledTensorMap`` keeps
the driver's ``CUtensorMap``, the array it describes (alive as long as the map) and what
the kernel's typing reads of it: its rank (docs/hopper.md, "TMA").
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import driver as drv
from .layout import cai_dtype

MAX_RANK = 5
MAX_BOX = 256
MAX_ELEMENT_STRIDE = 8
DESCRIPTOR_BYTES = 128

# the driver's data type by NumPy dtype name; int8 and int16 are copied as the unsigned integers
# of their width (a tile copy moves bits, and the zero of out-of-bounds fill is the same)
DATA_TYPES = {
    "uint8": "UINT8",
    "int8": "UINT8",
    "uint16": "UINT16",
    "int16": "UINT16",
    "float16": "FLOAT16",
    "bfloat16": "BFLOAT16",
    "uint32": "UINT32",
    "int32": "INT32",
    "float32": "FLOAT32",
    "uint64": "UINT64",
    "int64": "INT64",
    "float64": "FLOAT64",
}
_FLOATS = ("FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64")

# names of the driver's enums, as keywords take them (the driver's enum members are taken too)
SWIZZLES = {"none": "NONE", "32b": "32B", "64b": "64B", "128b": "128B"}
SWIZZLE_SPAN = {"NONE": None, "32B": 32, "64B": 64, "128B": 128}
INTERLEAVES = {"none": "NONE", "16b": "16B", "32b": "32B"}
L2_PROMOTIONS = {"none": "NONE", "64b": "L2_64B", "128b": "L2_128B", "256b": "L2_256B"}
OOB_FILLS = {"zero": "NONE", "none": "NONE", "nan": "NAN_REQUEST_ZERO_FMA"}


@dataclass(frozen=True)
class TiledLayout:
    """What ``cuTensorMapEncodeTiled`` is given, innermost dimension first."""

    data_type: str  # the CUtensorMapDataType member, without its prefix
    rank: int
    address: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # bytes, dimensions 1 .. rank-1
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: str
    swizzle: str
    l2_promotion: str
    oob_fill: str
    itemsize: int

    @property
    def box_bytes(self) -> int:
        """The bytes one load of a whole box brings (the count for ``mbarrier_arrive_expect_tx``)."""
        count = 1
        for extent, step in zip(self.box, self.element_strides):
            count *= -(-extent // step)
        return count * self.itemsize


def _enum_name(what: str, value: Any, names: Mapping[str, str], driver_prefix: str) -> str | None:
    """The driver enum member name of *value*: one of *names*' keys, or a member of the driver's enum."""
    if value is None:
        return None
    if isinstance(value, str):
        key = value.lower()
        if key in names:
            return names[key]
        raise ValueError(f"tensor map: {what} must be one of {', '.join(sorted(names))}, got {value!r}")
    name = getattr(value, "name", None)
    if isinstance(name, str) and name.startswith(driver_prefix):
        return name[len(driver_prefix) :]
    raise ValueError(f"tensor map: {what} must be one of {', '.join(sorted(names))} or a driver enum, got {value!r}")


def _array_interface(array: Any) -> dict[str, Any]:
    interface = getattr(array, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError(
            f"tensor map: the array must be on the device and expose __cuda_array_interface__ "
            f"(a cumlir or Numba device array, CuPy, torch), got {type(array).__name__}"
        )
    return interface


def _dtype_of(interface: Mapping[str, Any], array: Any) -> np.dtype:
    dtype = getattr(array, "dtype", None)
    # ml_dtypes' bfloat16 has no typestr of its own ('<V2'): the array's dtype names it
    if isinstance(dtype, np.dtype) and dtype.name == "bfloat16":
        return dtype
    return cai_dtype(interface)


def tiled_layout(
    array: Any,
    box: Any,
    *,
    swizzle: Any = "none",
    interleave: Any = "none",
    l2_promotion: Any = "none",
    oob_fill: Any = "zero",
    element_strides: Any = None,
) -> TiledLayout:
    """The checked arguments of a tiled tensor map over *array* with boxes of *box* elements
    (in the array's axis order). ValueError naming the broken rule."""
    interface = _array_interface(array)
    dtype = _dtype_of(interface, array)
    name = dtype.name
    if name not in DATA_TYPES:
        raise ValueError(f"tensor map: arrays of {name} cannot be copied by TMA; dtypes: {', '.join(DATA_TYPES)}")
    itemsize = dtype.itemsize
    shape = tuple(int(n) for n in interface["shape"])
    rank = len(shape)
    if not 1 <= rank <= MAX_RANK:
        raise ValueError(f"tensor map: the array must have 1 to {MAX_RANK} dimensions, got {rank}")
    strides = byte_strides(array)
    box = _extents("box", box, rank)
    steps = (1,) * rank if element_strides is None else _extents("element_strides", element_strides, rank)
    address = int(interface["data"][0] or 0)
    layout = TiledLayout(
        data_type=DATA_TYPES[name],
        rank=rank,
        address=address,
        dims=shape[::-1],
        strides=strides[::-1][1:],
        box=box[::-1],
        element_strides=steps[::-1],
        # _enum_name gives None for a keyword given None, which these str fields do not hold
        interleave=_enum_name("interleave", interleave, INTERLEAVES, "CU_TENSOR_MAP_INTERLEAVE_"),  # type: ignore[arg-type]
        swizzle=_enum_name("swizzle", swizzle, SWIZZLES, "CU_TENSOR_MAP_SWIZZLE_"),  # type: ignore[arg-type]
        l2_promotion=_enum_name("l2_promotion", l2_promotion, L2_PROMOTIONS, "CU_TENSOR_MAP_L2_PROMOTION_"),  # type: ignore[arg-type]
        oob_fill=_enum_name("oob_fill", oob_fill, OOB_FILLS, "CU_TENSOR_MAP_FLOAT_OOB_FILL_"),  # type: ignore[arg-type]
        itemsize=itemsize,
    )
    _check(layout, strides[-1], shape)
    return layout


def _extents(what: str, values: Any, rank: int) -> tuple[int, ...]:
    try:
        extents = tuple(int(v) for v in values)
    except TypeError:
        extents = (int(values),)
    if len(extents) != rank:
        raise ValueError(f"tensor map: {what} has {len(extents)} extents, the array {rank} dimensions")
    return extents


def _check(layout: TiledLayout, inner_stride: int, shape: tuple[int, ...]) -> None:
    if layout.swizzle not in SWIZZLE_SPAN:
        raise ValueError(
            f"tensor map: the swizzle {layout.swizzle} is not one cumlir checks; use none, 32b, 64b or 128b"
        )
    align = 32 if layout.interleave == "32B" else 16
    if layout.address % align:
        raise ValueError(f"tensor map: the array's address {layout.address:#x} must be aligned to {align} bytes")
    if any(n == 0 for n in shape) or any(n > 1 << 32 for n in shape):
        raise ValueError(f"tensor map: every dimension must have 1 to 2**32 elements, the array's shape is {shape}")
    if inner_stride != layout.itemsize:
        raise ValueError(
            f"tensor map: the last axis must be contiguous (a stride of {layout.itemsize} bytes), got {inner_stride}; "
            f"for a Fortran-ordered array make the map over its transpose (a.T)"
        )
    for stride in layout.strides:
        if stride <= 0 or stride % align or stride >= 1 << 40:
            raise ValueError(
                f"tensor map: the byte strides of the outer axes must be positive multiples of {align} below 2**40, "
                f"got {tuple(layout.strides[::-1])}"
            )
    if any(not 1 <= b <= MAX_BOX for b in layout.box):
        raise ValueError(f"tensor map: every box extent must be 1 to {MAX_BOX}, got {layout.box[::-1]}")
    if any(not 1 <= s <= MAX_ELEMENT_STRIDE for s in layout.element_strides):
        raise ValueError(
            f"tensor map: element strides must be 1 to {MAX_ELEMENT_STRIDE}, got {layout.element_strides[::-1]}"
        )
    inner_bytes = layout.box[0] * layout.itemsize
    span = SWIZZLE_SPAN[layout.swizzle]
    if layout.interleave == "NONE":
        if inner_bytes % 16:
            raise ValueError(
                f"tensor map: the box's last extent times the item size must be a multiple of 16 bytes, "
                f"got {layout.box[0]} x {layout.itemsize} = {inner_bytes}"
            )
        if span is not None and inner_bytes > span:
            raise ValueError(
                f"tensor map: with swizzle {layout.swizzle.lower()} the box's last extent may span at most {span} "
                f"bytes, got {layout.box[0]} x {layout.itemsize} = {inner_bytes}"
            )
    else:
        if layout.rank < 3:
            raise ValueError(f"tensor map: an interleaved layout needs 3 or more dimensions, got {layout.rank}")
        if layout.interleave == "32B" and layout.swizzle != "32B":
            raise ValueError("tensor map: interleave 32b needs swizzle 32b")
    if layout.oob_fill != "NONE" and layout.data_type not in _FLOATS:
        raise ValueError("tensor map: oob_fill='nan' needs an array of floats")


def encode(layout: TiledLayout) -> Any:
    """The driver's CUtensorMap of a checked layout."""
    driver = drv.driver_bindings
    result, descriptor = driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{layout.data_type}"),
        layout.rank,
        layout.address,
        [driver.cuuint64_t(n) for n in layout.dims],
        [driver.cuuint64_t(s) for s in layout.strides],
        [driver.cuuint32_t(b) for b in layout.box],
        [driver.cuuint32_t(s) for s in layout.element_strides],
        getattr(driver.CUtensorMapInterleave, f"CU_TENSOR_MAP_INTERLEAVE_{layout.interleave}"),
        getattr(driver.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{layout.swizzle}"),
        getattr(driver.CUtensorMapL2promotion, f"CU_TENSOR_MAP_L2_PROMOTION_{layout.l2_promotion}"),
        getattr(driver.CUtensorMapFloatOOBfill, f"CU_TENSOR_MAP_FLOAT_OOB_FILL_{layout.oob_fill}"),
    )
    if result != driver.CUresult.CUDA_SUCCESS:  # a rule the checks above do not know
        raise drv.CudaDriverError("cuTensorMapEncodeTiled", int(result), result.name)
    return descriptor


def byte_strides(array: Any) -> tuple[int, ...]:
    """The byte strides of a ``__cuda_array_interface__`` object (C order where it gives none)."""
    interface = _array_interface(array)
    strides = interface.get("strides")
    if strides is not None:
        return tuple(int(s) for s in strides)
    shape = tuple(int(n) for n in interface["shape"])
    itemsize = _dtype_of(interface, array).itemsize
    return tuple(int(np.prod(shape[k + 1 :], dtype=np.int64)) * itemsize for k in range(len(shape)))


class TransposedView:
    """The reversed axes of a device array, as ``__cuda_array_interface__`` (no copy)."""

    def __init__(self, array: Any) -> None:
        interface = dict(_array_interface(array))
        interface["strides"] = byte_strides(array)[::-1]
        interface["shape"] = tuple(interface["shape"])[::-1]
        self.__cuda_array_interface__ = interface
        self.dtype = getattr(array, "dtype", None)


class TiledTensorMap:
    """A tensor map made by ``cuda.tensor_map.tiled``: passed to a kernel, it is its
    ``descriptor`` (a ``CUtensorMap``) typed with its rank. It holds the array it describes."""

    def __init__(self, layout: TiledLayout, descriptor: Any, array: Any) -> None:
        self.layout = layout
        self.descriptor = descriptor
        self.array = array

    @property
    def rank(self) -> int:
        return self.layout.rank

    @property
    def box(self) -> tuple[int, ...]:
        """The box's extents in the array's axis order."""
        return self.layout.box[::-1]

    @property
    def box_bytes(self) -> int:
        return self.layout.box_bytes

    def __repr__(self) -> str:
        return f"<TiledTensorMap rank {self.rank}, box {self.box} of {self.layout.data_type.lower()}>"


def is_driver_tensor_map_kind(kind: type) -> bool:
    """Whether *kind* is ``cuda.bindings.driver.CUtensorMap`` (known without importing the driver)."""
    return kind.__name__ == "CUtensorMap" and kind.__module__.startswith("cuda.bindings")


def is_driver_tensor_map(value: Any) -> bool:
    return is_driver_tensor_map_kind(type(value))


def descriptor_bytes(value: Any) -> bytes | None:
    """The 128 bytes of a tensor map argument (a CUtensorMap or a TiledTensorMap), or None for other values."""
    if isinstance(value, TiledTensorMap):
        value = value.descriptor
    if not is_driver_tensor_map(value):
        return None
    return ctypes.string_at(value.getPtr(), DESCRIPTOR_BYTES)
