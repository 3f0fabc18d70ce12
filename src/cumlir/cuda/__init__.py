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
from .foreign import declare_device
from .decorators import jit
from .. import intrinsics as _intrinsics


def __getattr__(name):
    # a stub of an area found after this module was imported
    if "." not in name and not name.startswith("_"):  # not numba's probes (_numba_type_)
        try:
            return _intrinsics.stub(name)
        except KeyError:
            pass
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "declare_device",
    "compile_ptx_for_current_device",
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


def _add_intrinsics():
    # the intrinsic stubs (threadIdx, grid, shared, syncthreads, carray, ...): the stubs at the
    # top of every area of cumlir/intrinsics, so that a new intrinsic needs no line here
    stubs = _intrinsics.cuda_names()
    clash = sorted(set(stubs) & set(globals()))
    if clash:
        raise ImportError(f"intrinsic stubs would hide functions of cumlir.cuda: {', '.join(clash)}")
    globals().update(stubs)
    __all__.extend(sorted(stubs))


_add_intrinsics()
