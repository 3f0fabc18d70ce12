"""Kernels calling CPU-jitted functions (``numba.njit``, ``numba.jit``, ``register_jitable``):
cumlir compiles those functions' Python code for the device. Each case has a kernel, its
signature, its inputs and a host reference that calls the same jitted functions on the CPU.
Shared by test_jit_functions.py (PTX, both back ends) and its GPU tests."""

import math
from collections import namedtuple

import numba
import numpy as np
from numba.extending import register_jitable

from cumlir import cuda

Span = namedtuple("Span", ["lo", "hi"])


@numba.njit
def business_logic(x, y, z):
    return 4 * x + 3 * y // 2 - z % 5


@numba.njit(cache=True, fastmath=True, nogil=True, error_model="numpy")
def calls_another(x, k):
    # an njit function calling another one; its CPU options mean nothing on the device
    return business_logic(x, k, x) * 2 - k


@numba.njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@numba.njit
def ordered(a, b):
    return (a, b) if a <= b else (b, a)


@numba.njit
def stats(a, b, c):
    # a heterogeneous tuple: (int, float, bool)
    total = a + b + c
    return int(total), total / 3.0, total > 0


@numba.njit
def row_dot(m, v, row):
    s = 0.0
    for j in range(v.shape[0]):
        s += m[row, j] * v[j]
    return s


@numba.njit
def store_square(out, i, x):
    out[i] = x * x


@numba.njit("float64(float64, float64)")
def declared_hypot(x, y):
    return math.sqrt(x * x + y * y)


@numba.njit(["int64(int64)", "float64(float64)"])
def declared_twice(x):
    return x + x


@numba.jit(nopython=True, inline="always")
def inlined(x):
    return x * 0.5 + 1.0


@numba.njit(forceinline=True)
def forced(x):
    return x - 0.25


@register_jitable
def jitable(x):
    return x * 3.0


@register_jitable
def jitable_calls_njit(x, y):
    return business_logic(x, y, 7) + 1


@numba.njit
def span_width(span):
    return span.hi - span.lo


@numba.njit
def shifted(x, by=10):
    return x + by


def make_affine(scale, offset):
    @numba.njit
    def affine(x):
        return x * scale + offset

    return affine


affine = make_affine(1.5, -2.0)


@cuda.jit(device=True)
def device_wrapper(x):
    # a cumlir device function calling CPU-jitted ones
    return jitable(x) + inlined(x) + forced(x)


# ---- kernels ----------------------------------------------------------------------------


def integers(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = business_logic(a[i], b[i], i) + calls_another(a[i], 3) + jitable_calls_njit(b[i], a[i])


def integers_ref(a, b):
    return np.array(
        [
            business_logic(x, y, i) + calls_another(x, 3) + jitable_calls_njit(y, x)
            for i, (x, y) in enumerate(zip(a, b))
        ],
        dtype=np.int64,
    )


def recursion(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fib(a[i] % 16) + b[i]


def recursion_ref(a, b):
    return np.array([fib(x % 16) + y for x, y in zip(a, b)], dtype=np.int64)


def tuples(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        lo, hi = ordered(a[i], b[i])
        n, mean, positive = stats(a[i], b[i], 1.5)
        width = span_width(Span(lo, hi))
        out[i] = hi - lo + n + mean + (10.0 if positive else -10.0) + width * 100.0


def tuples_ref(a, b):
    result = []
    for x, y in zip(a, b):
        lo, hi = ordered(x, y)
        n, mean, positive = stats(x, y, 1.5)
        result.append(hi - lo + n + mean + (10.0 if positive else -10.0) + span_width(Span(lo, hi)) * 100.0)
    return np.array(result)


def arrays(m, v, out):
    i = cuda.grid(1)
    if i < out.size:
        store_square(out, i, row_dot(m, v, i))


def arrays_ref(m, v):
    out = np.empty(m.shape[0])
    for i in range(m.shape[0]):
        store_square(out, i, row_dot(m, v, i))
    return out


def floats(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        out[i] = (
            declared_hypot(x, b[i])
            + declared_twice(x)
            + declared_twice(i)
            + device_wrapper(x)
            + affine(x)
            + shifted(x)
            + shifted(x, by=2.5)
        )


def floats_ref(a, b):
    return np.array(
        [
            declared_hypot(x, y)
            + declared_twice(x)
            + declared_twice(i)
            + (jitable(x) + inlined(x) + forced(x))
            + affine(x)
            + shifted(x)
            + shifted(x, by=2.5)
            for i, (x, y) in enumerate(zip(a, b))
        ]
    )


def make_closure_kernel(power):
    # a kernel and the njit function it calls, both defined in a closure
    @numba.njit
    def raise_to(x):
        r = 1.0
        for _ in range(power):
            r *= x
        return r

    def closure(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = raise_to(a[i]) - b[i]

    def reference(a, b):
        return np.array([raise_to(x) - y for x, y in zip(a, b)])

    return closure, reference


closure, closure_ref = make_closure_kernel(3)


def _ints(rng, n):
    return rng.integers(-1000, 1000, n).astype(np.int64), rng.integers(-1000, 1000, n).astype(np.int64)


def _floats(rng, n):
    return rng.standard_normal(n), rng.standard_normal(n)


def _matrix(rng, n):
    return rng.standard_normal((n, 7)), rng.standard_normal(7)


# name -> (kernel, signature, inputs(rng, n), output dtype, host reference)
CASES = {
    "integers": (integers, "void(int64[:], int64[:], int64[:])", _ints, np.int64, integers_ref),
    "recursion": (recursion, "void(int64[:], int64[:], int64[:])", _ints, np.int64, recursion_ref),
    "tuples": (tuples, "void(float64[:], float64[:], float64[:])", _floats, np.float64, tuples_ref),
    "arrays": (arrays, "void(float64[:, :], float64[:], float64[:])", _matrix, np.float64, arrays_ref),
    "floats": (floats, "void(float64[:], float64[:], float64[:])", _floats, np.float64, floats_ref),
    "closure": (closure, "void(float64[:], float64[:], float64[:])", _floats, np.float64, closure_ref),
}
