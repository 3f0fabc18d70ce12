"""Sum of float32s: a grid-stride loop per thread, a tree in shared memory per block,
one atomic add per block."""

import numpy as np

from cumlir import cuda

THREADS = 256
GRID = 1024
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"total": 0}


def reduce_block(x, total):
    partial = cuda.shared.array(THREADS, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    acc = np.float32(0)
    while i < x.shape[0]:
        acc += x[i]
        i += stride
    partial[tid] = acc
    cuda.syncthreads()
    s = THREADS >> 1
    while s > 0:
        if tid < s:
            partial[tid] += partial[tid + s]
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        cuda.atomic.add(total, 0, partial[0])


KERNELS = [(reduce_block, "void(float32[::1], float32[::1])")]

CUDA_SOURCE = r"""
#define THREADS 256
extern "C" __global__ void reduce_block(const float* x, float* total, int n) {
    __shared__ float partial[THREADS];
    int tid = threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += x[i];
    partial[tid] = acc;
    __syncthreads();
    for (int s = THREADS >> 1; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, partial[0]);
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (16 if quick else 27)
    return {"x": xp.asarray(rng.random(n, dtype=np.float32)), "total": xp.zeros(1, np.float32)}


def launch(cuda, kernels, inputs):
    kernels["reduce_block"][GRID, THREADS](inputs["x"], inputs["total"])


def launch_twin(twin, inputs):
    twin("reduce_block", GRID, THREADS, inputs["x"], inputs["total"], np.int32(inputs["x"].shape[0]))


def work(inputs):
    return inputs["x"].nbytes


def emulate(inputs):
    return {"total": np.array([inputs["x"].sum(dtype=np.float32)], np.float32)}


def check(inputs, outputs):
    # float32 partial sums of positive numbers, added in an unspecified order
    expected = inputs["x"].sum(dtype=np.float64)
    np.testing.assert_allclose(outputs["total"][0], expected, rtol=1e-4)
