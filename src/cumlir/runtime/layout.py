"""Shapes, byte strides and extents of arrays held outside NumPy (device and page-locked memory)."""

import operator

import numpy as np


def _ints(value, what):
    try:
        return (operator.index(value),)
    except TypeError:
        try:
            return tuple(operator.index(v) for v in value)
        except TypeError:
            raise TypeError(f"{what} is an int or a tuple of ints, got {value!r}") from None


def normalize_shape(shape):
    """A tuple of non-negative ints from an int or a sequence of ints."""
    shape = _ints(shape, "a shape")
    if any(extent < 0 for extent in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def checked_dtype(dtype):
    """The NumPy dtype of *dtype*, if arrays of it can live in device memory."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a NumPy dtype: {e}") from None
    if dtype.hasobject:
        raise TypeError(f"arrays of dtype {dtype} hold Python objects and cannot be stored in device memory")
    return dtype


def contiguous_strides(shape, itemsize, order="C"):
    """Byte strides of a compact array in C or F order."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    strides, step = [0] * len(shape), itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def allocation_strides(shape, itemsize, strides, order):
    """The strides of a new allocation: given ones (checked), else compact in *order*."""
    if strides is None:
        return contiguous_strides(shape, itemsize, order)
    strides = _ints(strides, "strides")
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} do not match the {len(shape)} dimensions of shape {shape}")
    return strides


def byte_extent(shape, strides, itemsize):
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


def is_contiguous(shape, strides, itemsize, order):
    """Whether the array is compact in *order* (axes of extent 1 may have any stride)."""
    expected = itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        if shape[axis] == 0:
            return True
        if shape[axis] != 1 and strides[axis] != expected:
            return False
        expected *= shape[axis]
    return True


def strides_like(array):
    """Compact strides that keep the axis order of *array*'s strides (Numba's ``*_like``)."""
    shape, strides, itemsize = tuple(array.shape), tuple(array.strides), array.dtype.itemsize
    if is_contiguous(shape, strides, itemsize, "C"):
        return contiguous_strides(shape, itemsize, "C")
    if is_contiguous(shape, strides, itemsize, "F"):
        return contiguous_strides(shape, itemsize, "F")
    result, step = [0] * len(shape), itemsize
    for axis in sorted(range(len(shape)), key=lambda a: (abs(strides[a]), -a)):
        result[axis] = step
        step *= max(shape[axis], 1)
    return tuple(result)


# ---- views: NumPy computes them over a fake address it never reads ----------------------

_FAKE_BASE = 1 << 44


class _Geometry:
    def __init__(self, shape, strides, dtype):
        self.__array_interface__ = {
            "data": (_FAKE_BASE, True),
            "shape": tuple(shape),
            "strides": tuple(strides),
            "typestr": "|V%d" % dtype.itemsize,
            "version": 3,
        }


def _check_basic_index(key):
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


def view_geometry(shape, strides, dtype, key):
    """(byte offset, shape, strides, is_element) of ``array[key]`` for basic indexing."""
    parts = _check_basic_index(key)
    geometry = np.asarray(_Geometry(shape, strides, dtype))
    # a trailing Ellipsis makes NumPy return a 0-d view instead of reading an element
    view = geometry[parts + (Ellipsis,)] if Ellipsis not in parts else geometry[parts]
    offset = view.__array_interface__["data"][0] - _FAKE_BASE
    is_element = view.ndim == 0 and Ellipsis not in parts and None not in parts
    return offset, view.shape, view.strides, is_element


def transposed(shape, strides, axes):
    if axes is None or axes == ():
        axes = tuple(range(len(shape) - 1, -1, -1))
    elif len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    if sorted(operator.index(a) % max(len(shape), 1) for a in axes) != list(range(len(shape))):
        raise ValueError(f"axes {axes} are not a permutation of the {len(shape)} dimensions")
    axes = [operator.index(a) % len(shape) for a in axes]
    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)


def reshaped(shape, strides, itemsize, newshape, order):
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
