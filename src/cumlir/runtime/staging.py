"""Host arrays passed to a launch: copied to the device before it and back after it, as
Numba-CUDA does (runtime/arguments.py packs their device copies' addresses)."""

from __future__ import annotations

import numpy as np

from . import driver as drv
from . import readers


class HostArrayStaging:
    """Device copies of NumPy arguments for one launch, copied back and freed after it."""

    def __init__(self, stream_handle: int, ordinal: int | None = None) -> None:
        self.stream = stream_handle
        self.ordinal = ordinal  # the launch's device, which array arguments must be on
        # (array, its contiguous copy, device pointer, whether to copy back)
        self._staged: list[tuple[np.ndarray, np.ndarray, int, bool]] = []
        self._waited: list[int] = []

    def stage_host_array(
        self, array: np.ndarray, copy_in: bool = True, copy_out: bool = True
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], int]:
        cu = drv.driver()
        source = np.ascontiguousarray(array) if not (array.flags.c_contiguous or array.flags.f_contiguous) else array
        nbytes = source.nbytes
        pointer = drv.check("cuMemAlloc", cu.cuMemAlloc(nbytes)) if nbytes else 0
        if nbytes and copy_in:
            drv.check("cuMemcpyHtoD", cu.cuMemcpyHtoD(pointer, source.ctypes.data, nbytes))
        self._staged.append((array, source, pointer, copy_out))
        return int(pointer), source.shape, source.strides, source.itemsize

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
        finally:
            for _, _, pointer, _ in self._staged:
                if pointer:
                    cu.cuMemFree(pointer)
            self._staged = []

    def abandon(self) -> None:
        """Free device copies after a failed launch."""
        cu = drv.driver()
        for _, _, pointer, _ in self._staged:
            if pointer:
                cu.cuMemFree(pointer)
        self._staged = []
