"""Loops counted with a runtime step (codegen/passes/counted_loops.py unrolls them, but for
grid-stride loops that write global memory) and loops it leaves alone: the PTX of each is checked in test_counted_loops.py, the results of the
counted ones on the GPU in test_gpu_counted_loops.py."""

import numpy as np

from cumlir import cuda


def grid_stride_sum(x, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    acc = 0
    while i < x.shape[0]:
        acc += x[i]
        i += stride
    out[cuda.grid(1)] = acc


def grid_stride_copy(src, dst):
    i = cuda.grid(1)
    while i < src.shape[0]:
        dst[i] = src[i] * 3 + 1
        i += cuda.gridsize(1)


def shared_histogram(data, counts):
    """A grid-stride loop writing only shared memory (atomics into a block's bins)."""
    bins = cuda.shared.array(64, np.int32)
    bins[cuda.threadIdx.x] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < data.shape[0]:
        cuda.atomic.add(bins, data[i], 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    cuda.atomic.add(counts, cuda.threadIdx.x, bins[cuda.threadIdx.x])


def row_sums(x, out):
    """Each block sums a row, its threads stepping by the block size."""
    row = cuda.blockIdx.x
    j = cuda.threadIdx.x
    acc = np.float64(0)
    while j < x.shape[1]:
        acc += x[row, j]
        j += cuda.blockDim.x
    out[row, cuda.threadIdx.x] = acc


def row_scale(x, out):
    """Each block scales a row, its threads stepping by the block size: a loop that stores."""
    row = cuda.blockIdx.x
    j = cuda.threadIdx.x
    while j < x.shape[1]:
        out[row, j] = x[row, j] * 3 + 1
        j += cuda.blockDim.x


def constant_trips(x, out):
    i = cuda.grid(1)
    k = 0
    acc = 0.0
    while k < 8:
        acc += x[i] * k
        k += 1
    out[i] = acc


def branchy(x, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    acc = 0
    while i < x.shape[0]:
        if x[i] > 0:
            acc += x[i]
        else:
            acc -= 1
        i += stride
    out[cuda.grid(1)] = acc
