"""c = a + b on float32 vectors, one element per thread."""

import numpy as np

from cumlir import cuda

from .suite import blocks

THREADS = 256
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"c": None}


def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


KERNELS = [(vadd, "void(float32[::1], float32[::1], float32[::1])")]

CUDA_SOURCE = r"""
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (16 if quick else 27)
    return {
        "a": xp.asarray(rng.standard_normal(n, dtype=np.float32)),
        "b": xp.asarray(rng.standard_normal(n, dtype=np.float32)),
        "c": xp.empty(n, np.float32),
    }


def launch(cuda, kernels, inputs):
    n = inputs["c"].shape[0]
    kernels["vadd"][blocks(n, THREADS), THREADS](inputs["a"], inputs["b"], inputs["c"])


def launch_twin(twin, inputs):
    n = inputs["c"].shape[0]
    twin("vadd", blocks(n, THREADS), THREADS, inputs["a"], inputs["b"], inputs["c"], np.int32(n))


def work(inputs):
    return 3 * inputs["c"].nbytes


def emulate(inputs):
    return {"c": inputs["a"] + inputs["b"]}


def check(inputs, outputs):
    # one float32 addition: IEEE fixes the result
    expected = (inputs["a"].astype(np.float64) + inputs["b"]).astype(np.float32)
    np.testing.assert_array_equal(outputs["c"], expected)
