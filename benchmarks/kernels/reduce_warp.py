"""Sum of float32s: a grid-stride loop per thread, warp shuffles, one shared slot per
warp, shuffles again in the first warp, one atomic add per block."""

import numpy as np

from cumlir import cuda

# the same sum, inputs, launch configuration and check as reduce_block
from .reduce_block import GRID, METRIC, NUMBA_CUDA, OUTPUTS, THREADS, check, emulate, setup, work  # noqa: F401

WARPS = THREADS // 32


def reduce_warp(x, total):
    partial = cuda.shared.array(WARPS, np.float32)
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    acc = np.float32(0)
    while i < x.shape[0]:
        acc += x[i]
        i += stride
    offset = 16
    while offset > 0:
        acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, offset)
        offset >>= 1
    lane = cuda.threadIdx.x & 31
    warp = cuda.threadIdx.x >> 5
    if lane == 0:
        partial[warp] = acc
    cuda.syncthreads()
    if warp == 0:
        acc = partial[lane] if lane < WARPS else np.float32(0)
        offset = 16
        while offset > 0:
            acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, offset)
            offset >>= 1
        if lane == 0:
            cuda.atomic.add(total, 0, acc)


KERNELS = [(reduce_warp, "void(float32[::1], float32[::1])")]

CUDA_SOURCE = r"""
#define THREADS 256
#define WARPS (THREADS / 32)
extern "C" __global__ void reduce_warp(const float* x, float* total, int n) {
    __shared__ float partial[WARPS];
    int stride = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += x[i];
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xFFFFFFFFu, acc, offset);
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < WARPS ? partial[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xFFFFFFFFu, acc, offset);
        if (lane == 0) atomicAdd(total, acc);
    }
}
"""


def launch(cuda, kernels, inputs):
    kernels["reduce_warp"][GRID, THREADS](inputs["x"], inputs["total"])


def launch_twin(twin, inputs):
    twin("reduce_warp", GRID, THREADS, inputs["x"], inputs["total"], np.int32(inputs["x"].shape[0]))
