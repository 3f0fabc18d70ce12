"""A compiled kernel loaded into a context, and its launch."""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from . import driver as drv
from . import module_callbacks, nrt_stats
from .arguments import ArgumentPacker
from .launch import PORTABLE_CLUSTER_BLOCKS
from .staging import HostArrayStaging

if TYPE_CHECKING:
    from numba.core import types

    from ..options import Options
    from ..raise_sites import RaiseSite
    from .launch import LaunchConfiguration


class KernelRuntimeError(RuntimeError):
    """Numba-CUDA's error for an exception raised in a thread, with the thread's index *tid*
    and its block's *ctaid*. (With debug=True cumlir, like Numba-CUDA, raises the device's
    exception class itself, its message naming the thread.)"""

    def __init__(
        self, msg: str, tid: tuple[int, int, int] | None = None, ctaid: tuple[int, int, int] | None = None
    ) -> None:
        self.msg, self.tid, self.ctaid = msg, tid, ctaid
        super().__init__(f"An exception was raised in thread={tid} block={ctaid}\n\t{msg}")


@dataclass(frozen=True, eq=False)
class LaunchRecord:
    """What launching a loaded kernel takes, for launchers outside this module (the
    dispatcher's, runtime/fastpack.py's routes): made once when the kernel is loaded."""

    function: Any  # the CUfunction
    context: drv.Context  # the context the kernel is loaded in
    shared: SharedMemoryLimits  # its static shared memory and the dynamic bytes it may be launched with
    raise_sites: Sequence[RaiseSite]  # debug mode: what each device exception code means (empty: it reports none)
    packer: ArgumentPacker  # of its parameters


class CompiledKernel(Protocol):
    """What loading a kernel reads of the compiler's artefact: a ``compiler.Compilation`` run up
    to ``cubin``, or a ``cache.CachedKernel`` read from the disk cache."""

    @property
    def cubin(self) -> bytes: ...

    @property
    def symbol(self) -> str: ...

    @property
    def argtypes(self) -> Sequence[types.Type]: ...

    @property
    def raise_sites(self) -> Sequence[RaiseSite]: ...

    @property
    def exception_global(self) -> str | None: ...

    @property
    def options(self) -> Options: ...

    @property
    def cooperative(self) -> bool: ...


class LoadedKernel:
    """A compiled kernel loaded into one context: launched with prebuilt argument packing.

    It receives the compiler's artefact (a cubin, the entry's name, its argument types and,
    in debug mode, what each device exception code means) and never compiles. What other
    launchers need of it is its ``record`` (a LaunchRecord)."""

    uses_runtime: bool  # it links the device runtime (set by nrt_stats.register)

    def __init__(self, context: drv.Context, compiled: CompiledKernel) -> None:
        cu = drv.driver()
        loading = f"loading kernel {compiled.symbol} on CUDA device {context.ordinal}"
        try:
            self._module = drv.check("cuModuleLoadData", cu.cuModuleLoadData(compiled.cubin))
        except drv.CudaDriverError as e:
            e.doing(loading)
            raise
        made_in = drv.lifetime(context.ordinal)
        try:
            self._open(context, compiled)
            setups, teardowns = module_callbacks.callbacks(getattr(compiled, "link", None) or compiled.options.link)
            unload = module_callbacks.set_up(self._module, made_in, setups, teardowns)
        except BaseException as e:
            cu.cuModuleUnload(self._module)  # nothing holds it yet: a kernel that failed to open leaks nothing
            if isinstance(e, drv.CudaDriverError):
                e.doing(loading)
            raise
        # the module is unloaded when the last holder of its function goes: launchers keep
        # this kernel or its record (a long-lived process compiles and drops many kernels)
        weakref.finalize(self.record, unload)
        nrt_stats.register(self, context, self._module, compiled.cubin)

    def _open(self, context: drv.Context, compiled: CompiledKernel) -> None:
        """The kernel's function, attributes and launch record, from its loaded module."""
        cu = drv.driver()
        self._function = drv.check(
            "cuModuleGetFunction", cu.cuModuleGetFunction(self._module, compiled.symbol.encode())
        )
        self.name = compiled.symbol
        self._packer = ArgumentPacker(compiled.argtypes)
        self._argtypes = tuple(compiled.argtypes)
        # argument handlers (cuda.jit(extensions=...)): every launch goes the general way through them
        self.extensions: Sequence[Any] = compiled.options.extensions
        self._raise_sites = compiled.raise_sites
        self._exception_global = compiled.exception_global
        self._shared = SharedMemoryLimits(context, self._function)
        self.min_dynamic_shared = 0  # bytes its code asked every launch to give (set by the dispatcher)
        # the alignment above 16 bytes its dynamic shared arrays start on (set by the dispatcher)
        self.dynamic_alignment = 0
        # compiled with 32-bit element offsets for arrays spanning less than 2**31 bytes (set
        # by the dispatcher): its fast path declines larger ones
        self.narrow = False
        carveout = compiled.options.shared_memory_carveout
        if carveout is not None:
            attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
            drv.check("cuFuncSetAttribute", cu.cuFuncSetAttribute(self._function, attr, carveout))
        self._context = context
        self.record = LaunchRecord(self._function, context, self._shared, self._raise_sites, self._packer)
        self.cooperative = compiled.cooperative  # it synchronizes the grid
        # (threads per block, dynamic shared bytes) -> blocks resident at once
        self._resident: dict[tuple[int, int], int] = {}
        self._non_portable_clusters = False  # opted in to clusters of more than 8 blocks

    def __repr__(self) -> str:
        return f"<cumlir loaded kernel {self.name}>"

    def attribute(self, attr: Any) -> int:
        """A CU_FUNC_ATTRIBUTE_* value of the loaded kernel (registers, shared bytes ...)."""
        cu = drv.driver()
        return drv.check("cuFuncGetAttribute", cu.cuFuncGetAttribute(attr, self._function))

    def function_attribute(self, name: str) -> int:
        """The CU_FUNC_ATTRIBUTE_* value named *name* (e.g. "CU_FUNC_ATTRIBUTE_NUM_REGS")."""
        return self.attribute(getattr(drv.driver().CUfunction_attribute, name))

    def max_cooperative_grid_blocks(self, blockdim: int | Sequence[int], dynsmem: int = 0) -> int:
        """How many blocks of *blockdim* threads (an int or a tuple) with *dynsmem* bytes of
        dynamic shared memory can be resident at once: the most a cooperative launch may have."""
        threads = _threads(blockdim)
        key = (threads, dynsmem)
        blocks = self._resident.get(key)
        if blocks is None:
            cu = drv.driver()
            per_sm = drv.check(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(self._function, threads, dynsmem),
            )
            sms = self._context.attribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            blocks = self._resident[key] = per_sm * sms
        return blocks

    def max_potential_block_size(self, dynsmem: int = 0) -> int:
        """The block size the driver suggests for the most resident threads (``forall``)."""
        cu = drv.driver()
        _, size = drv.check(
            "cuOccupancyMaxPotentialBlockSize", cu.cuOccupancyMaxPotentialBlockSize(self._function, None, dynsmem, 1024)
        )
        return size

    def dynamic_shared_bytes(self, asked: int) -> int:
        """The dynamic shared bytes a launch asking for *asked* gives: where the kernel has
        static shared arrays, the dynamic ones start where those end, at 16 bytes; a dynamic
        array aligned to more starts on the next aligned address, and the launch gives that
        alignment's bytes more so that the array still holds what was asked for."""
        if asked and self.dynamic_alignment and self._shared.static:
            return asked + self.dynamic_alignment
        return asked

    def launch(self, args: Sequence[object], config: LaunchConfiguration) -> None:
        context = drv.current_context()
        griddim, blockdim, stream = config.griddim, config.blockdim, config.stream
        sharedmem = self.dynamic_shared_bytes(max(config.sharedmem, self.min_dynamic_shared))
        config.check(context)  # the device's limits, the stream's context
        if sharedmem > self._shared.dynamic_allowed:
            self._shared.allow_dynamic(sharedmem)
        if self.cooperative:
            self._check_cooperative(griddim, blockdim, sharedmem)
            if config.extended:
                raise ValueError(
                    f"kernel {self.name} synchronizes its grid (a cooperative launch); cumlir does not launch "
                    "such a kernel in thread-block clusters or with pdl=True: launch it without them"
                )
        staging = HostArrayStaging(stream, context.ordinal)
        if self.uses_runtime:
            nrt_stats.note_launch(self)
        writebacks: list = []  # what the argument handlers ask to run after the launch
        try:
            if self.extensions:
                args = self._handled(args, stream, writebacks)
            pointers, buffer = self._packer.pack(args, staging)
            cu = drv.driver()
            if self.cooperative:  # every block resident at once, as a grid barrier needs
                drv.check(
                    "cuLaunchCooperativeKernel",
                    cu.cuLaunchCooperativeKernel(
                        self._function, *griddim, *blockdim, sharedmem, stream, ctypes.addressof(pointers)
                    ),
                )
            elif config.extended:
                launch = _extended_launch(config, sharedmem)
                if config.cluster is not None and _blocks(config.cluster) > PORTABLE_CLUSTER_BLOCKS:
                    self._check_large_cluster(launch, config.cluster)
                drv.check(
                    "cuLaunchKernelEx", cu.cuLaunchKernelEx(launch, self._function, ctypes.addressof(pointers), 0)
                )
            else:
                drv.check(
                    "cuLaunchKernel",
                    cu.cuLaunchKernel(
                        self._function, *griddim, *blockdim, sharedmem, stream, ctypes.addressof(pointers), 0
                    ),
                )
        except BaseException as e:
            staging.abandon()
            if isinstance(e, drv.CudaDriverError):
                e.doing(f"launching kernel {self.name}")
            raise
        try:
            staging.finish()
            for writeback in writebacks:
                writeback()
            if self._raise_sites:
                self._report_device_exception(stream)
        except drv.CudaDriverError as e:
            e.doing(f"kernel {self.name}, after its launch")
            raise

    def _check_large_cluster(self, launch: Any, cluster: tuple[int, ...]) -> None:
        """Clusters of more than 8 blocks: the kernel opts in once, and the device must run
        clusters that large of this kernel's blocks (16 at most on sm_90, fewer for blocks
        with many threads or much shared memory)."""
        cu = drv.driver()
        if not self._non_portable_clusters:
            attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
            drv.check("cuFuncSetAttribute", cu.cuFuncSetAttribute(self._function, attr, 1))
            self._non_portable_clusters = True
        largest = drv.check(
            "cuOccupancyMaxPotentialClusterSize", cu.cuOccupancyMaxPotentialClusterSize(self._function, launch)
        )
        if _blocks(cluster) > largest:
            raise ValueError(
                f"kernel {self.name}: a cluster of {cluster[0]}x{cluster[1]}x{cluster[2]} = {_blocks(cluster)} "
                f"blocks is more than the {largest} this device runs at once for blocks of "
                f"{launch.blockDimX}x{launch.blockDimY}x{launch.blockDimZ} threads and {launch.sharedMemBytes} "
                "bytes of dynamic shared memory"
            )

    def _handled(
        self, args: Sequence[object], stream: int, writebacks: list[Callable[[], object]]
    ) -> tuple[object, ...]:
        """The arguments as the argument handlers give them, from the last handler to the
        first, as in Numba-CUDA: ``prepare_args(ty, val, stream=, retr=)`` returns the type
        and value to pass on, and appends to *retr* what must run after the launch. *stream*
        is the launch's stream handle (0: the default stream)."""
        handled = []
        for index, (ty, value) in enumerate(zip(self._argtypes, args)):
            given = ty
            for handler in reversed(self.extensions):
                given, value = handler.prepare_args(given, value, stream=stream, retr=writebacks)
            if given != ty and not self._packer.passes_as(index, given):
                raise TypeError(
                    f"kernel {self.name}: the extension {handler!r} passes argument {index} as {given}, "
                    f"but the kernel was compiled for {ty}; a handler may change the value, not its type "
                    "(but for a pointer's address, given as a 64-bit integer)"
                )
            handled.append(value)
        return tuple(handled)

    def _check_cooperative(self, griddim: tuple[int, ...], blockdim: tuple[int, ...], sharedmem: int) -> None:
        blocks = griddim[0] * griddim[1] * griddim[2]
        most = self.max_cooperative_grid_blocks(blockdim, sharedmem)
        if blocks > most:
            raise ValueError(
                f"kernel {self.name} synchronizes its grid, so all its blocks must be resident at once: "
                f"it was launched with {blocks} blocks, but at most {most} blocks of {_threads(blockdim)} "
                f"threads ({sharedmem} bytes of dynamic shared memory) fit on this device "
                "(see max_cooperative_grid_blocks)"
            )

    def _report_device_exception(self, stream: int) -> None:
        """Debug mode: wait for the kernel, and raise what a thread raised (then clear it)."""
        cu = drv.driver()
        drv.check("cuStreamSynchronize", cu.cuStreamSynchronize(stream))
        pointer, size = drv.check(
            "cuModuleGetGlobal",
            cu.cuModuleGetGlobal(self._module, self._exception_global.encode()),  # type: ignore[union-attr]
        )
        record = (ctypes.c_int64 * 2)()
        drv.check("cuMemcpyDtoH", cu.cuMemcpyDtoH(ctypes.addressof(record), pointer, 16))
        code, thread = record[0], record[1]
        if code:
            drv.check("cuMemsetD8", cu.cuMemsetD8(pointer, 0, 16))
            raise self._raise_sites[code - 1].exception(thread)


class SharedMemoryLimits:
    """The kernel's static shared memory and the dynamic shared memory it may be launched with.

    Above 48 KiB a kernel must opt in to more dynamic shared memory (up to the device's
    opt-in maximum) before it is launched with it; the opt-in is done once, when asked for."""

    static: int  # bytes of static shared memory
    dynamic_allowed: int  # the dynamic shared bytes it may be launched with now
    device_limit: int  # the device's opt-in maximum of shared bytes per block

    def __init__(self, context: drv.Context, function: Any) -> None:
        cu = drv.driver()
        attr = cu.CUfunction_attribute
        self._function = function
        self.static = drv.check(
            "cuFuncGetAttribute", cu.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)
        )
        self.dynamic_allowed = drv.check(
            "cuFuncGetAttribute", cu.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function)
        )
        self.device_limit = context.attribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        )

    def allow_dynamic(self, nbytes: int) -> None:
        if self.static + nbytes > self.device_limit:
            raise ValueError(
                f"the kernel uses {self.static} bytes of static shared memory and was launched with {nbytes} bytes "
                f"of dynamic shared memory: {self.static + nbytes} bytes in all, more than the "
                f"{self.device_limit} bytes per block this device allows"
            )
        cu = drv.driver()
        attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        drv.check("cuFuncSetAttribute", cu.cuFuncSetAttribute(self._function, attr, nbytes))
        self.dynamic_allowed = nbytes


def _threads(blockdim: int | Sequence[int]) -> int:
    if isinstance(blockdim, int):
        return blockdim
    threads = 1
    for extent in blockdim:
        threads *= extent
    return threads


def _blocks(cluster: tuple[int, ...]) -> int:
    return cluster[0] * cluster[1] * cluster[2]


def _extended_launch(config: LaunchConfiguration, sharedmem: int) -> Any:
    """The CUlaunchConfig of cuLaunchKernelEx: the cluster shape, programmatic stream
    serialization (pdl=True), or both, as its attributes."""
    cu = drv.driver()
    attributes = []
    if config.cluster is not None:
        attribute = cu.CUlaunchAttribute()
        attribute.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        dims = attribute.value.clusterDim
        dims.x, dims.y, dims.z = config.cluster
        attributes.append(attribute)
    if config.pdl:
        attribute = cu.CUlaunchAttribute()
        attribute.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attribute.value.programmaticStreamSerializationAllowed = 1
        attributes.append(attribute)
    launch = cu.CUlaunchConfig()
    launch.gridDimX, launch.gridDimY, launch.gridDimZ = config.griddim
    launch.blockDimX, launch.blockDimY, launch.blockDimZ = config.blockdim
    launch.sharedMemBytes = sharedmem
    launch.hStream = cu.CUstream(config.stream)
    launch.attrs = attributes
    launch.numAttrs = len(attributes)
    return launch
