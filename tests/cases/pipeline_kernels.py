"""A producer thread filling the stages of a cumlir.cuda.pipeline by bulk copies and a warp of
consumers summing them: compiled by tests/test_pipeline.py, launched on a Hopper GPU there."""

import numpy as np

from cumlir import cuda
from cumlir.cuda import intrin, pipeline

STAGES = 3
CHUNK = 256  # float32 a stage holds: 1 KiB, a multiple of the bulk copy's 16 bytes
CONSUMERS = 32  # the first warp; the producer is the first thread of the second
THREADS = 64
BUFFER = STAGES * CHUNK  # shapes are constants of their own (as Numba-CUDA wants them)
BARRIERS = 2 * STAGES


def pipelined_sums(src, out, steps):
    """out[t] = the sum of src[i] for i % 32 == t, over steps chunks of CHUNK."""
    buf = cuda.shared.array(BUFFER, np.float32)
    bars = cuda.shared.array(BARRIERS, np.uint64)
    t = cuda.threadIdx.x
    if t == 0:
        pipeline.init(bars, STAGES, 1, CONSUMERS)
    cuda.syncthreads()
    if t == CONSUMERS:
        for k in range(steps):
            pipeline.producer_acquire(bars, STAGES, k)
            pipeline.producer_commit_tx(bars, STAGES, k, CHUNK * 4)
            stage = buf[(k % STAGES) * CHUNK :]
            intrin.cp_async_bulk_load(stage, src[k * CHUNK :], pipeline.full(bars, STAGES, k), CHUNK * 4)
    elif t < CONSUMERS:
        acc = np.float32(0)
        for k in range(steps):
            pipeline.consumer_wait(bars, STAGES, k)
            base = (k % STAGES) * CHUNK
            for j in range(t, CHUNK, CONSUMERS):
                acc += buf[base + j]
            pipeline.consumer_release(bars, STAGES, k)
        out[t] = acc
