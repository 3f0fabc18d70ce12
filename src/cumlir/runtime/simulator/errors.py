"""The errors the CPU simulator raises for what a kernel does wrong on its threads' way
through barriers and warp-collective operations (where the GPU would hang or leave results
undefined)."""

from __future__ import annotations


class SimulatorError(RuntimeError):
    """What a simulated kernel did that has no defined outcome on the GPU."""


class DeadlockError(SimulatorError):
    """No thread of the block can proceed: threads wait for each other in operations that
    can never complete (a warp operation waiting for a lane held at a block barrier, or lanes
    waiting in different warp operations)."""


class DivergentBarrierError(SimulatorError):
    """Threads of one block wait at different block barriers (``cuda.syncthreads`` at two
    call sites)."""


class WarpMaskError(SimulatorError):
    """A warp operation's mask does not fit its lanes: it leaves out the calling lane, or
    names a lane that has exited."""


class SharedMemoryRace(SimulatorError):
    """Two threads of a block touched one byte of shared memory with no barrier (or warp
    synchronization) between them, at least one writing, not both atomically."""


class UninitializedSharedRead(SimulatorError):
    """A thread read shared memory that no thread of its block has written."""
