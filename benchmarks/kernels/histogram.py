"""A 256-bin histogram of bytes: per block a histogram in shared memory (shared
atomics), added to the global one at the end (one global atomic per bin and block)."""

import numpy as np

from cumlir import cuda

BINS = 256
THREADS = BINS
GRID = 1024
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"counts": 0}


def histogram(data, counts):
    local = cuda.shared.array(BINS, np.int32)
    tid = cuda.threadIdx.x
    local[tid] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.shape[0]:
        cuda.atomic.add(local, data[i], 1)
        i += stride
    cuda.syncthreads()
    cuda.atomic.add(counts, tid, local[tid])


KERNELS = [(histogram, "void(uint8[::1], int32[::1])")]

CUDA_SOURCE = r"""
#define BINS 256
extern "C" __global__ void histogram(const unsigned char* data, int* counts, int n) {
    __shared__ int local[BINS];
    int tid = threadIdx.x;
    local[tid] = 0;
    __syncthreads();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[data[i]], 1);
    __syncthreads();
    atomicAdd(&counts[tid], local[tid]);
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (18 if quick else 28)
    return {"data": xp.asarray(rng.integers(0, BINS, n, dtype=np.uint8)), "counts": xp.zeros(BINS, np.int32)}


def launch(cuda, kernels, inputs):
    kernels["histogram"][GRID, THREADS](inputs["data"], inputs["counts"])


def launch_twin(twin, inputs):
    twin("histogram", GRID, THREADS, inputs["data"], inputs["counts"], np.int32(inputs["data"].shape[0]))


def work(inputs):
    return inputs["data"].nbytes


def emulate(inputs):
    return {"counts": np.bincount(inputs["data"], minlength=BINS).astype(np.int32)}


def check(inputs, outputs):
    np.testing.assert_array_equal(outputs["counts"], np.bincount(inputs["data"], minlength=BINS))
