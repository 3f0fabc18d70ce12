"""The extension API on the GPU: the docs page's examples and one kernel per high-level
decorator, compared with NumPy."""

import numpy as np
import pytest

from .cases import extension_kernels as ek
from .support import poisoned

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("flag, expected", [(1, 42), (0, 99)])
def test_boxed_int_example(flag, expected):
    out = poisoned(1, np.int64)
    ek.boxed_kernel[1, 1](np.array([flag], np.int64), out)
    assert out[0] == expected


def test_struct_from_record_dtype(rng):
    n = 1000
    points = np.zeros(n, ek.Point.dtype)
    points["x"] = rng.uniform(-10, 10, n).astype(np.float32)
    points["y"] = rng.uniform(-10, 10, n).astype(np.float32)
    out = np.full((n, 2), np.nan, np.float32)
    ek.struct_kernel[(n + 127) // 128, 128](points, out)
    np.testing.assert_array_equal(out, ek.struct_reference(points))


def _run(kernel, a):
    out = poisoned(a.size, np.float32)
    kernel[(a.size + 127) // 128, 128](a, out)
    return out


def test_overload_of_a_new_function(rng):
    a = rng.uniform(-0.5, 1.5, 777).astype(np.float32)
    np.testing.assert_allclose(_run(ek.overload_kernel, a), ek.smoothstep_reference(a), rtol=1e-6)


def test_overload_method_on_arrays(rng):
    a = rng.standard_normal(777).astype(np.float32)
    np.testing.assert_allclose(_run(ek.method_kernel, a), a.astype(np.float64) * 3.0, rtol=1e-6)


def test_register_jitable(rng):
    a = rng.standard_normal(777).astype(np.float32)
    np.testing.assert_array_equal(_run(ek.jitable_kernel, a), a * a)


def test_intrinsic_emitting_an_nvvm_op(rng):
    a = rng.uniform(0.25, 8.0, 777).astype(np.float32)
    np.testing.assert_allclose(_run(ek.intrinsic_kernel, a), np.float32(1.0) / a, rtol=1e-6)


def test_high_level_tiers_mixed(rng):
    a = rng.uniform(0.25, 2.0, 777).astype(np.float32)
    expected = ek.smoothstep_reference(a) + a.astype(np.float64) * 2.0 + (a * a) + 1.0 / a.astype(np.float64)
    np.testing.assert_allclose(_run(ek.high_level_kernel, a), expected.astype(np.float32), rtol=1e-5)
