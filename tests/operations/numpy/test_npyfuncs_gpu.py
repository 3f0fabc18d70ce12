"""NumPy ufuncs on the GPU (operations/numpy/npyfuncs.py), what the host's run of the generated
code cannot show: libdevice's routines themselves (the host binds the C library's in their
place) against NumPy within a few ulps, for every ufunc of the module on arrays and scalars of
the float and complex dtypes, and float16 operands (the host's JIT has no float16 conversions)."""

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from .test_npyfuncs import BINARY, UNARY, _binary_values, _check, _outputs, _ufunc_kernel, _unary_values

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("arity", [1, 2])
def test_ufuncs_match_numpy_with_libdevice(arity, dtype, rng):
    kernel, placed, counts = _ufunc_kernel(arity, dtype, True)
    inputs = (_unary_values(dtype, 64, rng),) if arity == 1 else _binary_values(dtype, 64, rng)
    outputs, scalar_outputs = _outputs(dtype, counts, 64), _outputs(dtype, counts, 64)
    cuda.jit(kernel)[1, 1](*outputs, *scalar_outputs, *inputs)  # host outputs come back after the launch
    # products and sums are contracted into fmas on the device (docs/semantics.md): where they
    # cancel (a complex product's parts), the error is relative to the terms, not the result
    _check(placed, outputs, inputs, dtype, "arrays", near_zero=1.0)
    _check(placed, scalar_outputs, inputs, dtype, "scalars", near_zero=1.0)


HALF_UFUNCS = [u for u in UNARY + BINARY if u not in (np.logical_not, np.logical_and, np.logical_or, np.logical_xor)]
HALF_UFUNCS = [u for u in HALF_UFUNCS if u.types and any(t.startswith("e" * u.nin) for t in u.types)]


def _half_kernel():
    source = ["def half(out, x, y):"]
    for row, ufunc in enumerate(HALF_UFUNCS):
        operands = "x" if ufunc.nin == 1 else "x, y"
        source.append(f"    np.{ufunc.__name__}({operands}, out[{row}])")
    namespace = {"np": np}
    exec("\n".join(source) + "\n", namespace)
    return namespace["half"]


# numba-cuda's typing keeps float16 for these (docs/semantics.md): computed in float32, rounded
# once to float16; the others compute in float32 and give float32
_KEEP_FLOAT16 = {np.sin, np.cos, np.exp, np.log, np.log2, np.log10, np.sqrt, np.fabs, np.floor, np.ceil, np.trunc}
_KEEP_FLOAT16 |= {np.tanh, np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.absolute}
_KEEP_FLOAT16 |= {np.nextafter}  # steps one float16 (docs/semantics.md)


def test_float16_ufuncs_are_numpys_within_a_float16_step(rng):
    x = (rng.standard_normal(64) * 4).astype(np.float16)
    y = (rng.standard_normal(64) * 4).astype(np.float16)
    x[:4] = [np.nan, np.inf, -0.0, 0.5]
    out = support.poisoned(len(HALF_UFUNCS) * 64, "float32").reshape(len(HALF_UFUNCS), 64)
    cuda.jit(_half_kernel())[1, 1](out, x, y)
    for row, ufunc in enumerate(HALF_UFUNCS):
        expected = np.empty(64, np.float32)  # NumPy's float16 loop, cast into a float32 out=
        operands = (x, y)[: ufunc.nin]
        if ufunc not in _KEEP_FLOAT16:  # computed and given in float32: NumPy's float32 loop
            operands = tuple(o.astype(np.float32) for o in operands)
        with np.errstate(all="ignore"):
            ufunc(*operands, expected)
        np.testing.assert_allclose(
            out[row],
            expected,
            rtol=np.finfo(np.float16).eps,  # a float32 result is within half a float16 step of it
            atol=np.finfo(np.float16).smallest_subnormal,
            equal_nan=True,
            err_msg=ufunc.__name__,
        )
        if ufunc in _KEEP_FLOAT16:
            finite = out[row][np.isfinite(out[row])]
            np.testing.assert_array_equal(finite, finite.astype(np.float16), err_msg=f"{ufunc.__name__} not rounded")


def _nextafter_into(x, y, out16, out32, scalars):
    np.nextafter(x, y, out16)
    np.nextafter(x, y, out32)
    for i in range(x.size):
        scalars[i] = np.nextafter(x[i], y[i])


def test_float16_nextafter_steps_one_float16(backend):
    # every pair of a grid of specials and ordinary halves, both directions
    specials = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 65504, -65504, 6e-8, -6e-8, 6.1e-5, 1.0, -1.0, 0.333, 1000], np.float16
    )
    x, y = (a.ravel() for a in np.meshgrid(specials, specials))
    # poisoned with a value no step from the grid gives (NaN is an answer here)
    out16, out32, scalars = (np.full(x.size, 7.0, dtype) for dtype in ("float16", "float32", "float32"))
    cuda.jit(_nextafter_into, backend=backend)[1, 1](x, y, out16, out32, scalars)
    # equal operands give y, as C's nextafter and NumPy's from 2.5 do (before, its float16
    # one gave x: they differ on 0 and -0)
    expected = np.where(x == y, y, np.nextafter(x, y))
    np.testing.assert_array_equal(out16, expected)
    np.testing.assert_array_equal(out32, expected.astype(np.float32))
    # a scalar float16 call is typed float32, as numba types it; its value is NumPy's
    np.testing.assert_array_equal(scalars, expected.astype(np.float32))
    assert np.array_equal(np.signbit(out16), np.signbit(expected))
