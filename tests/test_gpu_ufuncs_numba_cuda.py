"""GPU ufuncs against numba-cuda's, where numba-cuda is installed and works: the same
functions and signatures give the same bits (vectorize over every numeric dtype, dot as a
guvectorize, reductions of integers)."""

import numpy as np
import pytest

from . import support
from .cases import ufunc_cases as cases

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", cases.NUMERIC_DTYPES)
def test_vectorize_same_bits(dtype, rng, numba_cuda_usable):
    ncuda = support.import_numba_cuda()
    theirs = ncuda.vectorize([f"{dtype}({dtype}, {dtype})"])(cases.twice_plus.py_func)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        a, b = (rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, 1000, dtype=dtype, endpoint=True) for _ in "ab")
    else:
        a, b = (rng.standard_normal(1000).astype(dtype) for _ in "ab")
    ours = cases.twice_plus(a, b)
    np.testing.assert_array_equal(ours.view(np.uint8), np.asarray(theirs(a, b)).view(np.uint8))


def test_guvectorize_dot_same_bits(rng, numba_cuda_usable):
    ncuda = support.import_numba_cuda()
    theirs = ncuda.guvectorize(["void(int64[:], int64[:], int64[:])"], "(n),(n)->()")(cases.dot.py_func)
    a, b = rng.integers(-1000, 1000, (64, 17)), rng.integers(-1000, 1000, (64, 17))
    np.testing.assert_array_equal(cases.dot(a, b), np.asarray(theirs(a, b)))


@pytest.mark.parametrize("n", [1, 300, 100_000])
def test_reduce_same_result(n, rng, numba_cuda_usable):
    ncuda = support.import_numba_cuda()
    theirs = ncuda.reduce(cases.max_reduce._functor)
    x = rng.integers(-(2**40), 2**40, n)
    assert cases.max_reduce(x) == theirs(x)  # init=0 takes part in both
    assert cases.max_reduce(x, init=-(2**41)) == theirs(x, init=-(2**41))
