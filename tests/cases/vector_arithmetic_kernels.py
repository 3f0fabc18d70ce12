"""Arithmetic on CUDA vector types: a kernel per base type applying every operator to vectors
of 1 to 4 lanes, and its reference computed from the inputs with Python's integers (integer
lanes: wrapping, Python's floor division, 0 for a division by zero) or NumPy in float64
rounded once to the lane type (float lanes).

``arithmetic_kernel(base)(a, b, k, out, quot)``: a and b hold four values of the base type
(the lanes of v and w), k one (the scalar s); for each lane count n = 1 .. 4 the kernel
writes the lanes of each result of RESULTS to out, in order, and those of QUOTIENTS to quot
(whose dtype is quotient_dtype(base))."""

import numpy as np

from cumlir import cuda

from .vector_kernels import constructor, put2, put3, put4

RESULTS = [
    "v + w",
    "v - w",
    "v + s",
    "s + v",
    "v - s",
    "s - v",
    "v * s",
    "s * v",
    "v // s",
    "s // v",
    "v % s",
    "s % v",
    "-v",
    "abs(v)",
    "u = v; u += w; u -= s; u *= s",
]
QUOTIENTS = ["v / s", "s / v"]


@cuda.jit(device=True)
def put1(out, j, v):
    out[j] = v.x


def _operations(put, n):
    """A device function writing the results of every operator on (v, w, s), n lanes each."""

    @cuda.jit(device=True)
    def operations(v, w, s, out, quot, j, q):
        put(out, j, v + w)
        put(out, j + n, v - w)
        put(out, j + 2 * n, v + s)
        put(out, j + 3 * n, s + v)
        put(out, j + 4 * n, v - s)
        put(out, j + 5 * n, s - v)
        put(out, j + 6 * n, v * s)
        put(out, j + 7 * n, s * v)
        put(out, j + 8 * n, v // s)
        put(out, j + 9 * n, s // v)
        put(out, j + 10 * n, v % s)
        put(out, j + 11 * n, s % v)
        put(out, j + 12 * n, -v)
        put(out, j + 13 * n, abs(v))
        u = v
        u += w
        u -= s
        u *= s
        put(out, j + 14 * n, u)
        put(quot, q, v / s)
        put(quot, q + n, s / v)

    return operations


def arithmetic_kernel(base):
    V1, V2, V3, V4 = (constructor(base, n) for n in (1, 2, 3, 4))
    ops1, ops2, ops3, ops4 = (_operations(put, n) for n, put in enumerate((put1, put2, put3, put4), 1))
    per_lane, per_quotient = len(RESULTS), len(QUOTIENTS)

    def kernel(a, b, k, out, quot):
        s = k[0]
        ops1(V1(a[0]), V1(b[0]), s, out, quot, 0, 0)
        ops2(V2(a[0], a[1]), V2(b[0], b[1]), s, out, quot, per_lane, per_quotient)
        ops3(V3(a[0], a[1], a[2]), V3(b[0], b[1], b[2]), s, out, quot, 3 * per_lane, 3 * per_quotient)
        ops4(V4(a[0], a[1], a[2], a[3]), V4(b[0], b[1], b[2], b[3]), s, out, quot, 6 * per_lane, 6 * per_quotient)

    kernel.__name__ = f"arithmetic_{base}"
    return kernel


OUT_LANES = 10 * len(RESULTS)  # 1 + 2 + 3 + 4 lanes per result
QUOT_LANES = 10 * len(QUOTIENTS)


def quotient_dtype(base):
    """The lanes of v / s: float lanes stay, integer lanes become floats of at least 32 bits."""
    dtype = np.dtype(base)
    if dtype.kind == "f":
        return dtype
    return np.dtype(np.float64 if dtype.itemsize == 8 else np.float32)


# ---- the reference ----------------------------------------------------------------------------


def _wrap(value, dtype):
    """An exact integer as the lane type holds it (two's complement wrapping)."""
    bits = 8 * dtype.itemsize
    value &= (1 << bits) - 1
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _int_lane(op, x, y, dtype):
    """One integer lane: numba-cuda's scalar semantics in the lane type."""
    x, y = int(x), int(y)
    smallest = -(1 << (8 * dtype.itemsize - 1)) if dtype.kind == "i" else 0
    if op in ("//", "%") and (y == 0 or (x == smallest and y == -1 and dtype.kind == "i")):
        return 0  # a division by zero, and MIN // -1, give 0
    exact = {"+": x + y, "-": x - y, "*": x * y, "//": x // y if y else 0, "%": x % y if y else 0}[op]
    return _wrap(exact, dtype)


def _float_lane(op, x, y, dtype):
    """One float lane: the operation in float64 on the lanes' values, rounded once to the lane
    type (exact for + - * /; the inputs make // and % exact too: multiples of 1/4)."""
    x, y = np.float64(x), np.float64(y)
    with np.errstate(all="ignore"):
        exact = {
            "+": x + y,
            "-": x - y,
            "*": x * y,
            "/": x / y,
            "//": np.floor_divide(x, y),
            "%": np.remainder(x, y),
        }[op]
    return dtype.type(exact)


def _lane(op, x, y, dtype):
    return _float_lane(op, x, y, dtype) if dtype.kind == "f" else _int_lane(op, x, y, dtype)


def _unary(op, x, dtype):
    if dtype.kind == "f":
        return dtype.type(-x if op == "-" else abs(x))
    x = int(x)
    return _wrap(-x if op == "-" else abs(x), dtype)


def arithmetic_reference(a, b, k):
    """(out, quot) the kernel writes for inputs a, b (four lanes each) and k (one scalar)."""
    dtype = a.dtype
    s = k[0]
    quotient = quotient_dtype(dtype)
    out, quot = [], []
    for n in (1, 2, 3, 4):
        v, w = a[:n], b[:n]

        def lanes(op, left, right):
            left = left if isinstance(left, np.ndarray) else [left] * n
            right = right if isinstance(right, np.ndarray) else [right] * n
            return [_lane(op, x, y, dtype) for x, y in zip(left, right)]

        results = [
            lanes("+", v, w),
            lanes("-", v, w),
            lanes("+", v, s),
            lanes("+", s, v),
            lanes("-", v, s),
            lanes("-", s, v),
            lanes("*", v, s),
            lanes("*", s, v),
            lanes("//", v, s),
            lanes("//", s, v),
            lanes("%", v, s),
            lanes("%", s, v),
            [_unary("-", x, dtype) for x in v],
            [_unary("abs", x, dtype) for x in v],
        ]
        u = np.array(lanes("+", v, w), dtype)
        u = np.array([_lane("-", x, s, dtype) for x in u], dtype)
        results.append([_lane("*", x, s, dtype) for x in u])
        for result in results:
            out += result
        as_quotient = v.astype(quotient), quotient.type(s)
        quot += [_float_lane("/", x, as_quotient[1], quotient) for x in as_quotient[0]]
        quot += [_float_lane("/", as_quotient[1], x, quotient) for x in as_quotient[0]]
    return np.array(out, dtype), np.array(quot, quotient)


# the scalars s the integer kernels are run with: drawn at random, and the divisors that
# give 0 (a zero divisor; MIN // -1 in both orders: v holds MIN and -1)
SCALARS = ("random", "zero", "minus one", "min")


def draw_operands(base, rng, scalar="random"):
    """(a, b, k) for arithmetic_kernel(base): integer lanes of any bits, with MIN, -1 and 0
    among v's lanes, and s as *scalar* says; float lanes multiples of 1/4 in [-64, 64] (so that
    // and % are exact in every float type), never zero."""
    dtype = np.dtype(base)
    if dtype.kind == "f":
        quarters = rng.integers(1, 257, 9) * rng.choice([-1, 1], 9)
        values = (quarters / 4.0).astype(dtype)
        return values[:4], values[4:8], values[8:]
    bits = rng.integers(0, 256, 9 * dtype.itemsize, dtype=np.uint8).view(dtype)
    a, b, k = bits[:4].copy(), bits[4:8].copy(), bits[8:].copy()
    info = np.iinfo(dtype)
    a[1], a[2], a[3] = info.min, dtype.type(-1) if dtype.kind == "i" else info.max, 0
    k[0] = {"random": k[0], "zero": 0, "minus one": info.max if dtype.kind == "u" else -1, "min": info.min}[scalar]
    return a, b, k
