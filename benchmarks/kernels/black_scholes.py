"""Black-Scholes prices of European calls and puts (float32): log, sqrt, exp and erf
per option."""

import math

import numpy as np

from cumlir import cuda

from .suite import blocks

THREADS = 256
METRIC = "GB/s"
NUMBA_CUDA = None
OUTPUTS = {"call": None, "put": None}
HALF = np.float32(0.5)
ONE = np.float32(1.0)
RSQRT2 = np.float32(0.7071067811865476)


def black_scholes(s, k, t, call, put, r, v):
    i = cuda.grid(1)
    if i < s.shape[0]:
        si = s[i]
        ki = k[i]
        ti = t[i]
        sqrt_t = math.sqrt(ti)
        d1 = (math.log(si / ki) + (r + HALF * v * v) * ti) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        nd1 = HALF * (ONE + math.erf(d1 * RSQRT2))
        nd2 = HALF * (ONE + math.erf(d2 * RSQRT2))
        discounted = ki * math.exp(-r * ti)
        call[i] = si * nd1 - discounted * nd2
        put[i] = discounted * (ONE - nd2) - si * (ONE - nd1)


KERNELS = [
    (black_scholes, "void(float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32, float32)")
]

CUDA_SOURCE = r"""
extern "C" __global__ void black_scholes(const float* s, const float* k, const float* t, float* call, float* put,
                                         float r, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float si = s[i], ki = k[i], ti = t[i];
        float sqrt_t = sqrtf(ti);
        float d1 = (logf(si / ki) + (r + 0.5f * v * v) * ti) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float nd1 = 0.5f * (1.0f + erff(d1 * 0.70710678f));
        float nd2 = 0.5f * (1.0f + erff(d2 * 0.70710678f));
        float discounted = ki * expf(-r * ti);
        call[i] = si * nd1 - discounted * nd2;
        put[i] = discounted * (1.0f - nd2) - si * (1.0f - nd1);
    }
}
"""


def setup(xp, rng, quick=False):
    n = 1 << (16 if quick else 26)
    return {
        "s": xp.asarray(rng.uniform(5, 30, n).astype(np.float32)),
        "k": xp.asarray(rng.uniform(1, 100, n).astype(np.float32)),
        "t": xp.asarray(rng.uniform(0.25, 10, n).astype(np.float32)),
        "call": xp.empty(n, np.float32),
        "put": xp.empty(n, np.float32),
        "r": np.float32(0.02),
        "v": np.float32(0.3),
    }


def _arguments(inputs):
    return [inputs[k] for k in ("s", "k", "t", "call", "put", "r", "v")]


def launch(cuda, kernels, inputs):
    n = inputs["s"].shape[0]
    kernels["black_scholes"][blocks(n, THREADS), THREADS](*_arguments(inputs))


def launch_twin(twin, inputs):
    n = inputs["s"].shape[0]
    twin("black_scholes", blocks(n, THREADS), THREADS, *_arguments(inputs), np.int32(n))


def work(inputs):
    return 5 * inputs["s"].nbytes


def _prices(s, k, t, r, v, erf):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / k) + (r + v * v / 2) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    nd1 = (1 + erf(d1 / np.sqrt(2))) / 2
    nd2 = (1 + erf(d2 / np.sqrt(2))) / 2
    discounted = k * np.exp(-r * t)
    return s * nd1 - discounted * nd2, discounted * (1 - nd2) - s * (1 - nd1)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def emulate(inputs):
    def erf32(x):
        return _erf(x).astype(np.float32)

    call, put = _prices(inputs["s"], inputs["k"], inputs["t"], inputs["r"], inputs["v"], erf32)
    return {"call": call, "put": put}


def check(inputs, outputs, options=1 << 16):
    n = inputs["s"].shape[0]
    pick = np.linspace(0, n - 1, min(options, n)).astype(int)
    s, k, t = (inputs[c][pick].astype(np.float64) for c in "skt")
    call, put = _prices(s, k, t, np.float64(inputs["r"]), np.float64(inputs["v"]), _erf)
    # float32 rounding of log(s/k) and of d1, d2 moves the prices by a few ulps of s and k
    for name, expected in (("call", call), ("put", put)):
        error = np.abs(outputs[name][pick] - expected)
        bound = 64 * 2.0**-24 * (s + k)
        assert np.all(error <= bound), f"black_scholes {name}: largest error {np.max(error / bound):.3g} of the bound"
