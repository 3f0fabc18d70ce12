"""Numbers on the GPU (operations/python/scalars.py) where the host's JIT cannot run them:
conversions to and from float16 for every type (stored and called; both code generators),
and float() and int() of a bfloat16 (nvptx); against NumPy and ml_dtypes."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir import types as cumlir_types

from ... import support
from .test_scalars import CONVERSION_TYPES, _conversions_of

pytestmark = pytest.mark.gpu


def _kernels(target):
    source = (
        "def convert(half_stored, half_called, out_stored, out_called, a, h):\n"
        "    i = cuda.grid(1)\n"
        "    if i < a.size:\n"
        "        half_stored[i] = a[i]\n"
        "        half_called[i] = np.float16(a[i])\n"
        "        out_stored[i] = h[i]\n"
        f"        out_called[i] = {'bool' if target == 'bool' else 'np.' + target}(h[i])\n"
    )
    scope = {"cuda": cuda, "np": np}
    exec(compile(source, f"<convert_{target}>", "exec"), scope)
    return scope["convert"]


@pytest.mark.parametrize("other", CONVERSION_TYPES)
def test_float16_conversions(other, backend, rng):
    a = np.concatenate([support.boundary_values(other), support.random_values(other, 300, rng)])
    h = np.concatenate(
        [[0.0, -0.0, 0.5, -1.5, 65504.0, -65504.0, 6e-8, np.inf, -np.inf, np.nan], rng.standard_normal(300) * 300]
    )
    h = np.resize(h, a.size).astype(np.float16)
    half_stored, half_called = support.poisoned(a.size, np.float16), support.poisoned(a.size, np.float16)
    out_stored, out_called = support.poisoned(a.size, other), support.poisoned(a.size, other)
    cuda.jit(backend=backend)(_kernels(other))[(a.size + 127) // 128, 128](
        half_stored, half_called, out_stored, out_called, a, h
    )
    with np.errstate(all="ignore"):
        to_half = a.astype(np.float16)  # to nearest even, once (from float64 too)
        from_half = h.astype(other)
    support.assert_matches(half_stored, to_half, f"{other} -> float16 (stored)")
    support.assert_matches(half_called, to_half, f"{other} -> float16 (called)")
    keep = np.ones(a.size, bool)
    if np.dtype(other).kind in "iu":
        info = np.iinfo(other)  # truncated toward zero where it fits
        with np.errstate(invalid="ignore"):
            wide = h.astype(np.float64)
            keep = np.isfinite(wide) & (wide > float(info.min) - 1) & (wide < float(info.max) + 1)
    support.assert_matches(out_stored[keep], from_half[keep], f"float16 -> {other} (stored)")
    support.assert_matches(out_called[keep], from_half[keep], f"float16 -> {other} (called)")


def test_float_and_int_of_a_bfloat16(rng):
    # on the nvptx code generator: the nvvm one takes bfloat16 from sm_100 only (semantics.md)
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.concatenate([[0.0, -0.0, 1.5, -2.75, 0.4, -0.6, 3.0e38], rng.standard_normal(300) * 100]).astype(np.float32)
    converted, stored, truncated = np.full(a.size, np.nan), np.full(a.size, np.nan), np.full(a.size, 0x5A, np.int64)
    kernel = _conversions_of(cumlir_types.bfloat16)
    cuda.jit(backend="nvptx")(kernel)[1, 1](converted, stored, truncated, a)
    expected = a.astype(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_array_equal(stored, expected)
    np.testing.assert_array_equal(converted, expected)  # float(x): float64
    finite = np.isfinite(expected) & (np.abs(expected) < 2.0**63)
    np.testing.assert_array_equal(truncated[finite], np.trunc(expected[finite]).astype(np.int64))  # int(x)
