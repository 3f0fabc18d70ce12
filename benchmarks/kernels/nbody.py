"""All-pairs gravitational accelerations of float32 bodies (softened): per pair a
reciprocal square root and a handful of multiply-adds."""

import math

import numpy as np

from cumlir import cuda

from .suite import blocks

THREADS = 256
FLOPS_PER_PAIR = 20  # the usual count: 3 sub, 6 mul-add for d2, sqrt+div as 2, 3 mul, 6 mul-add
METRIC = "GFLOP/s"
NUMBA_CUDA = None
OUTPUTS = {"ax": None, "ay": None, "az": None}


def nbody(x, y, z, m, ax, ay, az, eps2):
    i = cuda.grid(1)
    n = x.shape[0]
    if i < n:
        xi = x[i]
        yi = y[i]
        zi = z[i]
        fx = np.float32(0)
        fy = np.float32(0)
        fz = np.float32(0)
        for j in range(n):
            dx = x[j] - xi
            dy = y[j] - yi
            dz = z[j] - zi
            d2 = dx * dx + dy * dy + dz * dz + eps2
            inv = np.float32(1) / math.sqrt(d2)
            s = m[j] * inv * inv * inv
            fx += dx * s
            fy += dy * s
            fz += dz * s
        ax[i] = fx
        ay[i] = fy
        az[i] = fz


KERNELS = [
    (
        nbody,
        "void(float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32)",
    )
]

CUDA_SOURCE = r"""
extern "C" __global__ void nbody(const float* x, const float* y, const float* z, const float* m,
                                 float* ax, float* ay, float* az, float eps2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xi = x[i], yi = y[i], zi = z[i];
        float fx = 0.0f, fy = 0.0f, fz = 0.0f;
        for (int j = 0; j < n; j++) {
            float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(d2);
            float s = m[j] * inv * inv * inv;
            fx += dx * s;
            fy += dy * s;
            fz += dz * s;
        }
        ax[i] = fx;
        ay[i] = fy;
        az[i] = fz;
    }
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (10 if quick else 16)
    inputs = {c: xp.asarray(rng.uniform(-1, 1, n).astype(np.float32)) for c in "xyz"}
    inputs["m"] = xp.asarray(rng.uniform(0.5, 1.5, n).astype(np.float32))
    inputs.update({f"a{c}": xp.empty(n, np.float32) for c in "xyz"})
    inputs["eps2"] = np.float32(1e-3)
    return inputs


def _arguments(inputs):
    return [inputs[k] for k in ("x", "y", "z", "m", "ax", "ay", "az", "eps2")]


def launch(cuda, kernels, inputs):
    n = inputs["x"].shape[0]
    kernels["nbody"][blocks(n, THREADS), THREADS](*_arguments(inputs))


def launch_twin(twin, inputs):
    n = inputs["x"].shape[0]
    twin("nbody", blocks(n, THREADS), THREADS, *_arguments(inputs), np.int32(n))


def work(inputs):
    return FLOPS_PER_PAIR * inputs["x"].shape[0] ** 2


def _accelerations(inputs, pick, dtype):
    """(accelerations, sums of the magnitudes of their terms) of the bodies *pick*."""
    pos = np.stack([inputs[c].astype(dtype) for c in "xyz"])
    d = pos[:, None, :] - pos[:, pick, None]  # (3, picked, n)
    d2 = (d * d).sum(axis=0) + dtype(inputs["eps2"])
    s = inputs["m"].astype(dtype) / (d2 * np.sqrt(d2))
    return (d * s).sum(axis=2), (np.abs(d) * s).sum(axis=2)


def emulate(inputs):
    n = inputs["x"].shape[0]
    acc, _ = _accelerations(inputs, np.arange(n), np.float32)
    return dict(zip(("ax", "ay", "az"), acc))


def check(inputs, outputs, bodies=256):
    n = inputs["x"].shape[0]
    pick = np.linspace(0, n - 1, min(bodies, n)).astype(int)
    expected, magnitude = _accelerations(inputs, pick, np.float64)
    for axis, name in enumerate(("ax", "ay", "az")):
        error = np.abs(outputs[name][pick] - expected[axis])
        # each term good to a few float32 ulps, n terms summed in float32
        bound = (8 + n) * 2.0**-24 * magnitude[axis]
        assert np.all(error <= bound), f"nbody {name}: largest error {np.max(error / bound):.3g} of the bound"
