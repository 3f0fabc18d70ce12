"""Builtins on the GPU (operations/python/builtins.py) where the host cannot run them:
float16 operands (``max``/``min`` by Python's rule, ``abs``, ``round``, ``int``, ``divmod``
computed in float32), and the NaN rule of two float32/float64 operands on the chip's own
max/min instructions; both code generators, against Python."""

import math

import numpy as np
import pytest

from cumlir import cuda

from ... import support

pytestmark = pytest.mark.gpu

HALF_SPECIALS = np.array(
    [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 65504.0, -65504.0, 6.1e-5, np.inf, -np.inf, np.nan], np.float16
)


def half_builtins(halves, singles, integers, a, b):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        halves[0, i] = max(x, y)
        halves[1, i] = min(x, y)
        halves[2, i] = max(y, x, y)
        singles[0, i] = abs(x)
        q, r = divmod(x, y)
        singles[1, i] = q
        singles[2, i] = r
        singles[3, i] = round(x, 1)
        if not math.isinf(x) and not math.isnan(x):
            integers[0, i] = round(x)
            integers[1, i] = int(x)


def _half_operands(rng, n=500):
    a = np.concatenate(
        [np.repeat(HALF_SPECIALS, HALF_SPECIALS.size), (rng.standard_normal(n) * 100).astype(np.float16)]
    )
    b = np.concatenate([np.tile(HALF_SPECIALS, HALF_SPECIALS.size), (rng.standard_normal(n) * 10).astype(np.float16)])
    return a, b


def _same(got, expected, label):
    got, expected = np.asarray(got), np.asarray(expected, got.dtype)
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    assert same.all(), f"{label}: " + ", ".join(
        f"[{k}] got {got[k]!r} expected {expected[k]!r}" for k in np.flatnonzero(~same)[:5]
    )


def test_float16_builtins(backend, rng):
    a, b = _half_operands(rng)
    n = a.size
    halves = support.poisoned(3 * n, np.float16).reshape(3, n)
    singles = support.poisoned(4 * n, np.float32).reshape(4, n)
    integers = support.poisoned(2 * n, np.int64).reshape(2, n)
    cuda.jit(backend=backend)(half_builtins)[(n + 127) // 128, 128](halves, singles, integers, a, b)
    x, y = a.astype(np.float64).tolist(), b.astype(np.float64).tolist()
    # Python's rule, not fmax: the first value is kept unless a later one compares better
    _same(halves[0], [max(p, q) for p, q in zip(x, y)], "max")
    _same(halves[1], [min(p, q) for p, q in zip(x, y)], "min")
    _same(halves[2], [max(q, p, q) for p, q in zip(x, y)], "max of three")
    _same(singles[0], np.abs(a.astype(np.float32)), "abs")
    # divmod computes in float32 (numba's typing): CPython's algorithm there
    nonzero = b != 0
    expected = np.array([divmod(p, q) for p, q in zip(np.array(x)[nonzero].tolist(), np.array(y)[nonzero].tolist())])
    with np.errstate(over="ignore"):
        quotient, remainder = expected[:, 0].astype(np.float32), expected[:, 1].astype(np.float32)
    _same(singles[2][nonzero], remainder, "remainder")
    small = ~(np.abs(quotient) > 2**24)
    _same(singles[1][nonzero][small], quotient[small], "quotient")
    np.testing.assert_allclose(singles[1][nonzero][~small], quotient[~small], rtol=np.finfo(np.float32).eps)
    with np.errstate(all="ignore"):
        _same(
            singles[1][~nonzero], (a[~nonzero].astype(np.float32) / b[~nonzero].astype(np.float32)), "quotient by zero"
        )
    assert np.isnan(singles[2][~nonzero]).all()
    _same(singles[3], np.round(a.astype(np.float64), 1).astype(np.float32), "round(x, 1)")
    finite = np.isfinite(a)
    _same(integers[0][finite], [round(v) for v in a[finite].astype(np.float64).tolist()], "round")
    _same(integers[1][finite], [int(v) for v in a[finite].astype(np.float64).tolist()], "int")


def fmax_fmin(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = max(a[i], b[i])
        out[1, i] = min(a[i], b[i])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_two_floats_ignore_one_nan(dtype, backend, rng):
    specials = support.boundary_values(dtype)
    a = np.concatenate([np.repeat(specials, specials.size), support.random_values(dtype, 300, rng)])
    b = np.concatenate([np.tile(specials, specials.size), support.random_values(dtype, 300, rng)])
    out = support.poisoned(2 * a.size, dtype).reshape(2, a.size)
    cuda.jit(backend=backend)(fmax_fmin)[(a.size + 127) // 128, 128](out, a, b)
    _same(out[0], np.fmax(a, b), "max")  # C's fmax: NaN only if both are
    _same(out[1], np.fmin(a, b), "min")
