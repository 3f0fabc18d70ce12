"""Complex numbers on the GPU (operations/python/complexes.py): what libdevice computes, abs
(its hypot) and powers of non-integral exponents (its pow, atan2, exp, log, cos, sin),
against CPython in float64 on random values; complex64(re, im) and complex128(re, im)
against NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from .test_complexes import from_parts

pytestmark = pytest.mark.gpu


def abs_and_power(out, magnitude, a, b):
    i = cuda.grid(1)
    if i < a.size:
        magnitude[i] = abs(a[i])
        out[i] = a[i] ** b[i]


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_abs_and_powers_agree_with_cpython(dtype, backend, rng):
    n = 2000
    a = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3).astype(dtype)
    b = (rng.uniform(-4, 4, n) + 1j * rng.uniform(-2, 2, n)).astype(dtype)
    b[::3] = np.round(b[::3].real)  # integral exponents too: repeated squaring
    out = support.poisoned(n, dtype)
    magnitude = support.poisoned(n, a.real.dtype)
    cuda.jit(backend=backend)(abs_and_power)[(n + 127) // 128, 128](out, magnitude, a, b)
    eps = np.finfo(a.real.dtype).eps
    wide_a, wide_b = a.astype(np.complex128).tolist(), b.astype(np.complex128).tolist()
    np.testing.assert_allclose(magnitude, np.abs(np.array(wide_a)).astype(a.real.dtype), rtol=2 * eps, atol=0)
    # complex64 computes its power in double precision and rounds once; complex128 is within
    # a few units of libdevice's routines (and of contraction of the products into fmas)
    expected = np.array([x**y for x, y in zip(wide_a, wide_b)])
    ulps = 2 if dtype == "complex64" else 64
    scale = np.abs(expected)
    for part in (np.real, np.imag):
        difference = np.abs(part(out).astype(np.float64) - part(expected).astype(np.float64))
        assert (difference <= ulps * eps * scale).all(), part.__name__


@pytest.mark.gpu
def test_complex_constructors_match_numpy(rng):
    n = 500
    re, im = rng.standard_normal(n), rng.integers(-50, 50, n).astype(np.int32)
    out64, out128 = support.poisoned(n, np.complex64), support.poisoned(n, np.complex128)
    cuda.jit(from_parts)[(n + 127) // 128, 128](re, im, out64, out128)
    np.testing.assert_array_equal(out64, (re + 1j * im).astype(np.complex64))
    np.testing.assert_array_equal(out128, re + 2j)
