"""Softmax of each row of a float32 matrix: one block per row, the maximum and the sum
reduced in shared memory."""

import math

import numpy as np

from cumlir import cuda

THREADS = 256
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"out": None}
NEG_INF = np.float32(-np.inf)


def softmax(x, out):
    buf = cuda.shared.array(THREADS, np.float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    cols = x.shape[1]
    m = NEG_INF
    j = tid
    while j < cols:
        m = max(m, x[row, j])
        j += THREADS
    buf[tid] = m
    cuda.syncthreads()
    s = THREADS >> 1
    while s > 0:
        if tid < s:
            buf[tid] = max(buf[tid], buf[tid + s])
        cuda.syncthreads()
        s >>= 1
    m = buf[0]
    cuda.syncthreads()
    total = np.float32(0)
    j = tid
    while j < cols:
        total += math.exp(x[row, j] - m)
        j += THREADS
    buf[tid] = total
    cuda.syncthreads()
    s = THREADS >> 1
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s >>= 1
    inv = np.float32(1) / buf[0]
    j = tid
    while j < cols:
        out[row, j] = math.exp(x[row, j] - m) * inv
        j += THREADS


KERNELS = [(softmax, "void(float32[:, ::1], float32[:, ::1])")]

CUDA_SOURCE = r"""
#define THREADS 256
extern "C" __global__ void softmax(const float* x, float* out, int cols) {
    __shared__ float buf[THREADS];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* outr = out + (long long)blockIdx.x * cols;
    int tid = threadIdx.x;
    float m = __int_as_float(0xff800000);  // -inf
    for (int j = tid; j < cols; j += THREADS) m = fmaxf(m, xr[j]);
    buf[tid] = m;
    __syncthreads();
    for (int s = THREADS >> 1; s > 0; s >>= 1) {
        if (tid < s) buf[tid] = fmaxf(buf[tid], buf[tid + s]);
        __syncthreads();
    }
    m = buf[0];
    __syncthreads();
    float total = 0.0f;
    for (int j = tid; j < cols; j += THREADS) total += expf(xr[j] - m);
    buf[tid] = total;
    __syncthreads();
    for (int s = THREADS >> 1; s > 0; s >>= 1) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    float inv = 1.0f / buf[0];
    for (int j = tid; j < cols; j += THREADS) outr[j] = expf(xr[j] - m) * inv;
}
"""


def setup(xp, rng, quick=False):
    rows, cols = (64, 1000) if quick else (32768, 2048)
    return {
        "x": xp.asarray(rng.standard_normal((rows, cols), dtype=np.float32) * 4),
        "out": xp.empty((rows, cols), np.float32),
    }


def launch(cuda, kernels, inputs):
    kernels["softmax"][inputs["x"].shape[0], THREADS](inputs["x"], inputs["out"])


def launch_twin(twin, inputs):
    twin("softmax", inputs["x"].shape[0], THREADS, inputs["x"], inputs["out"], np.int32(inputs["x"].shape[1]))


def work(inputs):
    return 2 * inputs["x"].nbytes


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def emulate(inputs):
    return {"out": _softmax(inputs["x"])}


def check(inputs, outputs, rows=512):
    x = inputs["x"]
    pick = np.linspace(0, x.shape[0] - 1, min(rows, x.shape[0])).astype(int)
    expected = _softmax(x[pick].astype(np.float64))
    # expf good to 2 ulps, a float32 sum of the row, a division: relative to each element
    np.testing.assert_allclose(outputs["out"][pick], expected, rtol=1e-5 + x.shape[1] * 2.0**-24, atol=0)
