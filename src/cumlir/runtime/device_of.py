"""Which device a CuPy array or PyTorch tensor lives on, read from the object without
importing its library."""

from __future__ import annotations

from typing import Any


def device_of(value: Any) -> int | None:
    """The device a CuPy array or PyTorch tensor lives on, read cheaply; None for other
    kinds (their CUDA Array Interface does not say)."""
    module = type(value).__module__ or ""
    try:
        if module.startswith("cupy"):
            return value.data.device_id
        if module.startswith("torch"):
            return value.get_device()
    except AttributeError:
        pass
    return None
