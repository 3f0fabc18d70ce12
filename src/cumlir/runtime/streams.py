"""CUDA streams: cumlir's own, and the handle of any stream object a launch is given."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import SupportsInt

from . import driver as drv


class Stream:
    """A CUDA stream owned by cumlir (``cuda.stream()``) or wrapping a handle. ``external``,
    as in Numba-CUDA: whether other code made it (``cuda.external_stream``, or the stream a
    ``__cuda_array_interface__`` names)."""

    def __init__(self, handle: SupportsInt, owned: bool = False, external: bool = False) -> None:
        self.handle = int(handle)
        self.external = external
        self._owned = owned
        self._made_in = drv.lifetime() if owned else None  # a reset of its context destroys it

    def synchronize(self) -> None:
        drv.current_context()
        drv.check("cuStreamSynchronize", drv.driver().cuStreamSynchronize(self.handle))

    @contextlib.contextmanager
    def auto_synchronize(self) -> Iterator[Stream]:
        """``with stream.auto_synchronize():`` synchronizes the stream when the block ends."""
        yield self
        self.synchronize()

    def __int__(self) -> int:
        return self.handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)

    def __repr__(self) -> str:
        return f"<cumlir Stream {self.handle:#x}>"

    def __del__(self) -> None:
        if self._owned and drv._driver is not None:
            try:
                if self._made_in is None or not drv.alive(self._made_in):
                    return
                drv._driver.cuStreamDestroy(self.handle)
            except Exception:  # interpreter shutdown
                pass


def stream() -> Stream:
    """A new stream; like Numba's, it synchronises with the legacy default stream."""
    drv.current_context()
    cu = drv.driver()
    handle = drv.check("cuStreamCreate", cu.cuStreamCreate(0))
    return Stream(int(handle), owned=True)


def default_stream() -> Stream:
    """The default stream (handle 0: the legacy default stream, which orders work with all
    blocking streams)."""
    return Stream(0)


def legacy_default_stream() -> Stream:
    """The legacy default stream by its explicit handle, CU_STREAM_LEGACY."""
    return Stream(int(drv.driver().CU_STREAM_LEGACY))


def per_thread_default_stream() -> Stream:
    """This thread's default stream (CU_STREAM_PER_THREAD): it does not order work with
    other threads' streams."""
    return Stream(int(drv.driver().CU_STREAM_PER_THREAD))


def external_stream(handle: int) -> Stream:
    """A Stream over a CUstream made by other code (given as an int); never destroyed here."""
    if not isinstance(handle, int) or isinstance(handle, bool):
        raise TypeError(f"external_stream takes a CUstream handle as an int, not {handle!r}")
    drv.current_context()
    return Stream(handle, external=True)


def interface_sync_enabled() -> bool:
    """Whether the stream a CUDA Array Interface names is waited for, by a launch taking the
    array and by ``as_cuda_array`` (on unless CUMLIR_CUDA_ARRAY_INTERFACE_SYNC or
    NUMBA_CUDA_ARRAY_INTERFACE_SYNC is 0)."""
    for name in ("CUMLIR_CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC"):
        value = os.environ.get(name)
        if value is not None and value.strip() in ("0", "false", "False", "no"):
            return False
    return True


def stream_handle(obj: object) -> int:
    """The CUstream handle (an int) of a stream given to a launch, from any of the usual types."""
    if obj is None or obj == 0:
        return 0
    if isinstance(obj, Stream):
        return obj.handle
    if isinstance(obj, int):
        return obj
    protocol = getattr(obj, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attribute in ("handle", "ptr", "cuda_stream"):  # numba-cuda, CuPy, PyTorch
        value = getattr(obj, attribute, None)
        if isinstance(value, int):
            return value
        if value is not None:
            try:
                return int(value)
            except (TypeError, ValueError):
                pass
    raise TypeError(f"cannot use a {type(obj).__name__} as a CUDA stream")


# CUstream values that mean a default stream of whichever context is current
_DEFAULT_HANDLES = (0, 1, 2)  # the null stream, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD


def check_stream_context(handle: int, context: drv.Context) -> None:
    """Refuse a launch in *context* on a stream made in another context (another device's
    CuPy or PyTorch stream, say): the driver would fail the launch with a vaguer error."""
    if handle in _DEFAULT_HANDLES:
        return
    owner = drv.check("cuStreamGetCtx", drv.driver().cuStreamGetCtx(handle))
    if int(owner) != int(context.handle):
        raise ValueError(
            f"the launch stream {handle:#x} belongs to CUDA context {int(owner):#x}, not to the current one "
            f"({context!r}): launch on a stream of the current device, or make its device current first"
        )


def order_streams(producer: int, consumer: int) -> None:
    """Make work queued later on *consumer* wait for what is queued on *producer* now."""
    legacy = (0, 1)
    if consumer == -1 or producer == consumer or (producer in legacy and consumer in legacy):
        return
    cu = drv.driver()
    event = drv.check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    try:
        drv.check("cuEventRecord", cu.cuEventRecord(event, producer))
        drv.check("cuStreamWaitEvent", cu.cuStreamWaitEvent(consumer, event, 0))
    finally:
        cu.cuEventDestroy(event)
