"""cmath on the GPU (operations/python/cmath.py with libdevice's real functions under it):
every function against CPython's in float64 on random values, complex128 and complex64, on
both code generators, and the signed zeros that decide the side of each branch cut."""

import cmath

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from .test_cmath import (
    FUNCTIONS,
    LOG_BASE,
    _check_parts,
    _cut_points,
    _pole_distance,
    _python,
    _raises,
    _random_complex,
    _same_signs,
    every_function,
)

pytestmark = pytest.mark.gpu


def _gpu_run(z, base, backend):
    n = z.size
    out = support.poisoned(n * (LOG_BASE + 1), z.dtype).reshape(LOG_BASE + 1, n)
    parts = support.poisoned(3 * n, z.real.dtype).reshape(3, n)
    flags = np.full((3, n), 7, np.uint8).view(np.bool_)
    cuda.jit(backend=backend)(every_function)[1, 1](out, parts, flags, z, base)
    return out, parts, flags


# libdevice's double routines are within 2 units of the correctly rounded result, its float
# routines within 4: the bounds of the host test, with that room
_ULPS = {"complex128": (8, np.finfo(np.float64).eps), "complex64": (32, float(np.finfo(np.float32).eps))}


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_every_function_agrees_with_cpython(dtype, backend, rng):
    z = _random_complex(rng, 2000, dtype, 2.5 if dtype == "complex128" else 1.9)
    z = z[_pole_distance(z) > 0.25]  # the textbook tan and tanh cancel near their poles
    base = (3.0 * np.exp(1j * rng.uniform(-np.pi, np.pi, z.size)) * 10.0 ** rng.uniform(0, 1, z.size)).astype(dtype)
    out, parts, flags = _gpu_run(z, base, backend)
    ulps, eps = _ULPS[dtype]
    wide = z.astype(np.complex128)
    for row, name in enumerate(FUNCTIONS):
        with np.errstate(over="ignore"):
            expected = _python(getattr(cmath, name), wide).astype(dtype)
        _check_parts(out[row], expected, ulps * (4 if name in ("tan", "tanh") else 1), eps, f"cmath.{name}", z)
    expected = _python(cmath.log, wide, base.astype(np.complex128)).astype(dtype)
    _check_parts(out[LOG_BASE], expected, 4 * ulps, eps, "log(z, b)", z)
    phase = np.array([cmath.phase(v) for v in wide.tolist()])
    r, phi = np.array([cmath.polar(v) for v in wide.tolist()]).T
    for got, expected, label in ((parts[0], phase, "phase"), (parts[1], r, "polar r"), (parts[2], phi, "polar phi")):
        np.testing.assert_allclose(got, expected, rtol=ulps * eps, atol=0, err_msg=label)
    assert not flags[0].any() and not flags[1].any() and flags[2].all()


def test_signed_zeros_keep_the_side_of_each_branch_cut(backend):
    z = _cut_points()
    out, _, _ = _gpu_run(z, z[::-1].copy(), backend)
    eps = np.finfo(np.float64).eps
    for row, name in enumerate(FUNCTIONS):
        fn = getattr(cmath, name)
        keep = np.array([_raises(fn, v) is None for v in z.tolist()])  # CPython raises at log(0), exp(1000)
        expected = _python(fn, z[keep])
        _check_parts(out[row][keep], expected, 8, eps, f"cmath.{name}", z[keep])
        _same_signs(out[row][keep], expected, f"cmath.{name}", z[keep])
