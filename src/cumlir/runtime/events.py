"""CUDA events: points in a stream's work to wait for, and to time the work between."""

from __future__ import annotations

from . import driver as drv
from .cleanup import release
from .streams import stream_handle


class Event:
    """A CUDA event; with *timing*, it records when it occurred, for ``elapsed_time``."""

    def __init__(self, timing: bool = True) -> None:
        self.made_in = drv.lifetime()
        cu = drv.driver()
        flags = 0 if timing else int(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        self.handle = drv.check("cuEventCreate", cu.cuEventCreate(flags))
        self.timing = bool(timing)

    def record(self, stream: object = 0) -> None:
        """Mark the point in *stream*'s queued work that the event stands for."""
        drv.check("cuEventRecord", drv.driver().cuEventRecord(self.handle, stream_handle(stream)))

    def synchronize(self) -> None:
        """Wait on the host until the work before the event's point has finished."""
        drv.check("cuEventSynchronize", drv.driver().cuEventSynchronize(self.handle))

    def wait(self, stream: object = 0) -> None:
        """Make work queued on *stream* from now on wait for the event."""
        cu = drv.driver()
        drv.check("cuStreamWaitEvent", cu.cuStreamWaitEvent(stream_handle(stream), self.handle, 0))

    def query(self) -> bool:
        """Whether the work before the event's point has finished (without waiting)."""
        cu = drv.driver()
        (err,) = cu.cuEventQuery(self.handle)
        if err == cu.CUresult.CUDA_ERROR_NOT_READY:
            return False
        drv.check("cuEventQuery", (err,))
        return True

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to the event *end* (both recorded and finished)."""
        return elapsed_time(self, end)

    def __repr__(self) -> str:
        return f"<cumlir Event {int(self.handle):#x}>"

    def __del__(self) -> None:
        handle = getattr(self, "handle", None)
        if handle is not None:
            release("cuEventDestroy", handle, getattr(self, "made_in", None))


def elapsed_time(start: Event, end: Event) -> float:
    """Milliseconds between two recorded, finished events made with ``timing=True``."""
    for which, event in (("start", start), ("end", end)):
        if not isinstance(event, Event):
            raise TypeError(f"event_elapsed_time: the {which} event must be a cuda.event(), not {type(event).__name__}")
        if not event.timing:
            raise ValueError(f"event_elapsed_time: the {which} event was made with timing=False and has no time")
    cu = drv.driver()
    return drv.check("cuEventElapsedTime", cu.cuEventElapsedTime(start.handle, end.handle))
