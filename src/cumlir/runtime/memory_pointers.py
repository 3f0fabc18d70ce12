"""The memory objects of Numba-CUDA's External Memory Management (EMM) plugin interface:
what a plugin's ``memalloc``, ``memhostalloc`` and ``mempin`` return. A plugin builds them
over memory its library allocated, with a finalizer that gives the memory back; cumlir
keeps the object alive as long as an array uses the memory and drops it afterwards, when
the finalizer runs (docs/memory.md, "Memory managers")."""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable
from typing import Any

from . import driver as drv


def address_of(pointer: Any) -> int:
    """An address given as an int, a ``ctypes.c_void_p``, a ``CUdeviceptr`` or anything
    else ``int()`` reads (0 for NULL)."""
    if isinstance(pointer, ctypes.c_void_p):
        return pointer.value or 0
    return int(pointer) if pointer is not None else 0


class MemoryPointer:
    """Device memory of *size* bytes at *pointer* in *context*, owned by this object: the
    *finalizer* (a function of no arguments) runs when the object is collected or
    ``free()``'d, never twice."""

    __cuda_memory__ = True

    def __init__(
        self,
        context: Any,
        pointer: Any,
        size: int,
        owner: object = None,
        finalizer: Callable[[], object] | None = None,
    ) -> None:
        self.context = context
        self.device_pointer = address_of(pointer)
        self.handle = self.device_pointer
        self.size = size
        self._cuda_memsize_ = size
        self._owner = owner
        self.is_managed = finalizer is not None
        self.refct = 1
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    @property
    def owner(self) -> object:
        return self if self._owner is None else self._owner

    def own(self) -> MemoryPointer:
        # a reference is a Python reference: the memory lives as long as this object
        return self

    def free(self) -> None:
        """Give the memory back now (through the finalizer)."""
        if self._finalizer is not None:
            if not self._finalizer.alive:
                raise RuntimeError("this memory was already freed")
            self._finalizer()

    @property
    def device_pointer_value(self) -> int | None:
        return self.device_pointer or None

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self.device_pointer)

    def memset(self, byte: int, count: int | None = None, stream: Any = 0) -> None:
        """Set *count* bytes (all by default) to *byte*, on *stream* or synchronously."""
        count = self.size if count is None else count
        if not count:
            return
        cu = drv.driver()
        handle = int(getattr(stream, "handle", stream) or 0)
        if handle:
            drv.check("cuMemsetD8Async", cu.cuMemsetD8Async(self.device_pointer, byte, count, handle))
        else:
            drv.check("cuMemsetD8", cu.cuMemsetD8(self.device_pointer, byte, count))

    def view(self, start: int, stop: int | None = None) -> MemoryPointer:
        """The bytes [start, stop) of this memory, keeping it alive."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise ValueError(f"the view [{start}, {stop}) is outside the {self.size} bytes of this memory")
        if not self.device_pointer and stop > start:
            raise RuntimeError("a non-empty view of empty memory")
        return MemoryPointer(self.context, self.device_pointer + start, stop - start, owner=self.owner)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.size} bytes at {self.device_pointer:#x}>"


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer freed when the last reference to it goes (Numba-CUDA's name; every
    cumlir memory object behaves so)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refct -= 1


class MappedMemory(AutoFreePointer):
    """Page-locked host memory at *pointer* mapped into the device's address space:
    ``host_pointer`` is its host address, ``device_pointer`` its device address."""

    def __init__(
        self,
        context: Any,
        pointer: Any,
        size: int,
        owner: object = None,
        finalizer: Callable[[], object] | None = None,
    ) -> None:
        host = address_of(pointer)
        device = drv.check("cuMemHostGetDevicePointer", drv.driver().cuMemHostGetDevicePointer(host, 0))
        super().__init__(context, device, size, finalizer=finalizer)
        self.owned = owner
        self.host_pointer = host
        self.handle = host


class PinnedMemory:
    """Page-locked host memory at *pointer*, not mapped into the device (``host_pointer``);
    *owner* is the object whose memory was pinned (``mempin``), if any."""

    def __init__(
        self,
        context: Any,
        pointer: Any,
        size: int,
        owner: object = None,
        finalizer: Callable[[], object] | None = None,
    ) -> None:
        self.context = context
        self.owned = owner
        self.size = size
        self.host_pointer = address_of(pointer)
        self.handle = self.host_pointer
        self.is_managed = finalizer is not None
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    def own(self) -> PinnedMemory:
        return self


class ManagedMemory(AutoFreePointer):
    """Managed (unified) memory: one address for the host and the device."""

    def __init__(
        self,
        context: Any,
        pointer: Any,
        size: int,
        owner: object = None,
        finalizer: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(context, pointer, size, finalizer=finalizer)
        self.owned = owner
        self.host_pointer = self.device_pointer


def device_address(memory: Any) -> int:
    """The device address of what a plugin's ``memalloc`` returned: cumlir's or Numba-CUDA's
    memory objects, or any object with ``device_pointer`` or ``handle``."""
    for name in ("device_pointer", "handle"):
        value = getattr(memory, name, None)
        if value is not None:
            return address_of(value)
    raise TypeError(
        f"a memory manager's memalloc returned {type(memory).__name__}, which has neither device_pointer "
        "nor handle: return a cuda.MemoryPointer"
    )


def host_address(memory: Any) -> int:
    """The host address of what a plugin's ``memhostalloc`` or ``mempin`` returned."""
    for name in ("host_pointer", "handle"):
        value = getattr(memory, name, None)
        if value is not None:
            return address_of(value)
    raise TypeError(
        f"a memory manager returned {type(memory).__name__} for host memory, which has neither host_pointer "
        "nor handle: return a cuda.PinnedMemory or cuda.MappedMemory"
    )
