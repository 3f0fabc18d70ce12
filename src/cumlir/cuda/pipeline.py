"""A ring of shared-memory stages between producer and consumer threads, in the spirit of
CUDA's ``cuda::pipeline``: device functions over mbarriers (docs/hopper.md, "Pipelines").

Step ``k`` of the work uses stage ``k % stages``. Each stage has two mbarriers in one shared
array of ``2 * stages`` uint64 (``cuda.shared.array(2 * STAGES, np.uint64)``, or a slice of
the dynamic one): *full* (``bars[s]``), which completes when the stage's data has arrived,
and *empty* (``bars[stages + s]``), which completes when every consumer is done with it.
Their phases are counted from ``k``, so a kernel keeps no state of its own::

    if t == 0:
        pipeline.init(bars, STAGES, 1, CONSUMERS)
    cuda.syncthreads()
    # the producer, for each step k:
    pipeline.producer_acquire(bars, STAGES, k)           # the stage is free
    pipeline.producer_commit_tx(bars, STAGES, k, NBYTES)  # then start the copies into it
    # each consumer, for each step k:
    pipeline.consumer_wait(bars, STAGES, k)              # the stage's bytes have arrived
    ...                                                   # read it
    pipeline.consumer_release(bars, STAGES, k)           # one arrival per consumer

*producers* is how many arrivals complete a full barrier (the threads calling
``producer_commit_tx`` for a step), *consumers* how many complete an empty one (the threads
calling ``consumer_release``). The copies are those of ``intrin.cp_async_bulk_load`` or
``intrin.cp_async_bulk_tensor_load`` given ``pipeline.full(bars, stages, k)`` as their barrier.
"""

from . import intrin
from .decorators import jit


@jit(device=True)
def full(bars, stages, k):
    """The full barrier of step *k*'s stage, for the copies that fill it."""
    return bars[k % stages :]


@jit(device=True)
def init(bars, stages, producers, consumers):
    """Make the 2 * stages barriers (one thread calls it, then the block synchronizes)."""
    for s in range(stages):
        intrin.mbarrier_init(bars[s:], producers)
        intrin.mbarrier_init(bars[stages + s :], consumers)
    intrin.fence_mbarrier_init()


@jit(device=True)
def producer_acquire(bars, stages, k):
    """Wait until the consumers have released step *k*'s stage (its use by step k - stages)."""
    if k >= stages:
        intrin.mbarrier_try_wait(bars[stages + k % stages :], (k // stages - 1) % 2)


@jit(device=True)
def producer_commit_tx(bars, stages, k, nbytes):
    """Arrive on step *k*'s full barrier, which then also waits for *nbytes* of copies."""
    intrin.mbarrier_arrive_expect_tx(bars[k % stages :], nbytes)


@jit(device=True)
def consumer_wait(bars, stages, k):
    """Wait until step *k*'s stage is full."""
    intrin.mbarrier_try_wait(bars[k % stages :], (k // stages) % 2)


@jit(device=True)
def consumer_release(bars, stages, k):
    """Arrive on step *k*'s empty barrier: this consumer is done with the stage."""
    intrin.mbarrier_arrive(bars[stages + k % stages :])
