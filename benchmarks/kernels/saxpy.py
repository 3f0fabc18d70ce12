"""out = a * x + y on float32 vectors, one element per thread."""

import numpy as np

from cumlir import cuda

from .suite import blocks

THREADS = 256
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"out": None}


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]


KERNELS = [(saxpy, "void(float32, float32[::1], float32[::1], float32[::1])")]

CUDA_SOURCE = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (16 if quick else 27)
    return {
        "a": np.float32(rng.uniform(0.5, 2.0)),
        "x": xp.asarray(rng.standard_normal(n, dtype=np.float32)),
        "y": xp.asarray(rng.standard_normal(n, dtype=np.float32)),
        "out": xp.empty(n, np.float32),
    }


def launch(cuda, kernels, inputs):
    n = inputs["out"].shape[0]
    kernels["saxpy"][blocks(n, THREADS), THREADS](inputs["a"], inputs["x"], inputs["y"], inputs["out"])


def launch_twin(twin, inputs):
    n = inputs["out"].shape[0]
    twin("saxpy", blocks(n, THREADS), THREADS, inputs["a"], inputs["x"], inputs["y"], inputs["out"], np.int32(n))


def work(inputs):
    return 3 * inputs["out"].nbytes


def emulate(inputs):
    return {"out": inputs["a"] * inputs["x"] + inputs["y"]}


def check(inputs, outputs):
    # a*x+y rounded once (an fma) or twice: within 1.5 ulp of the larger of a*x and y
    ax = np.float64(inputs["a"]) * inputs["x"]
    expected = ax + inputs["y"]
    scale = np.maximum(np.abs(ax), np.abs(inputs["y"]))
    error = np.abs(outputs["out"] - expected)
    assert np.all(error <= 2**-22 * scale), (
        f"saxpy: largest error {np.max(error / np.maximum(scale, 1e-30)):.3g} of the operands"
    )
