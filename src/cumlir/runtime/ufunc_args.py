"""The operands of GPU ufunc calls: what each argument is (a device array, a host array or
a scalar), NumPy broadcasting, and device views that repeat an operand along broadcast axes
(stride 0), so that kernels read every operand in place, whatever its strides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .devicearray import DeviceNDArray, as_device_array, device_array, from_host, is_device_array

SCALARS = (int, float, complex, bool, np.generic)


@dataclass
class Operand:
    kind: str  # "device", "host" or "scalar"
    value: Any  # a DeviceNDArray, a NumPy array, or the scalar
    dtype: np.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return () if self.kind == "scalar" else self.value.shape

    @property
    def scalar(self) -> Any:
        return self.value if self.kind == "scalar" else None


def operand(arg: Any, index: int) -> Operand:
    """Classify argument *index*: CUDA arrays (ours, or any __cuda_array_interface__ object)
    are used in place, scalars passed by value, anything else read as a NumPy array."""
    if isinstance(arg, DeviceNDArray):
        return Operand("device", arg, arg.dtype)
    if is_device_array(arg):
        device_array = as_device_array(arg)
        return Operand("device", device_array, device_array.dtype)
    if isinstance(arg, SCALARS):
        dtype = arg.dtype if isinstance(arg, np.generic) else np.asarray(arg).dtype
        return Operand("scalar", arg, dtype)
    array = np.asarray(arg)
    if array.dtype.hasobject or array.dtype.kind not in "biufc":
        raise TypeError(f"argument {index}: a {type(arg).__name__} of dtype {array.dtype} is not a numeric array")
    if array.ndim == 0:
        return Operand("scalar", array[()], array.dtype)
    return Operand("host", array, array.dtype)


def direct_type(cls: type) -> bool:
    """Whether arrays of the class *cls* always live on the GPU and can go to a kernel as they
    are (CuPy's, Numba-CUDA's and cumlir's device arrays; a torch.Tensor may be on the host)."""
    known = _DIRECT_TYPES.get(cls)
    if known is None:
        root = cls.__module__.split(".", 1)[0]
        known = _DIRECT_TYPES[cls] = root in ("cupy", "cumlir", "numba") and hasattr(cls, "__cuda_array_interface__")
    return known


_DIRECT_TYPES: dict[type, bool] = {}


def broadcast_shape(shapes: Sequence[Sequence[int]], what: str = "operands") -> tuple[int, ...]:
    """NumPy's broadcast of *shapes*; ValueError naming them if they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        listed = " ".join(str(tuple(s)) for s in shapes)
        raise ValueError(f"{what} could not be broadcast together with shapes {listed}") from None


def on_device(op: Operand, stream: object) -> DeviceNDArray:
    """A DeviceNDArray of an array operand (host arrays are copied in)."""
    if op.kind == "device":
        return op.value
    return from_host(op.value, stream=stream)


def broadcast_view(array: DeviceNDArray, shape: Sequence[int]) -> DeviceNDArray:
    """A view of the device array *array* with the shape *shape* (NumPy broadcasting): new
    leading axes and axes of extent 1 that grow get a stride of 0."""
    missing = len(shape) - array.ndim
    strides = [0] * missing + list(array.strides)
    for axis in range(missing, len(shape)):
        if array.shape[axis - missing] != shape[axis]:
            strides[axis] = 0
    return array._view(tuple(shape), tuple(strides))


def output(
    out: Any, shape: Sequence[int], dtype: np.dtype, stream: object, index: int
) -> tuple[DeviceNDArray, np.ndarray | None]:
    """(the device array a kernel writes, the host array to copy it to or None) for an
    output of *shape* and a result of *dtype*: *out* if given (checked), else a new one."""
    if out is None:
        return device_array(shape, dtype, stream=stream), None
    target = operand(out, index)
    if target.kind == "scalar":
        raise TypeError(f"out must be an array, not a {type(out).__name__}")
    if tuple(target.shape) != tuple(shape):
        raise ValueError(f"out has shape {tuple(target.shape)}, but the result has shape {tuple(shape)}")
    if not np.can_cast(dtype, target.dtype, "same_kind"):
        raise TypeError(f"out has dtype {target.dtype}, which cannot hold the result's {dtype} (same_kind casting)")
    if target.kind == "device":
        if target.value._readonly:
            raise ValueError("out is a read-only device array")
        return target.value, None
    if not target.value.flags.writeable:
        raise ValueError("out is a read-only array")
    return device_array(shape, target.dtype, stream=stream), target.value


def finish(
    device_out: DeviceNDArray, host_out: np.ndarray | None, return_host: bool, stream: object
) -> DeviceNDArray | np.ndarray:
    """Copy a result back where asked: into *host_out*, or to a new host array when the call had
    no device operand; else the device array."""
    if host_out is not None:
        host_out[...] = device_out.copy_to_host(stream=stream)  # any strides
        return host_out
    if return_host:
        return device_out.copy_to_host(stream=stream)
    return device_out


def coalesce(views: Sequence[DeviceNDArray]) -> Sequence[DeviceNDArray]:
    """The device arrays *views* (all of one shape) with neighbouring axes merged wherever every
    view steps over the pair as over one axis (NumPy's iterator does the same): C-contiguous
    operands become 1-d, so kernels index them without dividing by the extents."""
    shape = list(views[0].shape)
    strides = [list(v.strides) for v in views]
    axis = len(shape) - 2
    while axis >= 0:
        if all(s[axis] == s[axis + 1] * shape[axis + 1] for s in strides):
            shape[axis] *= shape[axis + 1]
            del shape[axis + 1]
            for s in strides:
                del s[axis]
        axis -= 1
    if len(shape) == len(views[0].shape):
        return views
    return [v._view(tuple(shape), tuple(s)) for v, s in zip(views, strides)]
