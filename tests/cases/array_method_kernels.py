"""Array methods and NumPy functions in device code (``fill``, ``ravel``, ``flatten``,
``astype``, ``np.where``, ``np.clip``, ``np.dot``, ``np.linspace``, ``np.array``).

Each case is a plain Python function writing what it computes into its output arrays (the
first arguments): compiled, it is the kernel, launched on one thread; run by NumPy on the
host, it is the reference. ``Case.outputs(inputs)`` gives the outputs' shapes and dtypes,
found by NumPy from the same expressions.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cumlir import cuda

# ---- the cases ------------------------------------------------------------------------------


def fill_whole(a, value):
    a.fill(value[0])


def fill_views(a, value):
    a[::2, 1::2].fill(value[0])
    a[-1].fill(value[0])


def ravel_flatten(r, f, n, a):
    r[...] = a.ravel()
    f[...] = a.flatten()
    n[...] = np.ravel(a)


def ravel_strided(r, f, big):
    v = big[::2, 1::2]
    r[...] = v.ravel()
    f[...] = v.T.flatten()


def ravel_writes_through(a, value):
    """ravel of a C array is a view: writing to it writes to the array."""
    r = a.ravel()
    r[r.size - 1] = value[0]


def astype_to(target):
    def astype_case(out, a):
        out[...] = a.astype(target)

    astype_case.__name__ = f"astype_{np.dtype(target).name}"
    return astype_case


def astype_strided_to_string(out, big):
    out[...] = big[1::2, ::3].astype("float64")


def where_arrays(out, c, x, y):
    out[...] = np.where(c, x, y)


def where_scalar(out, x, y):
    out[...] = np.where(x > y, x, 3)


def where_expression(out, x):
    out[...] = np.where(x[::2] != 0, 1.5, x[::2])


def clip_both(out1, out2, a, lo, hi):
    out1[...] = np.clip(a, lo, hi)
    out2[...] = a.clip(max=hi, min=lo)


def clip_one_side(out1, out2, a, bound):
    out1[...] = np.clip(a, a_min=bound, a_max=None)
    out2[...] = a.clip(None, bound)


def dot_1d(out, a, b):
    out[0] = np.dot(a, b)
    out[1] = a.dot(b)
    out[2] = a @ b
    out[3] = np.dot(a[:8:2], b[1::2])


def linspace_rows(out, bounds, n):
    start, stop = bounds[0], bounds[1]
    out[0, :n] = np.linspace(start, stop, n)
    out[1, :n] = np.linspace(start, stop, num=n, endpoint=False)
    out[2, :50] = np.linspace(start, stop)


def array_from_tuples(out1, out2, out3, xs, k):
    x = xs[0]
    out1[...] = np.array((x, 2.5, k))
    out2[...] = np.asarray(((x, k), (k, x), (1, 2)), dtype=np.float32)
    out3[...] = np.array((k, 3, k + 1))


def array_from_arrays(out1, out2, out3, a, k):
    same = np.asarray(a)
    same[0, 0] = k  # the array itself: the write reaches a
    copied = np.array(a)
    copied[0, 1] = k  # a copy: a keeps its element
    out1[...] = np.asarray(a, dtype=np.int16)
    out2[...] = copied
    out3[...] = np.array(k) + np.asarray(k, dtype=np.float32)


def memory_arrays(out1, out2, out3, value):
    """Shared and local arrays (a kernel only: its reference is memory_arrays_reference)."""
    s = cuda.shared.array((4, 8), np.float32)
    t = cuda.local.array((3, 5), np.int16)
    s.fill(value)
    s[::2, 1::3].fill(-value)
    t.fill(value)
    t[1, ::2].fill(-7)
    out1[...] = s.ravel()
    out2[...] = t.ravel()
    out3[...] = np.where(s > 0, s, t[1, 0]).astype(np.int32).T.flatten()


def memory_arrays_reference(value):
    s = np.full((4, 8), value, np.float32)
    s[::2, 1::3] = -value
    t = np.full((3, 5), value).astype(np.int16)
    t[1, ::2] = -7
    return [s.ravel(), t.ravel(), np.where(s > 0, s, t[1, 0]).astype(np.int32).T.flatten()]


# ---- inputs and outputs ---------------------------------------------------------------------

DTYPES = [
    "bool",
    "int8",
    "uint16",
    "int32",
    "uint64",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
# one of each class for the GPU, which compiles a kernel per case and argument types
GPU_DTYPES = ["bool", "int8", "uint64", "float16", "float32", "float64", "complex64", "complex128"]
# the dtypes the host harness (tests/nrt_harness.py) runs: float16 needs routines it lacks
HOST_DTYPES = [d for d in DTYPES if d != "float16"]


def values(dtype, shape, rng, low=-50, high=50, integral=False):
    """Random values of *dtype* that every conversion of these cases keeps defined: small
    magnitudes (and none negative for unsigned types); *integral*: whole numbers, which
    sums of products keep exact in every float type."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "u":
        return rng.integers(max(low, 0), high, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(low, high, shape).astype(dtype)
    real, imaginary = rng.uniform(low, high, shape), rng.uniform(low, high, shape)
    if integral:
        real, imaginary = np.round(real), np.round(imaginary)
    if dtype.kind == "c":
        return (real + 1j * imaginary).astype(dtype)
    return real.astype(dtype)


def layouts(a):
    """*a* C-ordered and F-ordered."""
    return [np.ascontiguousarray(a), np.asfortranarray(a)]


def fill_value(dtype):
    """A one-element array holding the value fill() is given (a float for number arrays)."""
    kind = np.dtype(dtype).kind
    return np.array([{"b": True, "c": 2.75 - 1.5j}.get(kind, 2.75)])


def host_run(case, outputs, inputs):
    """The reference: the case run by NumPy on copies of its arguments."""
    outputs = [o.copy() for o in outputs]
    inputs = [i.copy(order="K") if isinstance(i, np.ndarray) else i for i in inputs]
    case(*outputs, *inputs)
    return outputs, inputs


@dataclass
class Launch:
    """One kernel launch: a case, its outputs (poisoned by the caller) and inputs."""

    case: Callable[..., None]
    outputs: list[Any]
    inputs: list[Any]
    tolerance: float = 0.0  # relative to the sum of the magnitudes involved (dot, linspace)


def shaped_outputs(*arrays):
    """Output arrays with the shapes and dtypes of NumPy's own results *arrays*."""
    return [np.empty(np.shape(a), np.asarray(a).dtype) for a in arrays]
