"""The float64 math loop: per element, eight terms of sin, exp and sqrt."""

import math

import numpy as np

from cumlir import cuda

from .suite import blocks

THREADS = 256
TERMS = 8
OPS_PER_TERM = 8  # mul, sin, exp, mul, abs, add, sqrt, add (the negation folds into exp's argument)
METRIC = "Gop/s fp64"
NUMBA_CUDA = None
OUTPUTS = {"out": None}


def math_loop(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        acc = 0.0
        for k in range(8):
            acc += math.sin(v * k) * math.exp(-v) + math.sqrt(abs(v) + k)
        out[i] = acc


KERNELS = [(math_loop, "void(float64[::1], float64[::1])")]

CUDA_SOURCE = r"""
extern "C" __global__ void math_loop(const double* x, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        double acc = 0.0;
        for (int k = 0; k < 8; k++) acc += sin(v * k) * exp(-v) + sqrt(fabs(v) + k);
        out[i] = acc;
    }
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (14 if quick else 24)
    return {"x": xp.asarray(rng.uniform(-4, 4, n)), "out": xp.empty(n, np.float64)}


def launch(cuda, kernels, inputs):
    n = inputs["x"].shape[0]
    kernels["math_loop"][blocks(n, THREADS), THREADS](inputs["x"], inputs["out"])


def launch_twin(twin, inputs):
    n = inputs["x"].shape[0]
    twin("math_loop", blocks(n, THREADS), THREADS, inputs["x"], inputs["out"], np.int32(n))


def work(inputs):
    return TERMS * OPS_PER_TERM * inputs["x"].shape[0]


def _terms(x):
    k = np.arange(TERMS, dtype=np.float64)[:, None]
    return np.sin(x * k) * np.exp(-x), np.sqrt(np.abs(x) + k)


def emulate(inputs):
    products, roots = _terms(inputs["x"])
    return {"out": (products + roots).sum(axis=0)}


def check(inputs, outputs):
    products, roots = _terms(inputs["x"])
    expected = (products + roots).sum(axis=0)
    # libdevice's sin and exp are within 2 ulps; 16 roundings of terms below the magnitudes
    magnitude = (np.abs(products) + roots).sum(axis=0)
    error = np.abs(outputs["out"] - expected)
    assert np.all(error <= 32 * 2.0**-52 * magnitude), (
        f"math_loop: largest error {np.max(error / magnitude):.3g} of the terms"
    )
