"""c = a @ b for square float32 matrices: 32x32 tiles in shared memory, one output
element per thread."""

import numpy as np

from cumlir import cuda

from .suite import blocks

TILE = 32
METRIC = "GFLOP/s"
NUMBA_CUDA = None
OUTPUTS = {"c": None}


def matmul(a, b, c):
    ta = cuda.shared.array((TILE, TILE), np.float32)
    tb = cuda.shared.array((TILE, TILE), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    n = a.shape[0]
    acc = np.float32(0)
    for start in range(0, n, TILE):
        ta[ty, tx] = a[row, start + tx] if row < n and start + tx < n else np.float32(0)
        tb[ty, tx] = b[start + ty, col] if start + ty < n and col < n else np.float32(0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += ta[ty, k] * tb[k, tx]
        cuda.syncthreads()
    if row < n and col < n:
        c[row, col] = acc


KERNELS = [(matmul, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])")]

CUDA_SOURCE = r"""
#define TILE 32
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int n) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int start = 0; start < n; start += TILE) {
        ta[ty][tx] = row < n && start + tx < n ? a[row * n + start + tx] : 0.0f;
        tb[ty][tx] = start + ty < n && col < n ? b[(start + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = acc;
}
"""


def setup(xp, rng, quick=False):
    n = 256 if quick else 4096
    return {
        "a": xp.asarray(rng.standard_normal((n, n), dtype=np.float32)),
        "b": xp.asarray(rng.standard_normal((n, n), dtype=np.float32)),
        "c": xp.empty((n, n), np.float32),
    }


def _grid(inputs):
    n = inputs["a"].shape[0]
    return (blocks(n, TILE), blocks(n, TILE)), (TILE, TILE)


def launch(cuda, kernels, inputs):
    grid, block = _grid(inputs)
    kernels["matmul"][grid, block](inputs["a"], inputs["b"], inputs["c"])


def launch_twin(twin, inputs):
    grid, block = _grid(inputs)
    twin("matmul", grid, block, inputs["a"], inputs["b"], inputs["c"], np.int32(inputs["a"].shape[0]))


def work(inputs):
    return 2 * inputs["a"].shape[0] ** 3


def emulate(inputs):
    return {"c": inputs["a"] @ inputs["b"]}


def check(inputs, outputs, rows=256):
    # float32 sums of n products (contracted or not): within n ulps of the sum of magnitudes
    a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
    pick = np.linspace(0, a.shape[0] - 1, min(rows, a.shape[0])).astype(int)
    expected = a[pick] @ b
    bound = a.shape[0] * 2.0**-24 * (np.abs(a[pick]) @ np.abs(b))
    error = np.abs(outputs["c"][pick] - expected)
    assert np.all(error <= bound), f"matmul: largest error {np.max(error / bound):.3g} of the bound"
