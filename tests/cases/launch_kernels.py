"""Kernels launched by the launch tests (test_gpu_launch.py, test_gpu_launch_fast_path.py,
test_launch_fast_path.py); each test file jits its own copies."""

from cumlir import cuda

VADD_FLOAT32 = "void(float32[:], float32[:], float32[:])"


def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


def transpose_add(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        c[i, j] = a[j, i] + b[i, j]


def scale(c, k):
    i = cuda.grid(1)
    if i < c.size:
        c[i] *= k


def many_scalars(out, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    out[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
    out[1] = a8 * a9 + a10 - a11 + a12 * a13 + a14 - a15


def from_tuple(t, out):
    out[0] = t[0] * t[1] + t[2]
