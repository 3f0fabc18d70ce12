"""Streams and events: ``cuda.stream()``, the default streams, streams made elsewhere,
``cuda.event()``. The driver is loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..runtime.events import Event
    from ..runtime.streams import Stream


def stream() -> Stream:
    """A new CUDA stream."""
    from ..runtime.streams import stream as new_stream

    return new_stream()


def default_stream() -> Stream:
    """The default stream (handle 0: the legacy default stream)."""
    from ..runtime.streams import default_stream as default

    return default()


def legacy_default_stream() -> Stream:
    """The legacy default stream (CU_STREAM_LEGACY), which orders work with all blocking streams."""
    from ..runtime.streams import legacy_default_stream as legacy

    return legacy()


def per_thread_default_stream() -> Stream:
    """The calling thread's default stream (CU_STREAM_PER_THREAD)."""
    from ..runtime.streams import per_thread_default_stream as per_thread

    return per_thread()


def external_stream(ptr: int) -> Stream:
    """A stream object over the CUstream *ptr* (an int) made by other code; cumlir never destroys it."""
    from ..runtime.streams import external_stream as external

    return external(ptr)


def event(timing: bool = True) -> Event:
    """A new CUDA event; with *timing*, ``elapsed_time`` measures between two of them."""
    from ..runtime.events import Event

    return Event(timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    """Milliseconds between two recorded events made with ``timing=True``."""
    from ..runtime.events import elapsed_time

    return elapsed_time(evtstart, evtend)
