"""``cuda.libdevice`` on the GPU: a sample of routines (float and double math, integer
bit functions, conversions, routines with pointer results) against NumPy and Python."""

import math
from fractions import Fraction

import numpy as np
import pytest

from cumlir import cuda

from ...cases import libdevice_kernels as lk
from ...support import poisoned

pytestmark = pytest.mark.gpu

N = 1000
RTOL = {"f": 2e-6, "d": 1e-13}


def _u32(x):
    return int(x) & 0xFFFFFFFF


def _u64(x):
    return int(x) & 0xFFFFFFFFFFFFFFFF


def _signed(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _each(fn, dtype):
    """A reference applying the Python function *fn* to each element's Python scalars."""
    return lambda *xs: np.array([fn(*(x.item() for x in args)) for args in zip(*xs)], dtype=dtype)


def _clz(bits):
    return lambda x: bits - (x & ((1 << bits) - 1)).bit_length()


def _ffs(bits):
    return lambda x: ((x & -x) & ((1 << bits) - 1)).bit_length()


def _brev(bits):
    return lambda x: _signed(int(f"{x & ((1 << bits) - 1):0{bits}b}"[::-1], 2), bits)


def _byte_perm(x, y, s):
    data = (_u32(y) << 32) | _u32(x)
    return _signed(sum(((data >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4)), 32)


def _remquo(x, y):
    r = math.remainder(x, y)
    return r, round((x - r) / y)


# routine -> (reference on the input arrays giving one array per result, inputs (None: random))
POSITIVE = object()
CASES = {
    "sinf": (np.sin, None),
    "cos": (np.cos, None),
    "expm1": (np.expm1, None),
    "cbrtf": (np.cbrt, None),
    "atan2": (np.arctan2, None),
    "hypotf": (np.hypot, None),
    "rsqrt": (lambda x: 1 / np.sqrt(x), POSITIVE),
    "fma": (_each(lambda a, b, c: float(Fraction(a) * Fraction(b) + Fraction(c)), np.float64), None),
    "fdimf": (lambda a, b: np.maximum(a - b, 0), None),
    "popc": (_each(lambda x: bin(_u32(x)).count("1"), np.int32), None),
    "popcll": (_each(lambda x: bin(_u64(x)).count("1"), np.int32), None),
    "clz": (_each(_clz(32), np.int32), None),
    "clzll": (_each(_clz(64), np.int32), None),
    "ffs": (_each(_ffs(32), np.int32), None),
    "ffsll": (_each(_ffs(64), np.int32), None),
    "brev": (_each(_brev(32), np.int32), None),
    "brevll": (_each(_brev(64), np.int64), None),
    "mulhi": (_each(lambda x, y: (int(x) * int(y)) >> 32, np.int32), None),
    "umulhi": (_each(lambda x, y: _signed((_u32(x) * _u32(y)) >> 32, 32), np.int32), None),
    "mul64hi": (_each(lambda x, y: (int(x) * int(y)) >> 64, np.int64), None),
    "umul64hi": (_each(lambda x, y: _signed((_u64(x) * _u64(y)) >> 64, 64), np.int64), None),
    "umax": (_each(lambda x, y: _signed(max(_u32(x), _u32(y)), 32), np.int32), None),
    "llabs": (_each(lambda x: _signed(abs(int(x)), 64), np.int64), None),
    "byte_perm": (_each(_byte_perm, np.int32), None),
    "float2int_rd": (lambda x: np.floor(x).astype(np.int32), None),
    "double2ll_rz": (lambda x: np.trunc(x).astype(np.int64), None),
    "double_as_longlong": (lambda x: x.view(np.int64), None),
    "float_as_int": (lambda x: x.astype(np.float32).view(np.int32), None),
    "float2half_rn": (lambda x: x.astype(np.float16).view(np.int16), None),
    "sincos": (lambda x: (np.sin(x), np.cos(x)), None),
    "sincosf": (lambda x: (np.sin(x), np.cos(x)), None),
    "sincospi": (lambda x: (np.sin(np.pi * x), np.cos(np.pi * x)), None),
    "frexp": (np.frexp, None),
    "frexpf": (np.frexp, None),
    "modf": (np.modf, None),
    "modff": (np.modf, None),
    "remquo": (_each(_remquo, None), None),
}


def _inputs(name, rng):
    ins, _ = lk.inputs_of(name)
    arrays = []
    for letter in ins:
        dtype = lk.DTYPES[letter]
        if np.dtype(dtype).kind == "f":
            low = 0.01 if CASES[name][1] is POSITIVE else -20.0
            arrays.append(rng.uniform(low, 20.0, N).astype(dtype))
        else:
            info = np.iinfo(dtype)
            arrays.append(rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True))
    return arrays


def _expected(name, ins):
    reference = CASES[name][0]
    wide = [x.astype(np.float64) if x.dtype == np.float32 else x for x in ins]
    result = reference(*wide)
    if name == "remquo":  # rows of (remainder, quotient)
        result = (result[:, 0], result[:, 1])
    return result if isinstance(result, tuple) else (result,)


def _check(name, actual, expected, letter):
    if np.dtype(lk.DTYPES[letter]).kind != "f":
        np.testing.assert_array_equal(actual, np.asarray(expected).astype(actual.dtype), err_msg=name)
        return
    assert not np.isnan(actual).any(), f"{name}: elements left unwritten"
    np.testing.assert_allclose(actual, expected, rtol=RTOL[letter], atol=RTOL[letter], err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_routine_matches_the_host(name, rng):
    ins, outs = lk.inputs_of(name)
    args = _inputs(name, rng)
    results = [poisoned(N, lk.DTYPES[letter]) for letter in outs]
    cuda.jit(lk.one_routine(name))[(N + 127) // 128, 128](*args, *results)
    expected = _expected(name, args)
    if name == "remquo":
        # libdevice gives the quotient's sign and at least its 3 low bits (a quotient whose
        # low bits are all zero may come back as 0, without its sign)
        np.testing.assert_allclose(results[0], expected[0], rtol=1e-14, atol=1e-14, err_msg=name)
        q = expected[1].astype(np.int64)
        given = results[1] != 0
        np.testing.assert_array_equal(np.sign(results[1][given]), np.sign(q[given]), err_msg="remquo quotient sign")
        np.testing.assert_array_equal(np.abs(results[1]) & 7, np.abs(q) & 7, err_msg="remquo quotient bits")
        return
    assert len(expected) == len(results)
    for actual, want, letter in zip(results, expected, outs):
        _check(name, actual, want, letter)
