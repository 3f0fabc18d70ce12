"""Kernels written with ``cuda.experimental.consteval`` (tests/test_consteval.py compiles them)."""

import math

import numpy as np

from cumlir import cuda
from cumlir.cuda.experimental import consteval

TABLE = (1.0, 2.0, 4.0, 8.0)
WIDTH = 3


def _config():
    return {"block": 128, "scale": 0.5}


def expression(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = consteval(sum(TABLE) * WIDTH) + consteval(math.sqrt(16.0))


def unrolled(a, out):
    i = cuda.grid(1)
    if i < out.size:
        total = 0.0
        for k in consteval(range(WIDTH)):
            total += a[i] * TABLE[k] + k
        out[i] = total


def block(out):
    with consteval():
        config = _config()
        scale = config["scale"]
        weights = np.array([1.0, 3.0], dtype=np.float64)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = scale * weights[1]


def constant_if(out):
    i = cuda.grid(1)
    if consteval(WIDTH > 2):
        out[i] = 1.0
    else:
        out[i] = undefined_name  # noqa: F821 - pruned at compile time, never typed


def failing(out):
    out[0] = consteval(1 / 0)


def breaking(out):
    for k in consteval(range(3)):
        if k == 1:
            break
        out[k] = k
