"""A 2-D 5-point stencil on a float32 grid; the boundary is copied."""

import numpy as np

from cumlir import cuda

from .suite import blocks

BLOCK = (32, 8)
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"out": None}


def stencil(u, out, c0, c1):
    j, i = cuda.grid(2)
    ny, nx = u.shape
    if i < ny and j < nx:
        if 0 < i < ny - 1 and 0 < j < nx - 1:
            out[i, j] = c0 * u[i, j] + c1 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        else:
            out[i, j] = u[i, j]


KERNELS = [(stencil, "void(float32[:, ::1], float32[:, ::1], float32, float32)")]

CUDA_SOURCE = r"""
extern "C" __global__ void stencil(const float* u, float* out, float c0, float c1, int ny, int nx) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ny && j < nx) {
        if (0 < i && i < ny - 1 && 0 < j && j < nx - 1)
            out[i * nx + j] = c0 * u[i * nx + j] + c1 * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1]);
        else
            out[i * nx + j] = u[i * nx + j];
    }
}
"""


def setup(xp, rng, quick=False):
    ny, nx = (256, 512) if quick else (8192, 8192)
    return {
        "u": xp.asarray(rng.standard_normal((ny, nx), dtype=np.float32)),
        "out": xp.empty((ny, nx), np.float32),
        "c0": np.float32(0.5),
        "c1": np.float32(0.125),
    }


def _grid(inputs):
    ny, nx = inputs["u"].shape
    return (blocks(nx, BLOCK[0]), blocks(ny, BLOCK[1])), BLOCK


def launch(cuda, kernels, inputs):
    grid, block = _grid(inputs)
    kernels["stencil"][grid, block](inputs["u"], inputs["out"], inputs["c0"], inputs["c1"])


def launch_twin(twin, inputs):
    grid, block = _grid(inputs)
    ny, nx = inputs["u"].shape
    twin("stencil", grid, block, inputs["u"], inputs["out"], inputs["c0"], inputs["c1"], np.int32(ny), np.int32(nx))


def work(inputs):
    return 2 * inputs["u"].nbytes


def _apply(u, c0, c1):
    out = u.copy()
    out[1:-1, 1:-1] = c0 * u[1:-1, 1:-1] + c1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return out


def emulate(inputs):
    return {"out": _apply(inputs["u"], inputs["c0"], inputs["c1"])}


def check(inputs, outputs):
    u = inputs["u"].astype(np.float64)
    expected = _apply(u, np.float64(inputs["c0"]), np.float64(inputs["c1"]))
    # five float32 roundings (or fewer, contracted) of terms no larger than the magnitudes
    magnitude = _apply(np.abs(u), abs(np.float64(inputs["c0"])), abs(np.float64(inputs["c1"])))
    error = np.abs(outputs["out"] - expected)
    assert np.all(error <= 4 * 2.0**-23 * magnitude), "stencil: an element is off by more than 4 ulps of its terms"
