"""The Numba type of an array by its dtype, shape and strides: what a kernel argument, a
device array's ``_numba_type_`` and a foreign array's interface are typed as."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import typerecords
from ..lazy import lazy
from .layout import array_layout

if TYPE_CHECKING:
    from numba.core import types
    from numba.np import numpy_support
else:  # numba: loaded when a type is first asked for
    types = lazy("numba.core.types")
    numpy_support = lazy("numba.np.numpy_support")


def ml_dtypes_float(dtype: np.dtype) -> types.Type | None:
    """The numba type of an ml_dtypes float dtype (``bfloat16``, ``float8_e4m3fn``: a
    narrow float such as ``types.f8E4M3FN``), found by its name in the type records so that
    ml_dtypes need not be imported; None for other dtypes."""
    if dtype.names is not None or dtype.itemsize > 2:
        return None
    found = typerecords.type_of_dtype(dtype.name)
    return found if found is not None and found.bitwidth <= 8 * dtype.itemsize else None


def array_type(
    dtype: np.dtype, shape: tuple[int, ...], strides: tuple[int, ...] | None, readonly: bool, index: int | str
) -> types.Array:
    """The Numba type of an array of *dtype*, *shape* and *strides* (bytes; None: C-contiguous),
    its layout as the strides give it; *index* names the argument in errors."""
    try:
        element = numpy_support.from_dtype(dtype)
    except Exception:
        element = ml_dtypes_float(dtype)
        if element is None:
            raise TypeError(f"argument {index}: arrays of dtype {dtype} are not supported") from None
    layout = array_layout(shape, strides, dtype.itemsize)
    return types.Array(element, len(shape), layout, readonly=readonly)
