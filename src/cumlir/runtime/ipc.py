"""CUDA IPC: device memory of one process opened in another on the same machine, with
cuIpcGetMemHandle / cuIpcOpenMemHandle. Handles pickle as their 64 bytes, so they travel
through multiprocessing queues and pipes. (Arrays over the memory: devicearray.py's
``IpcHandle``, ``get_ipc_handle`` and ``open_ipc_array``.)"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from . import driver as drv

HANDLE_SIZE = 64  # bytes in a CUipcMemHandle

if TYPE_CHECKING:
    _Handle = TypeVar("_Handle", bound="IpcMemoryHandle")


def _handle_bytes(handle: bytes | bytearray | Iterable[int]) -> bytes:
    data = bytes(handle)  # bytes, bytearray, or a sequence of ints in 0..255
    if len(data) != HANDLE_SIZE:
        raise ValueError(f"a CUDA IPC memory handle is {HANDLE_SIZE} bytes, got {len(data)}")
    return data


class IpcMemoryHandle:
    """An IPC handle to a device allocation: *handle* (its bytes), the allocation's *size*,
    the exporting device's PCI identity *source_info*, and the *offset* of the shared
    memory in the allocation. *base* keeps the exporter's memory alive in its process."""

    def __init__(
        self,
        base: object,
        handle: bytes | bytearray | Iterable[int],
        size: int,
        source_info: dict[str, int] | None = None,
        offset: int = 0,
    ) -> None:
        self.base = base
        self.handle = _handle_bytes(handle)
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened: int | None = None  # the mapped allocation's address while open

    def __repr__(self) -> str:
        return f"<IpcHandle of {self.size} bytes at offset {self.offset}>"

    def __reduce__(self) -> tuple[type[IpcMemoryHandle], tuple[Any, ...]]:
        return type(self), (None, self.handle, self.size, self.source_info, self.offset)

    def can_access_peer(self, context: drv.Context) -> bool:
        """Whether *context*'s device can use memory of the exporting device."""
        if self.source_info is None or self.source_info == context.device.get_device_identity():
            return True
        cu = drv.driver()
        for ordinal in range(drv.device_count()):
            if drv.device(ordinal).get_device_identity() == self.source_info:
                return bool(
                    drv.check(
                        "cuDeviceCanAccessPeer",
                        cu.cuDeviceCanAccessPeer(context.device.handle, drv.device(ordinal).handle),
                    )
                )
        raise RuntimeError(f"the device {self.source_info} the memory was exported from is not visible in this process")

    def open(self, context: drv.Context | None = None) -> int:
        """Map the memory into *context* (the current one by default); the address of the
        shared memory (the allocation's address plus the offset)."""
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        context = context or drv.current_context()
        context.push()
        if not self.can_access_peer(context):
            raise RuntimeError(
                f"device {context.ordinal} cannot access the memory of the device it was exported from "
                f"({self.source_info}); open the handle on that device"
            )
        cu = drv.driver()
        buffer = ctypes.create_string_buffer(self.handle, HANDLE_SIZE)
        flag = int(cu.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
        pointer = drv.check(
            "cuIpcOpenMemHandle", cu.cuIpcOpenMemHandle(cu.CUipcMemHandle(ctypes.addressof(buffer)), flag)
        )
        self._opened = int(pointer)
        return self._opened + self.offset

    def close(self) -> None:
        """Unmap the memory: arrays opened over it must not be used any more."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        pointer, self._opened = self._opened, None
        drv.check("cuIpcCloseMemHandle", drv.driver().cuIpcCloseMemHandle(pointer))


def export(
    pointer: int,
    owner: object,
    handle_class: type[_Handle] = IpcMemoryHandle,  # type: ignore[assignment]  # mypy: no default for a TypeVar
) -> _Handle:
    """A *handle_class* for the device memory at *pointer* (inside a cuMemAlloc allocation,
    kept alive by *owner*)."""
    context = drv.current_context()
    cu = drv.driver()
    base, size = drv.check("cuMemGetAddressRange", cu.cuMemGetAddressRange(pointer))
    handle = drv.check("cuIpcGetMemHandle", cu.cuIpcGetMemHandle(base))
    data = ctypes.string_at(handle.getPtr(), HANDLE_SIZE)
    return handle_class(owner, data, int(size), context.device.get_device_identity(), pointer - int(base))
