"""A device array exported through DLPack (``DeviceNDArray.__dlpack__``): ordered after the
work queued on its stream, copied first when asked."""

from __future__ import annotations

from typing import Any

from . import dlpack
from . import driver as drv
from .streams import order_streams, stream_handle


def export_array(
    array: Any,
    stream: int | None,
    max_version: tuple[int, int] | None,
    dl_device: tuple[int, int] | None,
    copy: bool | None,
) -> object:
    """The DLPack capsule of *array* (a DeviceNDArray) for a consumer on *stream*."""
    ordinal = drv.current_context().ordinal
    if dl_device is not None and tuple(int(d) for d in dl_device) != (dlpack.CUDA, ordinal):
        raise BufferError(f"a device array on CUDA device {ordinal} cannot be exported to device {dl_device}")
    versioned = dlpack.version_for(max_version)
    source = array.copy() if copy else array
    # DLPack numbers streams as CUDA does, except None: the legacy default stream
    consumer = 1 if stream is None else int(stream)
    order_streams(stream_handle(array.stream), consumer)
    return dlpack.export(
        source.gpu_data,
        source._pointer,
        source.shape,
        source.strides,
        source.dtype,
        ordinal,
        versioned,
        readonly=source._readonly,
        copied=bool(copy),
    )
