"""The ``math`` module on the GPU (operations/python/math.py): libdevice's results against
NumPy in float64, for float64, float32 and int64 arguments on both code generators, within the
units in the last place CUDA documents for each routine (exact where IEEE defines the result);
float16, computed in float32 and rounded once, on every finite float16; pow with an int32
exponent (libdevice's powi)."""

import math

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from ...cases import math_cases
from .test_math import (
    BINARY,
    EXACT,
    PREDICATES,
    ROW_FREXP,
    ROW_MODF,
    ROWS,
    UNARY,
    _operands,
    _reference,
    _within,
    every_math,
    integer_powers,
)

pytestmark = pytest.mark.gpu

# units in the last place beyond the reference's rounding (CUDA's documented maximum errors,
# with room for the float64 reference being rounded to float32)
_ULPS = {
    "float64": {"erfc": 8, "gamma": 16, "lgamma": 8},
    "float32": {
        "tan": 8,
        "acosh": 8,
        "asinh": 8,
        "atanh": 8,
        "sinh": 8,
        "erfc": 8,
        "gamma": 16,
        "lgamma": 16,
        "pow": 8,
    },
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_libdevice_results_agree_with_numpy(dtype, backend, rng):
    a, b, c, n = _operands(dtype, rng)
    result = np.float32 if dtype == "float32" else np.float64
    out = support.poisoned(ROWS * a.size, result).reshape(ROWS, a.size)
    ints = np.full((1, a.size), 0x5A5A, np.int32)
    flags = np.full((len(PREDICATES), a.size), 7, np.uint8).view(np.bool_)
    cuda.jit(backend=backend)(every_math)[1, 1](out, ints, flags, a, b, c, n)
    bounds = _ULPS["float32" if dtype == "float32" else "float64"]
    for row, name in enumerate(UNARY + BINARY):
        expected = _reference(name, a, c if name == "pow" else b, result)
        if name in EXACT:
            _within(out[row], expected, 0, f"math.{name}", a)
        else:
            floor = 1.0 if name == "lgamma" else None  # absolute near its zeros
            _within(out[row], expected, bounds.get(name, 4), f"math.{name}", a, scale_floor=floor)
    mantissa, exponent = np.frexp(a.astype(result))
    _within(out[ROW_FREXP], mantissa, 0, "frexp", a)
    finite = np.isfinite(a.astype(result))
    np.testing.assert_array_equal(ints[0][finite], exponent[finite])
    fraction, whole = np.modf(a.astype(result))
    _within(out[ROW_MODF], fraction, 0, "modf fraction", a)
    _within(out[ROW_MODF + 1], whole, 0, "modf whole", a)
    with np.errstate(over="ignore"):
        _within(out[ROW_MODF + 2], np.ldexp(a.astype(result), n), 0, "ldexp", a)
    for row, name in enumerate(PREDICATES):
        np.testing.assert_array_equal(flags[row], getattr(np, name)(a), err_msg=name)


def _half_kernel():
    lines = [f"        out[{k}, i] = math.{name}(a[i])" for k, name in enumerate(math_cases.UNARY_HALF)]
    source = "def half_every(out, a):\n    i = cuda.grid(1)\n    if i < a.size:\n" + "\n".join(lines) + "\n"
    scope = {"math": math, "cuda": cuda}
    exec(compile(source, "<half_every>", "exec"), scope)
    return scope["half_every"]


half_every = _half_kernel()
CORRECTLY_ROUNDED = {"sqrt", "fabs", "floor", "ceil", "trunc"}


def test_float16_rounds_the_float32_result_once(backend):
    a = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    a = a[np.isfinite(a)]
    out = support.poisoned(len(math_cases.UNARY_HALF) * a.size, np.float16).reshape(-1, a.size)
    cuda.jit(backend=backend)(half_every)[(a.size + 255) // 256, 256](out, a)
    wide = a.astype(np.float64)
    for row, name in enumerate(math_cases.UNARY_HALF):
        with np.errstate(all="ignore"):
            exact = _reference(name, wide, wide, np.float64)
            rounded = exact.astype(np.float16)
        got = out[row]
        if name in CORRECTLY_ROUNDED:
            np.testing.assert_array_equal(got, rounded, err_msg=name)
            continue
        # within one float16 ulp of the exact value (float32's routine, rounded once)
        with np.errstate(all="ignore"):
            ulp = np.spacing(np.abs(rounded)).astype(np.float64)
            ok = (
                (got == rounded) | (np.isnan(got) & np.isnan(rounded)) | (np.abs(got.astype(np.float64) - exact) <= ulp)
            )
        bad = np.flatnonzero(~ok)
        assert not len(bad), f"{name}: " + ", ".join(f"f({a[k]!r}) = {got[k]!r}, exact {exact[k]!r}" for k in bad[:5])


def test_pow_with_an_int32_exponent(backend, rng):
    x = np.concatenate([rng.standard_normal(500) * 2, [2.0, 0.5, -1.0, 0.0, 10.0]])
    n = np.concatenate([rng.integers(-40, 40, 500), [10, -3, 7, 3, -2]]).astype(np.int32)
    out32, out64 = support.poisoned(x.size, np.float32), support.poisoned(x.size, np.float64)
    cuda.jit(backend=backend)(integer_powers)[1, 1](out32, out64, x.astype(np.float32), x, n)
    with np.errstate(all="ignore"):
        exact64 = np.power(x, n.astype(np.float64))
        exact32 = np.power(x.astype(np.float32).astype(np.float64), n.astype(np.float64))
    # libdevice's powi squares repeatedly: a rounding per squaring and product
    bound = 2 * np.maximum(np.abs(n), 1)
    _within(out64, exact64, bound.max(), "powi", x)
    with np.errstate(over="ignore"):
        _within(out32, exact32.astype(np.float32), bound.max(), "powif", x)
