"""``cuda.tensor_map``: TMA tensor maps of device arrays, for the TMA copies of
``cuda.intrin`` (docs/hopper.md, "TMA").

``tiled(array, box, *, swizzle, interleave, l2_promotion, oob_fill, element_strides)`` makes
the map of a 1-d to 5-d array (any ``__cuda_array_interface__`` object) whose copies move boxes
of *box* elements (in the array's axis order); it checks the rules of
``cuTensorMapEncodeTiled`` first, each a ValueError naming it. numba-cuda-mlir's
``create_tensor_map_from_tensor(tensor, box_dim, ...)`` and its enum classes are here too. The
driver (``cuda.bindings.driver``) is imported on first use.
"""

from __future__ import annotations

from typing import Any

from ..runtime import tensor_maps
from ..runtime.tensor_maps import TiledTensorMap

__all__ = [
    "TensorMapFloatOOBFill",
    "TensorMapInterleave",
    "TensorMapL2Promotion",
    "TensorMapSwizzle",
    "TiledTensorMap",
    "create_tensor_map_from_tensor",
    "tiled",
]


def tiled(
    array: Any,
    box: Any,
    *,
    swizzle: Any = "none",
    interleave: Any = "none",
    l2_promotion: Any = "none",
    oob_fill: Any = "zero",
    element_strides: Any = None,
) -> TiledTensorMap:
    """The tiled tensor map of *array* (on the device; its last axis contiguous) copying
    boxes of *box* elements, one extent per axis in the array's order (1 to 256 each).

    *swizzle*: "none", "32b", "64b" or "128b" (the box's last extent may then span at most
    that many bytes); *interleave*: "none", "16b", "32b"; *l2_promotion*: "none", "64b",
    "128b", "256b"; *oob_fill*: "zero" (elements outside the array read as zero) or "nan"
    (floats only); each also a member of the driver's enum. *element_strides*: one step
    (1 to 8) per axis, every element by default. Coordinates in the kernel are given in
    the same axis order (``cp_async_bulk_tensor_load(dst, tmap, (row, col), bar)``)."""
    layout = tensor_maps.tiled_layout(
        array,
        box,
        swizzle=swizzle,
        interleave=interleave,
        l2_promotion=l2_promotion,
        oob_fill=oob_fill,
        element_strides=element_strides,
    )
    return TiledTensorMap(layout, tensor_maps.encode(layout), array)


class _DriverEnum(type):
    """A class whose members are the driver's, read on first use (the driver loads lazily)."""

    def __getattr__(cls, name: str) -> Any:
        from cuda.bindings import driver

        enum_name, prefix, members = _ENUMS[cls.__name__]
        if name not in members:
            raise AttributeError(f"{cls.__name__} has no member {name!r}; members: {', '.join(members)}")
        return getattr(getattr(driver, enum_name), prefix + members[name])


# numba-cuda-mlir's class -> (the driver's enum, its members' prefix, {its name: the driver's})
_ENUMS = {
    "TensorMapSwizzle": (
        "CUtensorMapSwizzle",
        "CU_TENSOR_MAP_SWIZZLE_",
        {"NONE": "NONE", "SWIZZLE_32B": "32B", "SWIZZLE_64B": "64B", "SWIZZLE_128B": "128B"},
    ),
    "TensorMapL2Promotion": ("CUtensorMapL2promotion", "CU_TENSOR_MAP_L2_PROMOTION_", {"NONE": "NONE"}),
    "TensorMapFloatOOBFill": ("CUtensorMapFloatOOBfill", "CU_TENSOR_MAP_FLOAT_OOB_FILL_", {"NONE": "NONE"}),
    "TensorMapInterleave": ("CUtensorMapInterleave", "CU_TENSOR_MAP_INTERLEAVE_", {"NONE": "NONE"}),
}


class TensorMapSwizzle(metaclass=_DriverEnum):
    """numba-cuda-mlir's names of the driver's swizzle modes: NONE, SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_128B."""


class TensorMapL2Promotion(metaclass=_DriverEnum):
    """numba-cuda-mlir's names of the driver's L2 promotion modes: NONE."""


class TensorMapFloatOOBFill(metaclass=_DriverEnum):
    """numba-cuda-mlir's names of the driver's out-of-bounds fill modes: NONE (zeros)."""


class TensorMapInterleave(metaclass=_DriverEnum):
    """numba-cuda-mlir's names of the driver's interleave modes: NONE."""


def create_tensor_map_from_tensor(
    tensor: Any,
    box_dim: Any,
    swizzle: Any = None,
    transpose: bool = False,
    l2promo: Any = None,
    oob: Any = None,
    interleave: Any = None,
) -> Any:
    """numba-cuda-mlir's 2-d tensor map: a ``cuda.bindings.driver.CUtensorMap`` of the 2-d
    array *tensor* with boxes of *box_dim* = (inner extent, outer extent), the driver's order;
    swizzle 128B unless given. The contiguous axis is found from the strides; *transpose*
    must stay False (give the transposed view instead)."""
    if transpose:
        raise ValueError(
            "create_tensor_map_from_tensor: transpose=True is not supported; the contiguous axis is read from "
            "the strides: pass the transposed view of the array"
        )
    shape = tuple(getattr(tensor, "shape", ()))
    if len(shape) != 2:
        raise ValueError(f"create_tensor_map_from_tensor: the tensor must be 2-d, got shape {shape}")
    inner, outer = (int(b) for b in box_dim)
    strides = tensor_maps.byte_strides(tensor)
    view = tensor if strides[0] >= strides[1] else tensor_maps.TransposedView(tensor)
    layout = tensor_maps.tiled_layout(
        view,
        (outer, inner),
        swizzle="128b" if swizzle is None else swizzle,
        interleave="none" if interleave is None else interleave,
        l2_promotion="none" if l2promo is None else l2promo,
        oob_fill="zero" if oob is None else oob,
    )
    return tensor_maps.encode(layout)
