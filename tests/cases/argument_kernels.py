"""Kernels taking complex numbers, raw pointers, tuples, namedtuples and records as
arguments; shared by test_kernel_arguments.py's PTX tests and its GPU tests."""

from collections import namedtuple

import numba
import numpy as np

from cumlir import cuda

Params = namedtuple("Params", ["a", "b", "alpha", "n"])
Window = namedtuple("Window", ["lo", "hi"])
POINT = np.dtype([("x", np.float64), ("y", np.int32), ("z", np.complex64)], align=True)


def complex_scalars(z, w, a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * z + w


def complex64_scalar(w, a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * w


def typed_pointer(p, n, scale):
    i = cuda.grid(1)
    if i < n:
        p[i] = p[i] * scale + i


def void_pointer(p, n, out):
    values = cuda.carray(p, n, dtype=numba.float64)
    i = cuda.grid(1)
    if i < n:
        out[i] = values[i] * 3.0
        values[i] = -values[i]


def scalar_tuple(t, a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * t[0] + t[1] - t[2]


def nested_tuple(t, out):
    # (array, (int, float), bool, complex)
    arr, (k, scale), flag, z = t
    i = cuda.grid(1)
    if i < out.size:
        out[i] = arr[i] * scale + k + (100.0 if flag else -100.0) + z.real * z.imag


def named_tuple(p, window, out):
    i = cuda.grid(1)
    if i < p.n:
        v = p.alpha * p.a[i] + p.b[i]
        out[i] = min(max(v, window.lo), window.hi)


def record_by_value(r, pair, a, out):
    # a record on its own and one inside a tuple, next to an int
    rec, k = pair
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * r.x + r.y + r.z.real + rec.x * k


# name -> (kernel, eager signature)
SIGNATURES = {
    "complex_scalars": (complex_scalars, "void(complex128, complex128, complex128[:], complex128[:])"),
    "complex64_scalar": (complex64_scalar, "void(complex64, complex64[:], complex64[:])"),
    "typed_pointer": (typed_pointer, "void(CPointer(float32), int64, float32)"),
    "void_pointer": (void_pointer, "void(voidptr, int64, float64[:])"),
    "scalar_tuple": (scalar_tuple, "void(UniTuple(float64, 3), float64[:], float64[:])"),
    "nested_tuple": (
        nested_tuple,
        "void(Tuple((float64[:], Tuple((int64, float64)), boolean, complex128)), float64[:])",
    ),
}


def named_tuple_types():
    from numba.core import types

    params = types.NamedTuple((types.float64[:], types.float64[:], types.float64, types.int64), Params)
    window = types.NamedUniTuple(types.float64, 2, Window)
    return (params, window, types.float64[:])


def record_types():
    from numba.core import types
    from numba.np import numpy_support

    record = numpy_support.from_dtype(POINT)
    return (record, types.Tuple((record, types.int64)), types.float64[:], types.float64[:])
