"""The simulator's CUDA driver's kernels (driver.py): modules and their functions and
globals, function attributes, occupancy, and launches. Modules and launches go to the
simulator's loader (``engine.load_module``); a launch runs at once, on the calling thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cuda.bindings import driver as _real  # importing it needs no GPU; nothing in it is called

from .driver_constants import (
    BLOCKS_PER_SM,
    DEVICE_ATTRIBUTES,
    INVALID_CONTEXT,
    INVALID_HANDLE,
    INVALID_VALUE,
    NOT_FOUND,
    RESERVED_SHARED_PER_BLOCK,
    SHARED_PER_BLOCK,
    SHARED_PER_BLOCK_OPTIN,
    SHARED_PER_SM,
    SMS,
    SUCCESS,
    THREADS_PER_SM,
)
from .driver_memory import add_region, drop_region, regions
from .driver_state import Working, as_int, current_context, handles, tables_lock
from .driver_streams import stream_ok

# CU_FUNC_ATTRIBUTE_* where the engine's function does not say (MAX_DYNAMIC_SHARED_SIZE_BYTES:
# the 48 KiB a kernel gets without opting in, less its static shared memory)
FUNCTION_DEFAULTS = {
    "MAX_THREADS_PER_BLOCK": 1024,
    "PTX_VERSION": 90,
    "BINARY_VERSION": 90,
    "PREFERRED_SHARED_MEMORY_CARVEOUT": -1,
    "NUM_REGS": 32,
}


@dataclass(eq=False)
class _Module:
    engine: Any  # what engine.load_module gave
    functions: dict[str, int] = field(default_factory=dict)  # name -> CUfunction handle (one per name)
    globals: list[int] = field(default_factory=list)  # bases of the regions of its globals


@dataclass(eq=False)
class _Function:
    engine: Any  # the engine module's function(name)
    module: int
    settings: dict[str, int] = field(default_factory=dict)  # what cuFuncSetAttribute set


_modules: dict[int, _Module] = {}
_functions: dict[int, _Function] = {}


def reset() -> None:
    """Unload every module (their globals' regions go with the memory's)."""
    _modules.clear()
    _functions.clear()


# ---- modules and functions: the engine's ----


def _load_module(image: bytes) -> Any:
    from .engine import load_module  # the CPU code's loader, imported when the first module loads

    return load_module(image)


def cuModuleLoadData(image: Any) -> tuple[Any, ...]:
    if not isinstance(image, (bytes, bytearray, memoryview)):
        raise NotImplementedError(
            f"the cumlir simulator loads a module from its bytes, not from {type(image).__name__}"
        )
    if not current_context():
        return (INVALID_CONTEXT, None)
    module = _Module(_load_module(bytes(image)))  # what the engine raises is its report: it propagates
    handle = next(handles)
    with tables_lock:
        _modules[handle] = module
    return (SUCCESS, _real.CUmodule(handle))


def cuModuleUnload(hmod: Any) -> tuple[Any, ...]:
    with tables_lock:
        module = _modules.pop(as_int(hmod), None)
        if module is None:
            return (INVALID_HANDLE,)
        for handle in module.functions.values():
            _functions.pop(handle, None)
        for base in module.globals:
            region = regions.get(base)
            if region is not None and region.kind == "global":
                drop_region(region)
    return (SUCCESS,)


def _name(name: Any) -> str:
    return name.decode() if isinstance(name, (bytes, bytearray)) else str(name)


def cuModuleGetFunction(hmod: Any, name: Any) -> tuple[Any, ...]:
    with tables_lock:
        module = _modules.get(as_int(hmod))
    if module is None:
        return (INVALID_HANDLE, None)
    key = _name(name)
    with tables_lock:
        handle = module.functions.get(key)
    if handle is None:
        try:
            function = module.engine.function(key)
        except KeyError:
            return (NOT_FOUND, None)
        with tables_lock:
            handle = module.functions.setdefault(key, next(handles))
            _functions.setdefault(handle, _Function(function, as_int(hmod)))
    return (SUCCESS, _real.CUfunction(handle))


def cuModuleGetGlobal(hmod: Any, name: Any) -> tuple[Any, ...]:
    with tables_lock:
        module = _modules.get(as_int(hmod))
    if module is None:
        return (INVALID_HANDLE, None, None)
    try:
        address, size = module.engine.global_address(_name(name))
    except KeyError:
        return (NOT_FOUND, None, None)
    address, size = int(address), int(size)
    with tables_lock:  # a region, so that copies to and from it pass the device-pointer check
        if regions.get(address) is None:
            add_region(address, size, "global", None)
            module.globals.append(address)
    return (SUCCESS, _real.CUdeviceptr(address), size)


def _function_name(attrib: Any) -> str:
    return _real.CUfunction_attribute(int(attrib)).name.removeprefix("CU_FUNC_ATTRIBUTE_")


def _function_attribute(function: _Function, name: str) -> int:
    """What cuFuncSetAttribute set, else the engine's value, else a default."""
    if name in function.settings:
        return function.settings[name]
    attributes = function.engine.attributes
    if name in attributes:
        return int(attributes[name])
    if name == "MAX_DYNAMIC_SHARED_SIZE_BYTES":
        return max(SHARED_PER_BLOCK - _function_attribute(function, "SHARED_SIZE_BYTES"), 0)
    return FUNCTION_DEFAULTS.get(name, 0)


def cuFuncGetAttribute(attrib: Any, hfunc: Any) -> tuple[Any, ...]:
    function = _functions.get(as_int(hfunc))
    if function is None:
        return (INVALID_HANDLE, None)
    return (SUCCESS, _function_attribute(function, _function_name(attrib)))


def cuFuncSetAttribute(hfunc: Any, attrib: Any, value: int) -> tuple[Any, ...]:
    function = _functions.get(as_int(hfunc))
    if function is None:
        return (INVALID_HANDLE,)
    name, value = _function_name(attrib), int(value)
    if name == "MAX_DYNAMIC_SHARED_SIZE_BYTES":  # no more than the device gives a block, less static
        static = _function_attribute(function, "SHARED_SIZE_BYTES")
        if not 0 <= value <= SHARED_PER_BLOCK_OPTIN - static:
            return (INVALID_VALUE,)
    function.engine.set_attribute(name, value)
    function.settings[name] = value
    return (SUCCESS,)


# ---- occupancy ----


def _blocks_per_sm(function: _Function, threads: int, dynamic: int) -> int:
    """Blocks of *threads* threads and *dynamic* dynamic shared bytes resident on one SM."""
    if not 0 < threads <= _function_attribute(function, "MAX_THREADS_PER_BLOCK"):
        return 0
    if dynamic > _function_attribute(function, "MAX_DYNAMIC_SHARED_SIZE_BYTES"):
        return 0
    blocks = min(THREADS_PER_SM // threads, BLOCKS_PER_SM)
    shared = _function_attribute(function, "SHARED_SIZE_BYTES") + dynamic
    if shared:
        blocks = min(blocks, SHARED_PER_SM // (shared + RESERVED_SHARED_PER_BLOCK))
    return blocks


def cuOccupancyMaxActiveBlocksPerMultiprocessor(func: Any, blockSize: int, dynamicSMemSize: int) -> tuple[Any, ...]:
    function = _functions.get(as_int(func))
    if function is None:
        return (INVALID_HANDLE, None)
    return (SUCCESS, _blocks_per_sm(function, int(blockSize), int(dynamicSMemSize)))


def cuOccupancyMaxPotentialBlockSize(
    func: Any, blockSizeToDynamicSMemSize: Any, dynamicSMemSize: int, blockSizeLimit: int
) -> tuple[Any, ...]:
    """(minimum grid size for full occupancy, block size): the largest block size, in warps,
    of the most resident threads, as the real driver chooses."""
    if blockSizeToDynamicSMemSize is not None:
        raise NotImplementedError("the cumlir simulator takes no blockSizeToDynamicSMemSize callback")
    function = _functions.get(as_int(func))
    if function is None:
        return (INVALID_HANDLE, None, None)
    largest = _function_attribute(function, "MAX_THREADS_PER_BLOCK")
    if int(blockSizeLimit) > 0:
        largest = min(largest, int(blockSizeLimit))
    best, best_threads = 0, 0
    for threads in range(largest - largest % 32 or largest, 0, -32):  # whole warps, largest first
        resident = _blocks_per_sm(function, threads, int(dynamicSMemSize)) * threads
        if resident > best_threads:
            best, best_threads = threads, resident
    if not best:
        return (SUCCESS, 0, 0)
    return (SUCCESS, _blocks_per_sm(function, best, int(dynamicSMemSize)) * SMS, best)


def _no_clusters(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"{what}: thread-block clusters are not supported by the cumlir simulator; "
        "launch without a cluster shape, or run on a GPU"
    )


def cuOccupancyMaxPotentialClusterSize(func: Any, config: Any) -> tuple[Any, ...]:
    raise _no_clusters("cuOccupancyMaxPotentialClusterSize")


# ---- launches ----


def _params(kernelParams: Any, extra: Any) -> int:
    """The address of the void* array of the kernel's parameters (how the runtime passes them)."""
    if extra:
        raise NotImplementedError("the cumlir simulator takes a kernel's parameters through kernelParams, not extra")
    if kernelParams is None:
        return 0
    try:
        return int(kernelParams)
    except TypeError:
        raise NotImplementedError(
            "the cumlir simulator takes kernelParams as the address of the void* array of the parameters, "
            f"not a {type(kernelParams).__name__}"
        ) from None


def _launch_error(
    function: _Function, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int, cooperative: bool
) -> Any:
    """The CUresult the real driver gives for this configuration, or None: it launches."""
    limits = [DEVICE_ATTRIBUTES[f"MAX_{what}_DIM_{axis}"] for what in ("GRID", "BLOCK") for axis in "XYZ"]
    if not all(0 < n <= limit for n, limit in zip((*grid, *block), limits)):
        return INVALID_VALUE
    threads = block[0] * block[1] * block[2]
    if threads > min(
        DEVICE_ATTRIBUTES["MAX_THREADS_PER_BLOCK"], _function_attribute(function, "MAX_THREADS_PER_BLOCK")
    ):
        return INVALID_VALUE
    if not 0 <= shared <= _function_attribute(function, "MAX_DYNAMIC_SHARED_SIZE_BYTES"):
        return INVALID_VALUE
    if cooperative and grid[0] * grid[1] * grid[2] > _blocks_per_sm(function, threads, shared) * SMS:
        return _real.CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE  # a grid barrier needs every block resident
    return None


def _launch(
    f: Any,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    shared: int,
    stream: Any,
    params: int,
    cooperative: bool,
) -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT,)
    function = _functions.get(as_int(f))
    if function is None or not stream_ok(stream):
        return (INVALID_HANDLE,)
    error = _launch_error(function, grid, block, shared, cooperative)
    if error is not None:
        return (error,)
    with Working():  # what the engine raises is the simulator's report: it propagates unchanged
        function.engine.launch(grid, block, shared, params, cooperative)
    return (SUCCESS,)


def cuLaunchKernel(
    f: Any,
    gridDimX: int,
    gridDimY: int,
    gridDimZ: int,
    blockDimX: int,
    blockDimY: int,
    blockDimZ: int,
    sharedMemBytes: int,
    hStream: Any,
    kernelParams: Any,
    extra: Any,
) -> tuple[Any, ...]:
    grid = (int(gridDimX), int(gridDimY), int(gridDimZ))
    block = (int(blockDimX), int(blockDimY), int(blockDimZ))
    return _launch(f, grid, block, int(sharedMemBytes), hStream, _params(kernelParams, extra), False)


def cuLaunchCooperativeKernel(
    f: Any,
    gridDimX: int,
    gridDimY: int,
    gridDimZ: int,
    blockDimX: int,
    blockDimY: int,
    blockDimZ: int,
    sharedMemBytes: int,
    hStream: Any,
    kernelParams: Any,
) -> tuple[Any, ...]:
    grid = (int(gridDimX), int(gridDimY), int(gridDimZ))
    block = (int(blockDimX), int(blockDimY), int(blockDimZ))
    return _launch(f, grid, block, int(sharedMemBytes), hStream, _params(kernelParams, None), True)


def _cooperative_attribute(config: Any) -> bool:
    """Whether the CUlaunchConfig's attributes ask for a cooperative launch; clusters and
    attributes the simulator cannot honour are refused."""
    ids = _real.CUlaunchAttributeID
    cooperative = False
    for attribute in list(config.attrs)[: int(config.numAttrs)]:
        kind = attribute.id
        if kind in (ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, ids.CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION):
            cluster = attribute.value.clusterDim
            raise _no_clusters(f"a launch with the cluster shape ({cluster.x}, {cluster.y}, {cluster.z})")
        if kind == ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            cooperative = bool(attribute.value.cooperative)
        elif kind not in (
            ids.CU_LAUNCH_ATTRIBUTE_IGNORE,
            # work runs in order, one launch at a time: these only allow overlap, or order it as it is
            ids.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            ids.CU_LAUNCH_ATTRIBUTE_PRIORITY,
            ids.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW,
            ids.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY,
        ):
            raise NotImplementedError(f"the cumlir simulator does not support the launch attribute {kind.name}")
    return cooperative


def cuLaunchKernelEx(config: Any, f: Any, kernelParams: Any, extra: Any) -> tuple[Any, ...]:
    cooperative = _cooperative_attribute(config)
    grid = (int(config.gridDimX), int(config.gridDimY), int(config.gridDimZ))
    block = (int(config.blockDimX), int(config.blockDimY), int(config.blockDimZ))
    params = _params(kernelParams, extra)
    return _launch(f, grid, block, int(config.sharedMemBytes), config.hStream, params, cooperative)
