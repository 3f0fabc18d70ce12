"""np.where, np.clip and np.dot on the GPU (operations/numpy/arrayfunctions.py), what the
host's run of the generated code cannot show: debug=True's ValueError for dot products of
arrays of different lengths raised on the host after the launch, and float16 operands (the
host's JIT has no float16 conversions), compared with NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from ...cases import array_method_kernels as am

pytestmark = pytest.mark.gpu


def test_dot_of_arrays_of_different_lengths_raises_with_debug():
    """(moved from tests/operations/numpy/test_arraymethods.py)"""
    kernel = cuda.jit(debug=True, nrt=True)(am.dot_1d)
    with pytest.raises(ValueError, match="not aligned"):
        kernel[1, 1](np.zeros(4), np.ones(6), np.ones(7))


@cuda.jit(nrt=True)
def _half(where, clipped, dots, c, x, y):
    where[...] = np.where(c, x, y)
    clipped[...] = np.clip(x, y, 2.5)
    dots[0] = np.dot(x[0], y)
    dots[1] = x[1] @ y


def test_float16_operands_match_numpy(rng):
    c = am.values("bool", (3, 6), rng)
    x = am.values("float16", (3, 6), rng, -8, 8, integral=True)  # whole numbers: exact dot products
    y = am.values("float16", (6,), rng, -8, 8, integral=True)
    x[0, 0] = np.nan  # NaN propagates through clip
    expected = [np.where(c, x, y), np.clip(x, y, 2.5), np.array([np.dot(x[0], y), x[1] @ y])]
    outputs = [support.poisoned(e.size, e.dtype).reshape(e.shape) for e in expected]
    _half[1, 1](*outputs, c, x, y)
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
