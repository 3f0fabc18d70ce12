"""The device copies of a launch's NumPy arguments: made before the launch (by the
context's memory manager where a plugin is set), copied back to writeable arrays after it,
and freed."""

from __future__ import annotations

import numpy as np

from . import driver as drv
from . import memory_managers, readers
from .implicit_copies import warn_of_the_copy


class HostArrayStaging:
    """Device copies of NumPy arguments for one launch, copied back and freed after it."""

    def __init__(self, stream_handle: int, ordinal: int | None = None) -> None:
        self.stream = stream_handle
        self.ordinal = ordinal  # the launch's device, which array arguments must be on
        # (array, its contiguous copy, device pointer, whether to copy back)
        self._staged: list[tuple[np.ndarray, np.ndarray, int, bool]] = []
        # the memory objects of the copies a memory manager made, dropped (freed) after the launch
        self._plugin_memory: list[object] = []
        self._waited: list[int] = []

    def stage_host_array(
        self, array: np.ndarray, copy_in: bool = True, copy_out: bool = True
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], int]:
        warn_of_the_copy()
        cu = drv.driver()
        source = np.ascontiguousarray(array) if not (array.flags.c_contiguous or array.flags.f_contiguous) else array
        nbytes = source.nbytes
        try:
            pointer = self._allocate(nbytes) if nbytes else 0
            # kept before the copy: a copy that fails leaves it for abandon() to free
            self._staged.append((array, source, pointer, copy_out))
            if nbytes and copy_in:
                drv.check("cuMemcpyHtoD", cu.cuMemcpyHtoD(pointer, source.ctypes.data, nbytes))
        except drv.CudaDriverError as e:
            e.doing(
                f"copying a NumPy array of shape {array.shape} and dtype {array.dtype} ({nbytes} bytes) to the device"
            )
            raise
        return int(pointer), source.shape, source.strides, source.itemsize

    def _allocate(self, nbytes: int) -> int:
        context = drv.current_context()
        if memory_managers.external(context) is None:
            return int(drv.check("cuMemAlloc", drv.driver().cuMemAlloc(nbytes)))
        pointer, memory = memory_managers.device_allocation(context, nbytes)
        self._plugin_memory.append(memory)
        return pointer

    def _free_copies(self) -> None:
        cu = drv.driver()
        if self._plugin_memory:  # a memory manager made them: dropping its objects frees them
            self._plugin_memory = []
        else:
            for _, _, pointer, _ in self._staged:
                if pointer:
                    cu.cuMemFree(pointer)
        self._staged = []

    def wait_for_producer(self, stream: int | None) -> None:
        """CUDA Array Interface v3: work queued on the producer's stream must finish first
        (unless CUMLIR_CUDA_ARRAY_INTERFACE_SYNC or NUMBA_CUDA_ARRAY_INTERFACE_SYNC is 0)."""
        if not readers.SYNC or stream is None or stream == self.stream or (stream == 1 and self.stream == 0):
            return
        if stream in self._waited:  # several arrays of one producer: one wait
            return
        drv.check("cuStreamSynchronize", drv.driver().cuStreamSynchronize(stream))
        self._waited.append(stream)

    def finish(self) -> None:
        """After the launch: wait for the kernel, copy writeable arrays back, free device memory."""
        if not self._staged:
            return
        cu = drv.driver()
        try:
            drv.check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream))
            for array, source, pointer, copy_out in self._staged:
                if pointer and copy_out and array.flags.writeable:
                    drv.check("cuMemcpyDtoH", cu.cuMemcpyDtoH(source.ctypes.data, pointer, source.nbytes))
                    if source is not array:
                        array[...] = source
        except drv.CudaDriverError as e:
            e.doing("copying NumPy arguments back")
            raise
        finally:
            self._free_copies()

    def abandon(self) -> None:
        """Free device copies after a failed launch."""
        self._free_copies()
