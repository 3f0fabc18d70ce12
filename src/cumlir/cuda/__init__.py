"""The Numba-CUDA compatible namespace: ``from cumlir import cuda``.

Importing this module is cheap: numba, MLIR and the CUDA driver are loaded only
when a kernel is compiled or launched.
"""

from .arrays import (
    as_cuda_array,
    device_array,
    device_array_like,
    from_dlpack,
    is_cuda_array,
    mapped_array,
    mapped_array_like,
    pinned_array,
    pinned_array_like,
    to_device,
)
from .compile_api import compile, compile_for_current_device, compile_ptx, compile_ptx_for_current_device
from .foreign import carray, declare_device, farray
from .decorators import jit
from .stubs import blockDim, blockIdx, const, grid, gridDim, gridsize, local, shared, syncthreads, threadIdx


def is_available():
    """Whether a CUDA GPU and driver can be used."""
    from ..runtime.driver import is_available as available

    return available()


def synchronize():
    """Wait until all work queued on the current device has finished."""
    from ..runtime.driver import synchronize as sync

    sync()


def stream():
    """A new CUDA stream."""
    from ..runtime.streams import stream as new_stream

    return new_stream()


def default_stream():
    """The legacy default stream."""
    from ..runtime.streams import default_stream as legacy

    return legacy()


def get_current_device():
    """The current device, with ``name`` and ``compute_capability``."""
    from ..runtime.driver import current_context

    return current_context()


__all__ = [
    "jit",
    "compile",
    "compile_for_current_device",
    "compile_ptx",
    "carray",
    "farray",
    "declare_device",
    "compile_ptx_for_current_device",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "grid",
    "gridsize",
    "shared",
    "local",
    "const",
    "syncthreads",
    "is_available",
    "synchronize",
    "stream",
    "default_stream",
    "get_current_device",
    "to_device",
    "device_array",
    "device_array_like",
    "pinned_array",
    "pinned_array_like",
    "mapped_array",
    "mapped_array_like",
    "as_cuda_array",
    "is_cuda_array",
    "from_dlpack",
]
