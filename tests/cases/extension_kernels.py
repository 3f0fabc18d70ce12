"""Kernels using the extensions defined by docs/extending.md, one feature each,
shared by the CPU (PTX) and GPU tests."""

from cumlir import cuda

from . import extending_docs

_docs = extending_docs.namespace()
smoothstep = _docs["smoothstep"]
squared = _docs["squared"]
fast_reciprocal = _docs["fast_reciprocal"]
Point = _docs["Point"]
boxed_kernel = _docs["boxed_kernel"]
struct_kernel = _docs["struct_kernel"]
high_level_kernel = _docs["high_level_kernel"]


@cuda.jit
def overload_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = smoothstep(a[i])


@cuda.jit
def method_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a.scaled_at(i, 3.0)


@cuda.jit
def jitable_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = squared(a[i])


@cuda.jit
def intrinsic_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = fast_reciprocal(a[i])


def smoothstep_reference(x):
    import numpy as np

    t = np.clip(x.astype(np.float64), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def struct_reference(points):
    """What struct_kernel computes, in NumPy (float32 throughout, as the struct's fields)."""
    import numpy as np

    x, y = points["x"], points["y"]
    qx = np.where(x > 0, y, np.float32(1.0))
    qy = np.where(x > 0, x, np.float32(2.0))
    # scaled() multiplies by the float64 2.0 and the constructor rounds back to float32
    sx = (qx.astype(np.float64) * 2.0).astype(np.float32)
    sy = (qy.astype(np.float64) * 2.0).astype(np.float32)
    return np.stack([x + sx, y + sy], axis=1)
