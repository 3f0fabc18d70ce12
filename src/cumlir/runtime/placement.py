"""Which device a launch runs on: the device its array arguments live on.

Numba-CUDA launches on the current device whatever its arguments, and a kernel given an
array of another device faults on its address (or, with peer access, reads across the
bus). cumlir launches where the arrays are: a CuPy array or PyTorch tensor made on
device 1 is launched on device 1 with device 1's copy of the kernel, whichever device is
current. Arrays of two devices in one launch are refused, naming both. With
``CUMLIR_STRICT_DEVICE=1`` a launch stays on the current device and an array of another
device is an error instead (runtime/arguments.py says which).

Only the general path asks: a launch whose device is current takes the fast path as
before, and a process that sees one device never asks at all.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import driver as drv
from .device_of import device_of
from .devicearray import DeviceNDArray

_several: bool | None = None  # whether this process sees more than one device (asked once)


def several_devices() -> bool:
    """Whether this process sees more than one device: only then can an array be elsewhere."""
    global _several
    if _several is None:
        _several = drv.is_available() and drv.device_count() > 1
    return _several


def strict() -> bool:
    """Whether launches must stay on the current device (``CUMLIR_STRICT_DEVICE``)."""
    return os.environ.get("CUMLIR_STRICT_DEVICE", "").strip().lower() in ("1", "true", "yes", "on")


def array_device(value: Any) -> int | None:
    """The device *value* (a launch argument) lives on, where it is a device array whose
    device can be told; None for scalars, host arrays and memory of no one device."""
    if isinstance(value, DeviceNDArray):
        return value._device_id
    found = device_of(value)  # CuPy and PyTorch say it cheaply
    if found is not None:
        return found if found >= 0 else None  # PyTorch's -1: a CPU tensor
    if isinstance(value, (int, float, complex, np.generic, np.ndarray)):
        return None
    try:
        interface = getattr(value, "__cuda_array_interface__", None)
        pointer = interface and interface["data"][0]
    except Exception:  # a malformed interface: the general packer names the problem
        return None
    return pointer_device(pointer) if pointer else None


def pointer_device(pointer: int) -> int | None:
    """The device whose memory holds the address *pointer*, from the driver; None where it
    is no device's alone (zero, host or managed memory, not an allocation, memory of a
    context that is no device's primary context). Asked through the allocation's context:
    the driver has answered CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL with 0 for memory of
    device 1 (two H200s, driver 580)."""
    if not pointer:
        return None
    cu = drv.driver()
    attributes = cu.CUpointer_attribute
    managed, err = _attribute(cu, attributes.CU_POINTER_ATTRIBUTE_IS_MANAGED, pointer)
    if err or managed:
        return None
    memory, err = _attribute(cu, attributes.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer)
    if err or int(memory) != int(cu.CUmemorytype.CU_MEMORYTYPE_DEVICE):
        return None
    context, err = _attribute(cu, attributes.CU_POINTER_ATTRIBUTE_CONTEXT, pointer)
    return None if err or not int(context) else drv.ordinal_of_context(int(context))


def _attribute(cu: Any, attribute: Any, pointer: int) -> tuple[Any, bool]:
    result = cu.cuPointerGetAttribute(attribute, pointer)
    return (result[1] if len(result) > 1 else None), result[0] != cu.CUresult.CUDA_SUCCESS


def launch_device(name: str, args: tuple[Any, ...]) -> int | None:
    """The device a launch of kernel *name* with *args* must move to, or None to launch on
    the current device (one device in the process, no device arrays, the arrays' device
    current, or strict placement)."""
    if not several_devices() or strict():
        return None
    home = first = None
    for index, value in enumerate(args):
        found = array_device(value)
        if found is None:
            continue
        if home is None:
            home, first = found, index
        elif found != home:
            raise ValueError(
                f"kernel {name}: argument {first} is on CUDA device {home} and argument {index} on device {found}; "
                "a launch runs on one device, so copy one of them to the other's device first"
            )
    if home is None or home == drv.current_context().ordinal:
        return None
    return home


@contextlib.contextmanager
def on_device(ordinal: int | None) -> Iterator[None]:
    """Device *ordinal*'s context current for the block (None: the current one stays)."""
    if ordinal is None:
        yield
        return
    drv.push_context(ordinal)
    try:
        yield
    finally:
        drv.pop_context()
