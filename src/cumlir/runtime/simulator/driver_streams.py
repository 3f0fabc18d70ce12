"""The simulator's CUDA driver's streams and events (driver.py). Work runs at once, on the
calling thread, one launch or copy at a time (a valid order of any set of streams): the work
is done when it is queued, and a stream or event only waits for work another thread runs."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cuda.bindings import driver as _real  # importing it needs no GPU; nothing in it is called

from .driver_constants import DEFAULT_STREAMS, INVALID_CONTEXT, INVALID_HANDLE, SUCCESS
from .driver_state import as_int, current_context, handles, tables_lock, wait_for_work


@dataclass(eq=False)
class _Event:
    timing: bool
    time: float | None = None  # perf_counter() when recorded


_streams: dict[int, int] = {}  # CUstream handle -> its context
_events: dict[int, _Event] = {}


def stream_ok(stream: Any) -> bool:
    handle = as_int(stream)
    return handle in DEFAULT_STREAMS or handle in _streams


def reset() -> None:
    """Destroy every stream and event."""
    _streams.clear()
    _events.clear()


def cuStreamCreate(flags: int) -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT, None)
    handle = next(handles)
    with tables_lock:
        _streams[handle] = current_context()
    return (SUCCESS, _real.CUstream(handle))


def cuStreamDestroy(hStream: Any) -> tuple[Any, ...]:
    with tables_lock:
        if _streams.pop(as_int(hStream), None) is None:
            return (INVALID_HANDLE,)
    return (SUCCESS,)


def cuStreamSynchronize(hStream: Any) -> tuple[Any, ...]:
    if not stream_ok(hStream):
        return (INVALID_HANDLE,)
    if not current_context():
        return (INVALID_CONTEXT,)
    wait_for_work()
    return (SUCCESS,)


def cuStreamWaitEvent(hStream: Any, hEvent: Any, Flags: int) -> tuple[Any, ...]:
    if not stream_ok(hStream) or as_int(hEvent) not in _events:
        return (INVALID_HANDLE,)
    return (SUCCESS,)


def cuStreamGetCtx(hStream: Any) -> tuple[Any, ...]:
    handle = as_int(hStream)
    if handle in DEFAULT_STREAMS:  # a default stream is the current context's
        return (SUCCESS, _real.CUcontext(current_context())) if current_context() else (INVALID_CONTEXT, None)
    context = _streams.get(handle)
    return (SUCCESS, _real.CUcontext(context)) if context is not None else (INVALID_HANDLE, None)


def cuEventCreate(Flags: int) -> tuple[Any, ...]:
    if not current_context():
        return (INVALID_CONTEXT, None)
    handle = next(handles)
    timing = not int(Flags) & int(_real.CUevent_flags.CU_EVENT_DISABLE_TIMING)
    with tables_lock:
        _events[handle] = _Event(timing)
    return (SUCCESS, _real.CUevent(handle))


def cuEventRecord(hEvent: Any, hStream: Any) -> tuple[Any, ...]:
    event = _events.get(as_int(hEvent))
    if event is None or not stream_ok(hStream):
        return (INVALID_HANDLE,)
    wait_for_work()  # the point it marks is after the work queued (running) before it
    event.time = time.perf_counter()
    return (SUCCESS,)


def cuEventSynchronize(hEvent: Any) -> tuple[Any, ...]:
    return (SUCCESS,) if as_int(hEvent) in _events else (INVALID_HANDLE,)


def cuEventQuery(hEvent: Any) -> tuple[Any, ...]:
    return (SUCCESS,) if as_int(hEvent) in _events else (INVALID_HANDLE,)


def cuEventDestroy(hEvent: Any) -> tuple[Any, ...]:
    with tables_lock:
        if _events.pop(as_int(hEvent), None) is None:
            return (INVALID_HANDLE,)
    return (SUCCESS,)


def cuEventElapsedTime(hStart: Any, hEnd: Any) -> tuple[Any, ...]:
    start, end = _events.get(as_int(hStart)), _events.get(as_int(hEnd))
    # as the real driver: an event made without timing, or never recorded, is a bad handle
    if start is None or end is None or not (start.timing and end.timing):
        return (INVALID_HANDLE, None)
    if start.time is None or end.time is None:
        return (INVALID_HANDLE, None)
    return (SUCCESS, (end.time - start.time) * 1000.0)
