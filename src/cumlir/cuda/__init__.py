"""The Numba-CUDA compatible namespace: ``from cumlir import cuda``.

Importing this module is cheap: numba, MLIR and the CUDA driver are loaded only
when a kernel is compiled or launched.
"""

import functools as _functools
import importlib as _importlib
import typing as _typing

from .. import refused as _refused
from ..linkable import LTOIR, Archive, Cubin, CUSource, Fatbin, LinkableCode, Object, PTXSource
from .arrays import (
    as_cuda_array,
    defer_cleanup,
    device_array,
    device_array_like,
    from_cuda_array_interface,
    from_dlpack,
    is_cuda_array,
    managed_array,
    mapped,
    mapped_array,
    mapped_array_like,
    open_ipc_array,
    pinned,
    pinned_array,
    pinned_array_like,
    prepare_shape_strides_dtype,
    resolve_cuda_array_interface_dtype,
    to_device,
)
from .compile_api import (
    compile,
    compile_all,
    compile_cubin,
    compile_for,
    compile_for_current_device,
    compile_mlir,
    compile_ptx,
    compile_ptx_for_current_device,
)
from .decorators import jit
from .device_api import (
    close,
    cuda_error,
    current_context,
    detect,
    get_current_device,
    gpus,
    is_available,
    is_bfloat16_supported,
    is_float16_supported,
    is_fp8_supported,
    is_simulator,
    is_supported_version,
    list_devices,
    nrt_stats,
    profile_start,
    profile_stop,
    profiling,
    require_context,
    runtime,
    select_device,
    set_heap_size,
    synchronize,
)
from .foreign import declare_device
from .reduce_api import Reduce, reduce
from .stream_api import (
    default_stream,
    event,
    event_elapsed_time,
    external_stream,
    legacy_default_stream,
    per_thread_default_stream,
    stream,
)
from .ufunc_api import guvectorize, vectorize

HAS_NUMBA = True  # cumlir's frontend is numba
implementation = "NVIDIA"  # not the simulator


# Numba-CUDA's External Memory Management plugin interface and its memory objects
_MEMORY_MANAGER_NAMES = (
    "set_memory_manager",
    "BaseCUDAMemoryManager",
    "HostOnlyCUDAMemoryManager",
    "GetIpcHandleMixin",
    "MemoryPointer",
    "MappedMemory",
    "PinnedMemory",
)

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
    "is_simulator",
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
    # devices, contexts, streams, events, host memory (Numba-CUDA's host API)
    "gpus",
    "list_devices",
    "select_device",
    "close",
    "detect",
    "require_context",
    "cuda_error",
    "profile_start",
    "profile_stop",
    "profiling",
    "runtime",
    "is_supported_version",
    "legacy_default_stream",
    "per_thread_default_stream",
    "external_stream",
    "event",
    "event_elapsed_time",
    "managed_array",
    "pinned",
    "mapped",
    "defer_cleanup",
    "from_cuda_array_interface",
    "prepare_shape_strides_dtype",
    "compile_all",
    "open_ipc_array",
    "IpcHandle",
    "In",
    "Out",
    "InOut",
    "MemoryInfo",
    *_MEMORY_MANAGER_NAMES,
    "CudaSupportError",
    "KernelRuntimeError",
    "HAS_NUMBA",
    "implementation",
    "config",
    "types",
    "literal_unroll",
    "LinkableCode",
    "CUSource",
    "PTXSource",
    "LTOIR",
    "Cubin",
    "Fatbin",
    "Object",
    "Archive",
    # numba-cuda-mlir's own names
    "local_array",
    "shared_array",
    "resolve_cuda_array_interface_dtype",
    "vector_types",
    "libdevicefuncs",
    "compile_mlir",
    "compile_cubin",
    "compile_for",
    "intrin",
    "tensor_map",
    "experimental",
]


# the scalar types Numba-CUDA's namespace re-exports from numba (``from numba.cuda import float32``)
SCALAR_TYPES = frozenset(
    "boolean bool_ byte char uchar short ushort int_ uint long_ ulong longlong ulonglong "
    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp intc uintc ssize_t size_t "
    "float16 float32 float64 double complex64 complex128 void none "
    # the short aliases, bool, numba's opaque FFI types and its Optional / DeferredType classes
    "b1 i1 i2 i4 i8 u1 u2 u4 u8 f4 f8 c8 c16 bool ffi ffi_forced_object optional deferred_type".split()
)


def _operations():
    # the operations' registry, with their stubs: imported on the first name looked up in it
    return _importlib.import_module("cumlir.operations")


def _devicearray_module():
    from ..runtime import devicearray

    return devicearray


def _random_module():
    # not "from . import random", which asks this module's __getattr__ for it first
    return _importlib.import_module(f"{__name__}.random")


_NARROW_FLOATS = (
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e4m3",
    "float8_e3m4",
    "float8_e4m3b11fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
)


def _narrow_float(name: str) -> _typing.Any:
    return _importlib.import_module("cumlir.types").narrow_floats[name]


def _memory_name(name: str) -> _typing.Any:
    managers = _importlib.import_module("cumlir.runtime.memory_managers")
    return getattr(managers, name, None) or getattr(_importlib.import_module("cumlir.runtime.memory_pointers"), name)


# names loaded on first use: the runtime's device arrays import the driver bindings
_LAZY: dict[str, _typing.Callable[[], _typing.Any]] = {
    "devicearray": _devicearray_module,
    "DeviceNDArray": lambda: _devicearray_module().DeviceNDArray,
    "random": _random_module,  # cuda.random, the xoroshiro128+ generator (a submodule)
    "bfloat16": lambda: _operations().stub("bf16").bfloat16,  # Numba-CUDA's cuda.bfloat16 is cuda.bf16's
    "complex32": lambda: _importlib.import_module("cumlir.types").complex32,  # numba-cuda-mlir's
    # the narrow floats under their ml_dtypes names (cuda.float8_e4m3fn is types.f8E4M3FN)
    **{name: _functools.partial(_narrow_float, name) for name in _NARROW_FLOATS},
    "config": lambda: _importlib.import_module("numba.core.config"),  # numba's, as Numba-CUDA's
    # numba's types and cumlir's CUDA types, as Numba-CUDA's numba.cuda.types module holds
    "types": lambda: _importlib.import_module("cumlir.types"),
    "literal_unroll": lambda: _importlib.import_module("numba").literal_unroll,
    "In": lambda: _importlib.import_module("cumlir.runtime.arg_hints").In,
    "Out": lambda: _importlib.import_module("cumlir.runtime.arg_hints").Out,
    "InOut": lambda: _importlib.import_module("cumlir.runtime.arg_hints").InOut,
    "IpcHandle": lambda: _devicearray_module().IpcHandle,
    "MemoryInfo": lambda: _importlib.import_module("cumlir.runtime.driver").MemoryInfo,
    # Numba-CUDA's External Memory Management plugin interface (runtime/memory_managers.py)
    **{name: _functools.partial(_memory_name, name) for name in _MEMORY_MANAGER_NAMES},
    "CudaSupportError": lambda: _importlib.import_module("cumlir.runtime.driver").CudaSupportError,
    "KernelRuntimeError": lambda: _importlib.import_module("cumlir.runtime.kernel").KernelRuntimeError,
    # numba-cuda-mlir's names for cuda.local.array and cuda.shared.array
    "local_array": lambda: _operations().stub("local").array,
    "shared_array": lambda: _operations().stub("shared").array,
    "vector_types": lambda: _importlib.import_module(f"{__name__}.vector_types"),
    "libdevicefuncs": lambda: _importlib.import_module(f"{__name__}.libdevicefuncs"),
    "intrin": lambda: _importlib.import_module(f"{__name__}.intrin"),
    "tensor_map": lambda: _importlib.import_module(f"{__name__}.tensor_map"),
    "experimental": lambda: _importlib.import_module(f"{__name__}.experimental"),
}


def __getattr__(name: str) -> _typing.Any:
    # the intrinsic stubs (threadIdx, grid, shared, syncthreads, atomic, libdevice, ...) are the
    # stubs at the top of the operation modules of cumlir/operations, imported on first use so that
    # importing this module stays cheap; a new intrinsic needs no line here
    if name == "__all__":
        return _FUNCTIONS + sorted(_operations().cuda_names())
    if name in _LAZY:
        value = globals()[name] = _LAZY[name]()
        return value
    if name in _refused.NAMESPACE:  # see cumlir/refused.py and docs/compatibility.md
        raise _refused.refusal(name)
    if name in _refused.NUMBA_CUDA_MLIR["cuda"]:  # numba-cuda-mlir's own names cumlir refuses
        raise _refused.numba_cuda_mlir_refusal("cuda", name)
    if "." not in name and not name.startswith("_"):  # not numba's probes (_numba_type_)
        try:
            stub = _operations().stub(name)
        except KeyError:
            if name in SCALAR_TYPES:  # numba's types, as Numba-CUDA re-exports them (loads numba)
                from numba.core import types

                return getattr(types, name)
        else:
            globals()[name] = stub  # later reads are plain attribute reads
            return stub
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_operations().cuda_names()))


class _NamespaceModules:
    """``from cumlir.cuda.bf16 import bfloat16``: a namespace of intrinsics (``cuda.bf16``,
    ``cuda.fp16``, ``cuda.libdevice``) imported as a module, as Numba-CUDA's are."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name.startswith("_"):
            return None
        try:
            stub = _operations().stub(name)
        except KeyError:
            return None
        if not isinstance(stub, _operations().Namespace):
            return None
        import importlib.util

        return importlib.util.spec_from_loader(fullname, cls, origin=f"cuda.{name}")

    @staticmethod
    def create_module(spec):
        # the namespace object itself stands as the module, so that the import system, which
        # binds the submodule on its package, leaves cuda.bf16 the same object kernels see
        return _operations().stub(spec.name.rpartition(".")[2])

    @staticmethod
    def exec_module(module):
        pass


def _install_namespace_modules():
    import sys

    if not any(finder is _NamespaceModules for finder in sys.meta_path):
        sys.meta_path.append(_NamespaceModules)


_install_namespace_modules()
