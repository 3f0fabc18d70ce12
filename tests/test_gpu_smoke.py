import numpy as np
import pytest

from cumlir import cuda

pytestmark = pytest.mark.gpu


@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


def test_vadd_numpy(rng):
    n = 1000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.full(n, np.nan, np.float32)
    vadd[(n + 127) // 128, 128](a, b, c)
    np.testing.assert_array_equal(c, a + b)
