"""Kernels of Hopper's cluster, mbarrier and cp.async intrinsics, shared by the PTX tests and
the GPU tests (tests/operations/hopper/test_mbarrier.py, tests/test_gpu_hopper.py)."""

import numpy as np

from cumlir import cuda
from cumlir.cuda import intrin

from .tma_kernels import init_barrier

THREADS = 64
WIDE = 4 * THREADS  # the shared arrays of async_copies: shapes known at compile time
NARROW = 3 * THREADS


def cluster_exchange(out, where):
    """Each block writes its rank into shared memory, then reads the next block's through mapa."""
    mine = cuda.shared.array(THREADS, np.int32)
    t = cuda.threadIdx.x
    rank = intrin.cluster_ctarank()
    size = intrin.cluster_nctarank()
    mine[t] = rank * 1000 + t
    intrin.cluster_sync()
    neighbour = intrin.mapa(mine, (rank + 1) % size)
    out[cuda.grid(1)] = neighbour[t]
    # no block may leave while another still reads its shared memory
    intrin.cluster_arrive_relaxed()
    intrin.cluster_wait()
    if t == 0:
        b = cuda.blockIdx.x
        where[b, 0] = rank
        where[b, 1] = size
        where[b, 2] = intrin.block_idx_in_cluster()
        where[b, 3] = intrin.cluster_ctaid(0)
        where[b, 4] = intrin.cluster_nctaid(0)
        where[b, 5] = intrin.clusterid(0)
        where[b, 6] = intrin.nclusterid(0)
        where[b, 7] = intrin.cluster_ctaid(1) + intrin.cluster_nctaid(2) + intrin.clusterid(1)


def remote_arrivals(out):
    """In clusters of two, thread 0 of each block writes a value into the other block's shared
    memory, then arrives at both blocks' barriers (of two arrivals); each waits on its own and
    reads what the other block wrote."""
    bar = cuda.shared.array(1, np.uint64)
    box = cuda.shared.array(1, np.int32)
    rank = intrin.cluster_ctarank()
    other = 1 - rank
    if cuda.threadIdx.x == 0:
        intrin.mbarrier_init(bar, 2)
        intrin.fence_mbarrier_init()
    intrin.cluster_sync()
    if cuda.threadIdx.x == 0:
        there = intrin.mapa(box, other)
        there[0] = 1000 + 10 * cuda.blockIdx.x + rank
        intrin.mbarrier_arrive_cluster(bar, other)
        intrin.mbarrier_arrive_cluster(bar, rank)
        intrin.mbarrier_try_wait(bar, 0)
        out[cuda.blockIdx.x] = box[0]
    # no block may leave while the other may still write to it
    intrin.cluster_sync()


def mbarrier_handoff(data, out, rounds):
    """Thread 0 produces a value per round; the other threads wait on the mbarrier's phase and
    consume it. Each phase completes when the producer and every consumer have arrived."""
    bar = cuda.shared.array(1, np.uint64)
    value = cuda.shared.array(1, np.float32)
    t = cuda.threadIdx.x
    if t == 0:
        intrin.mbarrier_init(bar, cuda.blockDim.x)
        intrin.fence_mbarrier_init()
    cuda.syncthreads()
    total = np.float32(0)
    for r in range(rounds):
        if t == 0:
            value[0] = data[r]
        intrin.mbarrier_arrive(bar)
        intrin.mbarrier_try_wait(bar, r % 2)
        total += value[0]
        # every thread has read before the producer writes the next round
        cuda.syncthreads()
    out[t] = total


def expect_tx_zero(out):
    """arrive_expect_tx with no bytes: the phase completes on the arrivals alone."""
    bar = cuda.shared.array(1, np.uint64)
    init_barrier(bar, cuda.threadIdx.x)
    if cuda.threadIdx.x == 0:
        intrin.mbarrier_arrive_expect_tx(bar, 0)
    intrin.mbarrier_try_wait(bar, 0)
    out[cuda.threadIdx.x] = 1


def async_copies(src, out):
    """Each thread copies 16, 8 and 4 bytes of src into shared memory asynchronously, in two
    groups, waits for them, and writes back what arrived."""
    wide = cuda.shared.array(WIDE, np.float32)
    narrow = cuda.shared.array(NARROW, np.float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 7 * THREADS
    intrin.cp_async(wide[4 * t :], src[base + 4 * t :], 16)
    intrin.cp_async_commit_group()
    intrin.cp_async(narrow[2 * t :], src[base + 4 * THREADS + 2 * t :], 8)
    intrin.cp_async(narrow[2 * THREADS + t :], src[base + 6 * THREADS + t :], 4)
    intrin.cp_async_commit_group()
    intrin.cp_async_wait_group(1)
    intrin.cp_async_wait_all()
    cuda.syncthreads()
    for k in range(4):
        out[base + 4 * t + k] = wide[4 * t + k]
    for k in range(3):
        out[base + 4 * THREADS + k * THREADS + t] = narrow[k * THREADS + t]
