"""Conversions called through NumPy scalar types (``np.int8(x)``) on the GPU, for every
pair of scalar types (the differential test covers operators and builtins)."""

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import scalar_kernels

pytestmark = pytest.mark.gpu

CONVERSION_TARGETS = support.SCALAR_TYPES


@pytest.mark.parametrize("source", support.SCALAR_TYPES)
@pytest.mark.parametrize("target", CONVERSION_TARGETS)
def test_conversion(source, target, rng):
    values = np.concatenate([support.boundary_values(source), support.random_values(source, 400, rng)])
    target_dtype = np.dtype(target)
    if np.dtype(source).kind == "f" and target_dtype.kind in "iu":
        # float -> int is defined only for values that fit the target
        info = np.iinfo(target_dtype)
        with np.errstate(invalid="ignore"):
            fits = np.isfinite(values) & (values >= info.min) & (values < float(info.max) + 1)
        values = values[fits]
    with np.errstate(all="ignore"):
        expected = values.astype(target_dtype)
    out = support.poisoned(len(values), target_dtype)
    kernel = cuda.jit(scalar_kernels.conversion_kernel(target))
    kernel[(len(values) + 127) // 128, 128](values, out)
    support.assert_matches(out, expected, f"{source} -> {target}")
