"""Numba-CUDA's External Memory Management (EMM) plugin interface: a class, given to
``cuda.set_memory_manager`` or named by ``NUMBA_CUDA_MEMORY_MANAGER`` (a module whose
``_numba_memory_manager`` it is), whose instance, one per context, makes every device
allocation of that context (device arrays, ufunc outputs, the copies of NumPy arguments)
and its pinned and mapped host memory. RMM's ``RMMNumbaManager`` is one. Without a plugin
cumlir calls the driver itself, as before (docs/memory.md, "Memory managers")."""

from __future__ import annotations

import abc
import contextlib
import importlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

from . import driver as drv
from . import ipc
from .cleanup import defer_cleanup as _defer_cleanup
from .cleanup import deferring, flush, pending, release
from .memory_pointers import ManagedMemory, MappedMemory, MemoryPointer, PinnedMemory, device_address, host_address

INTERFACE_VERSION = 1  # of the plugin interface this module implements
ENVIRONMENT = drv.MEMORY_MANAGER_VARIABLES

_lock = threading.Lock()  # making a context's plugin instance


class BaseCUDAMemoryManager(abc.ABC):
    """What an EMM plugin implements. cumlir makes one instance per context, passing it
    as the keyword argument ``context`` (None for the probe ``set_memory_manager`` makes
    to read ``interface_version``), and calls ``initialize()`` before its first use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "context" not in kwargs:
            raise RuntimeError("a memory manager is made for a context: pass context=")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size: int) -> Any:
        """*size* bytes of device memory in the current context: a ``MemoryPointer``."""

    @abc.abstractmethod
    def memhostalloc(self, size: int, mapped: bool, portable: bool, wc: bool) -> Any:
        """*size* bytes of page-locked host memory: a ``MappedMemory`` if *mapped* (given
        a device address), else a ``PinnedMemory``."""

    @abc.abstractmethod
    def mempin(self, owner: object, pointer: int, size: int, mapped: bool) -> Any:
        """Page-lock the *size* bytes of host memory at *pointer* that *owner* holds."""

    @abc.abstractmethod
    def initialize(self) -> None:
        """Prepare for allocations in the current context (may be called more than once)."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory: Any) -> Any:
        """An IPC handle for the device memory *memory*."""

    @abc.abstractmethod
    def get_memory_info(self) -> drv.MemoryInfo:
        """(free, total) bytes, or NotImplementedError where the library cannot tell."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Free everything allocated in the context (also called before ``initialize``)."""

    @abc.abstractmethod
    def defer_cleanup(self) -> contextlib.AbstractContextManager[Any]:
        """A context manager that holds back expensive frees while it is open."""

    @property
    @abc.abstractmethod
    def interface_version(self) -> int:
        """The plugin interface version the plugin implements: 1."""


class Deallocations:
    """The frees waiting for a ``defer_cleanup()`` block to end (Numba-CUDA's
    ``context.deallocations``): ``len()``, ``clear()``, ``disable()``, ``is_disabled``."""

    def __len__(self) -> int:
        return pending()

    def clear(self) -> None:
        """Free what waits, unless freeing is deferred."""
        flush()

    def disable(self) -> contextlib.AbstractContextManager[None]:
        """Hold back frees while the block runs (``cuda.defer_cleanup()``)."""
        return _defer_cleanup()

    @property
    def is_disabled(self) -> bool:
        return deferring()

    def add_item(self, dtor: Any, handle: object, size: int = 0) -> None:
        """Call ``dtor(handle)`` now, or when freeing is no longer deferred."""
        release(dtor, handle)


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """A base for plugins that allocate device memory only: it page-locks host memory
    itself through the driver. A subclass that overrides ``reset`` or ``defer_cleanup``
    calls this class's too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.allocations: dict[int, Any] = {}
        self.deallocations = Deallocations()

    def memhostalloc(self, size: int, mapped: bool = False, portable: bool = False, wc: bool = False) -> Any:
        cu = drv.driver()
        flags = (
            (cu.CU_MEMHOSTALLOC_DEVICEMAP if mapped else 0)
            | (cu.CU_MEMHOSTALLOC_PORTABLE if portable else 0)
            | (cu.CU_MEMHOSTALLOC_WRITECOMBINED if wc else 0)
        )
        pointer = int(drv.check("cuMemHostAlloc", cu.cuMemHostAlloc(max(size, 1), flags)))
        made_in = drv.lifetime()

        def free() -> None:
            release("cuMemFreeHost", pointer, made_in)

        kind = MappedMemory if mapped else PinnedMemory
        return kind(self.context, pointer, size, finalizer=free)

    def mempin(self, owner: object, pointer: int, size: int, mapped: bool = False) -> Any:
        cu = drv.driver()
        flags = cu.CU_MEMHOSTREGISTER_DEVICEMAP if mapped else 0
        drv.check("cuMemHostRegister", cu.cuMemHostRegister(pointer, size, flags))
        made_in = drv.lifetime()

        def unpin() -> None:
            release("cuMemHostUnregister", pointer, made_in)

        kind = MappedMemory if mapped else PinnedMemory
        return kind(self.context, pointer, size, owner=owner, finalizer=unpin)

    def memallocmanaged(self, size: int, attach_global: bool = True) -> Any:
        cu = drv.driver()
        attach = cu.CUmemAttach_flags
        flag = attach.CU_MEM_ATTACH_GLOBAL if attach_global else attach.CU_MEM_ATTACH_HOST
        pointer = int(drv.check("cuMemAllocManaged", cu.cuMemAllocManaged(max(size, 1), int(flag))))
        made_in = drv.lifetime()

        def free() -> None:
            release("cuMemFree", pointer, made_in)

        return ManagedMemory(self.context, pointer, size, finalizer=free)

    def reset(self) -> None:
        self.allocations.clear()
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self) -> Iterator[None]:
        with self.deallocations.disable():
            yield


class GetIpcHandleMixin:
    """``get_ipc_handle`` for memory the driver can find the allocation of (the base and
    the offset from ``cuMemGetAddressRange``), as with pools carved from ``cuMemAlloc``."""

    def get_ipc_handle(self, memory: Any) -> ipc.IpcMemoryHandle:
        return ipc.export(device_address(memory), memory)


class DriverMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """cumlir's own allocations, through the driver, as a plugin: what a context's
    ``memory_manager`` is when no plugin is set."""

    def initialize(self) -> None:
        pass

    def memalloc(self, size: int) -> MemoryPointer:
        pointer = int(drv.check("cuMemAlloc", drv.driver().cuMemAlloc(size))) if size else 0
        made_in = drv.lifetime()

        def free() -> None:
            if pointer:
                release("cuMemFree", pointer, made_in)

        return MemoryPointer(self.context, pointer, size, finalizer=free)

    def get_memory_info(self) -> drv.MemoryInfo:
        return drv.MemoryInfo(*drv.check("cuMemGetInfo", drv.driver().cuMemGetInfo()))

    @property
    def interface_version(self) -> int:
        return INTERFACE_VERSION


def _checked(plugin: Any) -> Any:
    if not isinstance(plugin, type):
        raise TypeError(
            f"set_memory_manager takes a memory manager class (a subclass of cuda.BaseCUDAMemoryManager), "
            f"not {type(plugin).__name__}"
        )
    version = plugin(context=None).interface_version
    if version != INTERFACE_VERSION:
        raise RuntimeError(
            f"the memory manager {plugin.__qualname__} implements version {version} of the EMM plugin "
            f"interface; cumlir implements version {INTERFACE_VERSION}"
        )
    return plugin


def set_memory_manager(plugin: type) -> None:
    """Make *plugin* (a ``BaseCUDAMemoryManager`` subclass, or Numba-CUDA's, such as RMM's
    ``RMMNumbaManager``) allocate the memory of every context made from now on; contexts
    already made keep theirs until ``cuda.close()``."""
    drv.set_memory_plugin(_checked(plugin))


def _from_environment(module_name: str) -> type:
    try:
        plugin = importlib.import_module(module_name)._numba_memory_manager
    except Exception as e:
        raise RuntimeError(
            f"the memory manager named by {'/'.join(ENVIRONMENT)} could not be loaded from the module "
            f"{module_name!r} (its _numba_memory_manager): {type(e).__name__}: {e}"
        ) from e
    return _checked(plugin)


def _plugin_class(context: drv.Context) -> type:
    plugin = context.memory_plugin
    if plugin is None:
        return DriverMemoryManager
    return _from_environment(plugin) if isinstance(plugin, str) else plugin


def manager(context: drv.Context) -> Any:
    """The memory manager of *context*, made and initialised on first use."""
    found = context.memory_manager_instance
    if found is None:
        with _lock:
            found = context.memory_manager_instance
            if found is None:
                found = _plugin_class(context)(context=context)
                context.push()
                found.initialize()
                context.memory_manager_instance = found
    return found


def external(context: drv.Context) -> Any:
    """The plugin instance of *context* if a plugin other than cumlir's own allocates there,
    else None (cumlir then calls the driver directly, on its fast path)."""
    if context.memory_plugin is None:
        return None
    found = manager(context)
    return None if type(found) is DriverMemoryManager else found


def device_allocation(context: drv.Context, nbytes: int) -> tuple[int, Any]:
    """*nbytes* of device memory from *context*'s plugin: (its address, the object that
    owns it, to be kept while the memory is used and dropped after)."""
    memory = manager(context).memalloc(nbytes)
    return device_address(memory), memory


def host_allocation(plugin: Any, nbytes: int, mapped: bool, portable: bool, wc: bool) -> tuple[int, int | None, Any]:
    """Page-locked host memory from *plugin*: (its host address, its device address if
    *mapped*, the object that owns it)."""
    memory = plugin.memhostalloc(nbytes, mapped=mapped, portable=portable, wc=wc)
    return host_address(memory), device_address(memory) if mapped else None, memory


@contextlib.contextmanager
def defer_cleanup() -> Iterator[None]:
    """cumlir's frees held back while the block runs, and the current context's memory
    manager's too where a plugin is set."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(_defer_cleanup())
        if drv.initialised():
            plugin = external(drv.current_context())
            if plugin is not None:
                stack.enter_context(plugin.defer_cleanup())
        yield


def reset(context: drv.Context) -> None:
    """Tell *context*'s plugin, if one was made, that everything it allocated is freed."""
    found = context.memory_manager_instance
    if found is not None:
        found.reset()


drv.memory_hooks = sys.modules[__name__]  # what Context.memory_manager calls
drv.reset_hooks.append(reset)  # a reset frees what the context's plugin allocated
