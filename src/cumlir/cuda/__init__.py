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
from .reduce_api import Reduce, reduce
from .ufunc_api import guvectorize, vectorize
from .. import intrinsics as _intrinsics


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


def current_context():
    """The context kernels run in (the current device's primary context): ``get_memory_info()``,
    ``synchronize()``, ``compute_capability``."""
    from ..runtime.driver import current_context as context

    return context()


def get_current_device():
    """The current device, with ``name`` and ``compute_capability``."""
    from ..runtime.driver import current_context

    return current_context()


_FUNCTIONS = [
    "jit",
    "vectorize",
    "guvectorize",
    "reduce",
    "Reduce",
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
    "current_context",
    "DeviceNDArray",
    "devicearray",
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
    "random",
]


# the scalar types Numba-CUDA's namespace re-exports from numba (``from numba.cuda import float32``)
SCALAR_TYPES = frozenset(
    "boolean bool_ byte char uchar short ushort int_ uint long_ ulong longlong ulonglong "
    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp intc uintc ssize_t size_t "
    "float16 float32 float64 double complex64 complex128 void none".split()
)


def _devicearray_module():
    from ..runtime import devicearray

    return devicearray


def _random_module():
    # not "from . import random", which asks this module's __getattr__ for it first
    import importlib

    return importlib.import_module(f"{__name__}.random")


# names loaded on first use: the runtime's device arrays import the driver bindings
_LAZY = {
    "devicearray": _devicearray_module,
    "DeviceNDArray": lambda: _devicearray_module().DeviceNDArray,
    "random": _random_module,  # cuda.random, the xoroshiro128+ generator (a submodule)
}


def __getattr__(name):
    # the intrinsic stubs (threadIdx, grid, shared, syncthreads, atomic, libdevice, ...) are the
    # stubs at the top of the areas of cumlir/intrinsics, imported on first use so that
    # importing this module stays cheap; a new intrinsic needs no line here
    if name == "__all__":
        return _FUNCTIONS + sorted(_intrinsics.cuda_names())
    if name in _LAZY:
        value = globals()[name] = _LAZY[name]()
        return value
    if "." not in name and not name.startswith("_"):  # not numba's probes (_numba_type_)
        try:
            stub = _intrinsics.stub(name)
        except KeyError:
            if name in SCALAR_TYPES:  # numba's types, as Numba-CUDA re-exports them (loads numba)
                from numba.core import types

                return getattr(types, name)
        else:
            globals()[name] = stub  # later reads are plain attribute reads
            return stub
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_intrinsics.cuda_names()))
