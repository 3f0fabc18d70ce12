"""The CUDA driver (loaded on first use, errors turned into CudaDriverError), the devices,
and their primary contexts: the one current on a thread is where kernels run."""

from __future__ import annotations

import collections
import os
import threading
from collections.abc import Callable
from typing import Any

from .. import simulation
from ..lazy import lazy, loaded

driver_bindings = lazy("cuda.bindings.driver")  # loaded by the first call that needs the driver

_lock = threading.RLock()  # current_context() initialises the driver while holding it
_driver: Any = None
# the EMM plugin class contexts made from now on allocate with (None: cumlir's own
# allocations, or the one NUMBA_CUDA_MEMORY_MANAGER names), and the module that makes and
# resets their instances (runtime/memory_managers.py, which sets it when it loads)
memory_plugin: Any = None
memory_hooks: Any = None
# what must happen before a device's primary context is reset, given the Context: its memory
# manager told (memory_managers.py), its modules' teardown callbacks called (module_callbacks.py)
reset_hooks: list[Callable[[Context], None]] = []


MEMORY_MANAGER_VARIABLES = ("CUMLIR_MEMORY_MANAGER", "NUMBA_CUDA_MEMORY_MANAGER")


def _named_memory_plugin() -> str | None:
    """The module the environment names as the memory manager, or None ("default")."""
    named = next((os.environ[name] for name in MEMORY_MANAGER_VARIABLES if os.environ.get(name)), "default")
    return None if named == "default" else named


def set_memory_plugin(plugin: Any) -> None:
    """The EMM plugin class of contexts made from now on (memory_managers.set_memory_manager)."""
    global memory_plugin
    memory_plugin = plugin


class CudaDriverError(RuntimeError):
    """A CUDA driver call failed; ``code`` is the CUresult, ``call`` the driver function."""

    def __init__(self, call: str, code: int, message: str) -> None:
        self.code = code
        self.call = call
        super().__init__(f"{call} failed: {message} ({code})")

    def doing(self, what: str) -> None:
        """Put what cumlir was doing (*what*: "launching kernel f") before the message; the
        callers it passes through each add theirs, the outermost first."""
        self.args = (f"{what}: {self.args[0]}",)


class CudaSupportError(RuntimeError):
    """No usable CUDA GPU or driver on this machine."""


def driver() -> Any:
    """The ``cuda.bindings.driver`` module, with cuInit done."""
    global _driver
    if _driver is None:
        with _lock:
            if _driver is None and simulation.requested():  # docs/simulator.md
                from .simulator import driver as simulated  # the driver in host memory, loaded only then

                _driver = simulated
            if _driver is None:
                cu = loaded(driver_bindings)
                try:
                    (err,) = cu.cuInit(0)
                except RuntimeError as e:  # libcuda.so is missing
                    raise CudaSupportError(f"the CUDA driver could not be loaded: {e}") from e
                if err != cu.CUresult.CUDA_SUCCESS:
                    raise CudaSupportError(f"the CUDA driver failed to initialise: {_describe(cu, err)}")
                _driver = cu
    return _driver


def initialised() -> bool:
    """Whether the driver is loaded and cuInit done (without doing it)."""
    return _driver is not None


def _describe(cu: Any, err: Any) -> str:
    e, name = cu.cuGetErrorName(err)
    e2, text = cu.cuGetErrorString(err)
    name = name.decode() if e == cu.CUresult.CUDA_SUCCESS and name else str(err)
    text = text.decode() if e2 == cu.CUresult.CUDA_SUCCESS and text else ""
    return f"{name}: {text}" if text else name


# Errors a kernel leaves in its context (a trap, a bad address): reported by whatever call
# comes next, so functions here may add what is known of the kernels that ran (error_hints)
KERNEL_FAULTS = frozenset((700, 710, 715, 719))  # illegal address, assert, illegal instruction, launch failed
error_hints: list[Callable[[int], str | None]] = []  # functions of a CUresult code giving a sentence, or None
# such an error is sticky: every later call in the context fails with it until it is reset
_STICKY = (
    "the context cannot run more work (the error is sticky): cuda.close() resets the device, "
    "losing its device arrays and loaded kernels, and work can go on"
)


def check(call: str, result: tuple[Any, ...]) -> Any:
    """Unpack a cuda.bindings result tuple, raising CudaDriverError if it holds an error."""
    cu = _driver
    err = result[0]
    if err != cu.CUresult.CUDA_SUCCESS:
        message = _describe(cu, err)
        if int(err) in KERNEL_FAULTS:
            message += "".join(f"; {hint}" for hint in (h(int(err)) for h in error_hints) if hint)
            message += f"; {_STICKY}"
        raise CudaDriverError(call, int(err), message)
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def is_available() -> bool:
    """Whether a CUDA GPU can be used (never raises)."""
    try:
        cu = driver()
        return check("cuDeviceGetCount", cu.cuDeviceGetCount()) > 0
    except (CudaSupportError, CudaDriverError):
        return False


class Device:
    """One CUDA device: ``id``, ``name``, ``compute_capability``, ``uuid``, and every
    CU_DEVICE_ATTRIBUTE_X of the driver as the attribute ``X`` (``MULTIPROCESSOR_COUNT``,
    ``MAX_THREADS_PER_BLOCK``, ``WARP_SIZE`` ...), read on first use."""

    def __init__(self, ordinal: int) -> None:
        cu = driver()
        self.id = ordinal
        self.handle = check("cuDeviceGet", cu.cuDeviceGet(ordinal))
        self.name = check("cuDeviceGetName", cu.cuDeviceGetName(256, self.handle)).split(b"\0")[0].decode()
        attr = cu.CUdevice_attribute
        self.compute_capability = (
            self.attribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            self.attribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        )
        raw = bytes(check("cuDeviceGetUuid", cu.cuDeviceGetUuid(self.handle)).bytes).hex()
        self.uuid = f"GPU-{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:32]}"

    def attribute(self, attr: Any) -> int:
        """The value of a ``CUdevice_attribute`` for this device."""
        return check("cuDeviceGetAttribute", driver().cuDeviceGetAttribute(attr, self.handle))

    def __getattr__(self, name: str) -> Any:
        code = (
            None if name.startswith("_") else getattr(driver().CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}", None)
        )
        if code is None:
            raise AttributeError(
                f"a CUDA device has no attribute {name!r} (nor is CU_DEVICE_ATTRIBUTE_{name} a device attribute)"
            )
        value = self.attribute(code)
        setattr(self, name, value)  # attributes do not change: later reads are plain reads
        return value

    def get_device_identity(self) -> dict[str, int]:
        """The PCI domain, bus and device ids, which name the device across processes."""
        return {"pci_domain_id": self.PCI_DOMAIN_ID, "pci_bus_id": self.PCI_BUS_ID, "pci_device_id": self.PCI_DEVICE_ID}

    def get_primary_context(self) -> Context:
        """The primary context of this device (retained, not made current)."""
        return context_for(self.id)

    def reset(self) -> None:
        """Release and reset the primary context: all its memory, modules and streams are gone."""
        context = _contexts.get(self.id)
        if context is not None:
            for hook in list(reset_hooks):
                hook(context)
        with _lock:
            _resets[self.id] = _resets.get(self.id, 0) + 1
        forget_context(self.id)
        check("cuDevicePrimaryCtxReset", driver().cuDevicePrimaryCtxReset(self.handle))

    @property
    def supports_float16(self) -> bool:
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self) -> bool:
        return self.compute_capability >= (8, 0)

    @property
    def supports_fp8(self) -> bool:
        return self.compute_capability >= (8, 9)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<CUDA device {self.id} '{self.name}'>"


# (free, total) bytes of a device's memory, as Numba-CUDA's namedtuple
MemoryInfo = collections.namedtuple("MemoryInfo", "free, total")


class Context:
    """The primary context of one device, made current for this thread when used."""

    def __init__(self, ordinal: int) -> None:
        cu = driver()
        self.ordinal = ordinal
        self.device = device(ordinal)
        self.handle = check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(self.device.handle))
        # what a fast launch compares the current context with; None once released, so
        # that launches prepared in it go the general way (runtime/fastpack.py)
        self.launch_handle = self.handle
        self.compute_capability = self.device.compute_capability
        self.name = self.device.name
        self.max_threads_per_block = self.device.MAX_THREADS_PER_BLOCK
        self.max_block_dims = tuple(getattr(self.device, f"MAX_BLOCK_DIM_{a}") for a in "XYZ")
        self.max_grid_dims = tuple(getattr(self.device, f"MAX_GRID_DIM_{a}") for a in "XYZ")
        # bound for the context's life, as Numba-CUDA's: the class set_memory_manager gave, or
        # the module NUMBA_CUDA_MEMORY_MANAGER names (imported by memory_managers), or None
        self.memory_plugin = memory_plugin if memory_plugin is not None else _named_memory_plugin()
        self.memory_manager_instance: Any = None  # made on first use (memory_managers.manager)

    def __repr__(self) -> str:
        return f"<cumlir context of CUDA device {self.ordinal} '{self.name}'>"

    def attribute(self, attr: Any) -> int:
        return self.device.attribute(attr)

    def get_memory_info(self) -> MemoryInfo:
        """(free, total) bytes of the device's memory, a MemoryInfo (the memory manager's
        answer where a plugin is set)."""
        self.push()
        plugin = memory_hooks.external(self) if memory_hooks is not None else None
        if plugin is not None:
            return plugin.get_memory_info()
        return MemoryInfo(*check("cuMemGetInfo", driver().cuMemGetInfo()))

    # Numba-CUDA's allocation methods of a context, served by its memory manager
    @property
    def memory_manager(self) -> Any:
        """The EMM plugin instance that allocates this context's memory."""
        self.push()
        return memory_hooks.manager(self)

    @property
    def deallocations(self) -> Any:
        """The frees held back by ``defer_cleanup()``: ``len()``, ``clear()``, ``disable()``."""
        return self.memory_manager.deallocations

    def memalloc(self, size: int) -> Any:
        return self.memory_manager.memalloc(size)

    def memhostalloc(self, size: int, mapped: bool = False, portable: bool = False, wc: bool = False) -> Any:
        return self.memory_manager.memhostalloc(size, mapped, portable, wc)

    def mempin(self, owner: object, pointer: int, size: int, mapped: bool = False) -> Any:
        return self.memory_manager.mempin(owner, pointer, size, mapped)

    def memallocmanaged(self, size: int, attach_global: bool = True) -> Any:
        return self.memory_manager.memallocmanaged(size, attach_global)

    def get_ipc_handle(self, memory: Any) -> Any:
        return self.memory_manager.get_ipc_handle(memory)

    def defer_cleanup(self) -> Any:
        return self.memory_manager.defer_cleanup()

    def synchronize(self) -> None:
        """Wait for all work queued in this context to finish."""
        self.push()
        check("cuCtxSynchronize", driver().cuCtxSynchronize())

    def push(self) -> None:
        """Make this context current on the calling thread (if another is not)."""
        cu = _driver
        current = check("cuCtxGetCurrent", cu.cuCtxGetCurrent())
        if int(current) != int(self.handle):
            check("cuCtxSetCurrent", cu.cuCtxSetCurrent(self.handle))


_devices: dict[int, Device] = {}  # ordinal -> Device
_contexts: dict[int, Context] = {}  # device ordinal -> its primary Context
_by_handle: dict[int, Context] = {}  # int(CUcontext) -> Context
# how many times each device's primary context was reset (close()): what was made in it
# before went with it, and is not freed again (its handle or address may name something new)
_resets: dict[int, int] = {}


def lifetime(ordinal: int | None = None) -> tuple[int, int]:
    """Which context the primary context of device *ordinal* (else the current context) is:
    the device, and how many resets it has had."""
    if ordinal is None:
        ordinal = current_context().ordinal
    return ordinal, _resets.get(ordinal, 0)


def alive(made_in: tuple[int, int]) -> bool:
    """Whether the context of *made_in* (a ``lifetime()``) has not been reset since."""
    return _resets.get(made_in[0], 0) == made_in[1]


def device_count() -> int:
    return check("cuDeviceGetCount", driver().cuDeviceGetCount())


def device(ordinal: int) -> Device:
    """The Device numbered *ordinal* (one object per device)."""
    found = _devices.get(ordinal)
    if found is None:
        count = device_count()
        if count == 0:
            raise CudaSupportError("no CUDA GPU was found")
        if not isinstance(ordinal, int) or not 0 <= ordinal < count:
            raise ValueError(f"there is no CUDA device {ordinal!r}: this machine has {count} (0 to {count - 1})")
        found = _devices.setdefault(ordinal, Device(ordinal))
    return found


def context_for(ordinal: int) -> Context:
    """The primary context of device *ordinal* (retained on first use, not made current)."""
    context = _contexts.get(ordinal)
    if context is None:
        with _lock:
            context = _contexts.get(ordinal)
            if context is None:
                device(ordinal)  # checks the ordinal
                context = Context(ordinal)
                _contexts[ordinal] = context
                _by_handle[int(context.handle)] = context
    return context


def ordinal_of_context(handle: int) -> int | None:
    """The device whose primary context is *handle* (an int), or None: another context."""
    context = _by_handle.get(handle)
    if context is None:
        for ordinal in range(device_count()):  # retained by whoever made the memory anyway
            if int(context_for(ordinal).handle) == handle:
                return ordinal
        return None
    return context.ordinal


def forget_context(ordinal: int) -> None:
    """Release the primary context of device *ordinal*, if cumlir retained it."""
    with _lock:
        context = _contexts.pop(ordinal, None)
        if context is not None:
            context.launch_handle = None
            _by_handle.pop(int(context.handle), None)
            check("cuDevicePrimaryCtxRelease", _driver.cuDevicePrimaryCtxRelease(context.device.handle))


def current_context() -> Context:
    """The context kernels run in: the primary context current on this thread (the device
    chosen with ``select_device`` or ``with gpus[i]``), else device 0's, made current."""
    cu = driver()
    current = int(check("cuCtxGetCurrent", cu.cuCtxGetCurrent()))
    context = _by_handle.get(current)
    if context is not None:
        return context
    if not current:
        context = context_for(0)
        context.push()
        return context
    # a context another library made current: usable if it is a device's primary context
    context = context_for(int(check("cuCtxGetDevice", cu.cuCtxGetDevice())))
    if int(context.handle) != current:
        raise RuntimeError(
            f"the CUDA context {current:#x} current on this thread is not a device's primary context; "
            "cumlir runs kernels in primary contexts only"
        )
    return context


def current_compute_capability(what: str) -> tuple[int, int]:
    """The compute capability of the current context's device, for *what* (a call given no
    ``cc=``); where there is no GPU, a CudaSupportError whose first line says to pass one."""
    try:
        return current_context().compute_capability
    except CudaSupportError as e:
        raise CudaSupportError(
            f"{what}: no cc= was given and there is no GPU to take one from: pass cc=(major, minor), "
            f"e.g. cc=(9, 0)\n({e})"
        ) from None


def select_device(ordinal: int) -> Device:
    """Make device *ordinal*'s primary context current on this thread; its Device."""
    if not isinstance(ordinal, int) or isinstance(ordinal, bool):
        raise TypeError(f"a device id is an int, not {ordinal!r}")
    context = context_for(ordinal)
    context.push()
    return context.device


def push_context(ordinal: int) -> Context:
    """Push device *ordinal*'s primary context on this thread's stack (``with gpus[i]:``)."""
    context = context_for(ordinal)
    check("cuCtxPushCurrent", driver().cuCtxPushCurrent(context.handle))
    return context


def pop_context() -> None:
    check("cuCtxPopCurrent", driver().cuCtxPopCurrent())


def close() -> None:
    """Pop every context from this thread; in the main thread also release and reset the
    primary contexts cumlir used (freeing everything allocated in them)."""
    cu = driver()
    while int(check("cuCtxGetCurrent", cu.cuCtxGetCurrent())):
        check("cuCtxPopCurrent", cu.cuCtxPopCurrent())
    if threading.current_thread() is threading.main_thread():
        for ordinal in list(_contexts):
            device(ordinal).reset()


def synchronize() -> None:
    """Wait for all work on the current device to finish."""
    current_context()
    check("cuCtxSynchronize", _driver.cuCtxSynchronize())
