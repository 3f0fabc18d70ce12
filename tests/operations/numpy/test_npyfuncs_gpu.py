"""NumPy ufuncs on the GPU (operations/numpy/npyfuncs.py), what the host's run of the generated
code cannot show: libdevice's routines themselves (the host binds the C library's in their
place) against NumPy within a few ulps, for every ufunc of the module on arrays and scalars of
the float and complex dtypes, and float16 operands (computed in float32, as numba types them;
the host's JIT has no float16 conversions)."""

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


def test_float16_ufuncs_compute_in_float32(rng):
    x = (rng.standard_normal(64) * 4).astype(np.float16)
    y = (rng.standard_normal(64) * 4).astype(np.float16)
    x[:4] = [np.nan, np.inf, -0.0, 0.5]
    out = support.poisoned(len(HALF_UFUNCS) * 64, "float32").reshape(len(HALF_UFUNCS), 64)
    cuda.jit(_half_kernel())[1, 1](out, x, y)
    wide_x, wide_y = x.astype(np.float32), y.astype(np.float32)
    for row, ufunc in enumerate(HALF_UFUNCS):
        with np.errstate(all="ignore"):
            expected = ufunc(wide_x) if ufunc.nin == 1 else ufunc(wide_x, wide_y)
        np.testing.assert_allclose(
            out[row],
            expected.astype(np.float32),
            rtol=16 * np.finfo(np.float32).eps,
            equal_nan=True,
            err_msg=ufunc.__name__,
        )
