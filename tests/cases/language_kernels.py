"""Kernels exercising the rest of the scalar language (tuples, namedtuples, literal_unroll,
constants, iteration helpers, device functions), each with a host reference computing
the same thing in Python. Shared by the PTX test and the GPU test."""

import math
from collections import namedtuple

import numpy as np

from cumlir import cuda, literal_unroll

Point = namedtuple("Point", ["x", "y"])
TABLE = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], dtype=np.float32)
PAIR = (7, 2.5)
SCALE = 3


@cuda.jit(device=True)
def polar_parts(x, y):
    return math.hypot(x, y), math.atan2(y, x)


@cuda.jit(device=True)
def shifted(x, by=10):
    return x + by


@cuda.jit(device=True)
def clamp_add(x, lo, hi):
    return min(max(x + 0.5, lo), hi)


def plain_helper(x):
    return x * x - 1


@cuda.jit
def kernel_style(x):
    # a function decorated like a kernel, called from another kernel as a device function
    return x / 2


@cuda.jit(device=True)
def calls_plain(x):
    return device_plain(x) + 1


device_plain = cuda.jit(device=True)(plain_helper)


def tuples(a, out):
    i = cuda.grid(1)
    if i < out.size:
        t = (a[i], 2, 1.5)
        x, y, z = t
        u = (t[0], t[-1])
        r, theta = polar_parts(a[i], 1.0)
        out[i] = x + y * z + u[1] + len(t) + r + theta


def tuples_ref(a):
    return [x + 2 * 1.5 + 1.5 + 3 + math.hypot(x, 1.0) + math.atan2(1.0, x) for x in a.tolist()]


def named(a, out):
    i = cuda.grid(1)
    if i < out.size:
        p = Point(a[i], 2.0)
        q = Point(y=a[i], x=-1.0)
        out[i] = p.x * p[1] + q.x + q.y


def named_ref(a):
    return [x * 2.0 - 1.0 + x for x in a.tolist()]


def unrolled(a, out):
    i = cuda.grid(1)
    if i < out.size:
        s = 0.0
        for v in literal_unroll((1, 2.5, a[i], True)):
            s += v
        out[i] = s


def unrolled_ref(a):
    return [1 + 2.5 + x + 1 for x in a.tolist()]


def constants(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = TABLE[i % 8] * SCALE + PAIR[0] + PAIR[1] + a[i]


def constants_ref(a):
    return [float(TABLE[i % 8]) * SCALE + 7 + 2.5 + x for i, x in enumerate(a.tolist())]


def iteration(a, out):
    i = cuda.grid(1)
    if i < out.size:
        s = 0.0
        for j, v in enumerate(range(i % 5, 9)):
            s += j * v
        for u, w in zip(range(3), range(10, 20)):
            s += u * w
        for k, v in enumerate((1.5, 2.5, 3.5), 1):
            s += k * v
        for v in TABLE:
            s += v
        out[i] = s + a[i]


def iteration_ref(a):
    result = []
    for i, x in enumerate(a.tolist()):
        s = sum(j * v for j, v in enumerate(range(i % 5, 9)))
        s += sum(u * w for u, w in zip(range(3), range(10, 20)))
        s += sum(k * v for k, v in enumerate((1.5, 2.5, 3.5), 1))
        s += float(TABLE.sum())
        result.append(s + x)
    return result


def device_calls(a, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        out[i] = (
            shifted(x) + shifted(x, 1) + shifted(x, by=2) + clamp_add(x, -1.0, 1.0) + calls_plain(x) + kernel_style(x)
        )


def device_calls_ref(a):
    return [(x + 10) + (x + 1) + (x + 2) + min(max(x + 0.5, -1.0), 1.0) + (x * x - 1 + 1) + x / 2 for x in a.tolist()]


def ternary_and_closure(a, out):
    limit = 0.25

    def inner(v):
        return v * 2 if v > limit else -v

    i = cuda.grid(1)
    if i < out.size:
        out[i] = inner(a[i]) + (1.0 if a[i] > 0 else -1.0)


def ternary_and_closure_ref(a):
    return [(x * 2 if x > 0.25 else -x) + (1.0 if x > 0 else -1.0) for x in a.tolist()]


def complex_values(a, out):
    i = cuda.grid(1)
    if i < out.size:
        z = complex(a[i], 1.0)
        w = z * z.conjugate() + z / (1 + 2j) - abs(z)
        out[i] = w.real + w.imag


def complex_values_ref(a):
    result = []
    for x in a.tolist():
        z = complex(x, 1.0)
        w = z * z.conjugate() + z / (1 + 2j) - abs(z)
        result.append(w.real + w.imag)
    return result


@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def recursion(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fib(i % 12) + a[i]


@cuda.jit("int64(int64)", device=True)
def fib_declared(n):
    # compiled by its decorator, before the name fib_declared is bound
    if n < 2:
        return n
    return fib_declared(n - 1) + fib_declared(n - 2)


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def declared_and_mutual_recursion(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fib_declared(i % 13) * 10 + is_even(i % 7) + a[i]


def mutual_recursion_from_int32(a, out):
    i = cuda.grid(1)
    if i < out.size:
        # is_even(int32) calls is_odd(int64), which calls is_even(int64) while is_even(int32)
        # is being typed: a recursive call with other argument types
        out[i] = is_even(np.int32(i % 7)) + a[i]


def mutual_recursion_from_int32_ref(a):
    return [((i % 7) % 2 == 0) + x for i, x in enumerate(a.tolist())]


def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


def declared_and_mutual_recursion_ref(a):
    return [_fib(i % 13) * 10 + ((i % 7) % 2 == 0) + x for i, x in enumerate(a.tolist())]


def recursion_ref(a):
    return [_fib(i % 12) + x for i, x in enumerate(a.tolist())]


def where_and_identity(a, out):
    i = cuda.grid(1)
    if i < out.size:
        nothing = None
        picked = np.where(a[i] > 0.0, a[i], -2.0)
        out[i] = picked + (1.0 if nothing is None else 5.0) + (10.0 if nothing is not None else 20.0)


def where_and_identity_ref(a):
    return [(x if x > 0 else -2.0) + 1.0 + 20.0 for x in a.tolist()]


def augmented(a, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i] * 100.0
        n = int(x) | 1
        x += 3.0
        x -= 1.5
        x *= 2.0
        x /= 4.0
        x //= 0.5
        x %= 7.0
        x **= 2
        n <<= 2
        n >>= 1
        n ^= 5
        n &= 1023
        n |= 2048
        out[i] = x + n


def augmented_ref(a):
    result = []
    for v in a.tolist():
        x = v * 100.0
        n = int(x) | 1
        x += 3.0
        x -= 1.5
        x *= 2.0
        x /= 4.0
        x //= 0.5
        x %= 7.0
        x **= 2
        n <<= 2
        n >>= 1
        n ^= 5
        n &= 1023
        n |= 2048
        result.append(x + n)
    return result


def make_closure_kernel(scale, offset):
    def closure(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] * scale + offset

    return closure


closure = make_closure_kernel(2.5, (1.0, 3.0)[1])


def closure_ref(a):
    return [x * 2.5 + 3.0 for x in a.tolist()]


# kernels with assert statements live here: pytest rewrites the asserts of test modules


def checked(a, out):
    i = cuda.grid(1)
    if i < out.size:
        assert a[i] >= 0, "negative input"
        out[i] = a[i] * 2


CASES = {
    "tuples": (tuples, tuples_ref),
    "named": (named, named_ref),
    "unrolled": (unrolled, unrolled_ref),
    "constants": (constants, constants_ref),
    "iteration": (iteration, iteration_ref),
    "device_calls": (device_calls, device_calls_ref),
    "ternary_and_closure": (ternary_and_closure, ternary_and_closure_ref),
    "complex_values": (complex_values, complex_values_ref),
    "recursion": (recursion, recursion_ref),
    "declared_and_mutual_recursion": (declared_and_mutual_recursion, declared_and_mutual_recursion_ref),
    "mutual_recursion_from_int32": (mutual_recursion_from_int32, mutual_recursion_from_int32_ref),
    "where_and_identity": (where_and_identity, where_and_identity_ref),
    "augmented": (augmented, augmented_ref),
    "closure": (closure, closure_ref),
}
