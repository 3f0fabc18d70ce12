"""Complex numbers ordered as NumPy orders them (real part, then imaginary part; NaN
compares false): np.less/less_equal/greater/greater_equal, np.maximum/minimum (NaN
propagates) and np.fmax/fmin (NaN ignored), on scalars and on arrays."""

import numpy as np
import pytest

from cumlir import cuda

from . import support

UFUNCS = [np.less, np.less_equal, np.greater, np.greater_equal, np.maximum, np.minimum, np.fmax, np.fmin]


def _kernel(ufunc):
    def kernel(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = ufunc(a[i], b[i])

    return kernel


def _arrays_kernel(ufunc):
    def kernel(a, b, out):
        c = ufunc(a, b)  # a new array
        for i in range(out.size):
            out[i] = c[i]

    return kernel


@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_complex_ordering_compiles(ufunc, backend):
    result = "boolean" if ufunc in UFUNCS[:4] else "complex128"
    sig = f"void(complex64[::1], complex128[::1], {result}[::1])"
    for make in (_kernel, _arrays_kernel):
        ptx, _ = cuda.compile_ptx(make(ufunc), sig, cc=(9, 0), backend=backend)
        if make is _kernel:
            support.ptxas(ptx, "sm_90")


def _operands(rng, n=512):
    parts = rng.integers(-2, 3, size=(4, n)).astype(np.float64)  # many equal parts: ties to break
    parts[:, rng.integers(0, n, 40)] = np.nan
    a = (parts[0] + 1j * parts[1]).astype(np.complex64)
    b = parts[2] + 1j * parts[3]
    return a, b


@pytest.mark.gpu
@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_complex_ordering_matches_numpy(ufunc, backend):
    a, b = _operands(np.random.default_rng(11))
    expected = ufunc(a.astype(np.complex128), b)
    poison = ~expected if expected.dtype == np.bool_ else np.full(a.size, 99 + 99j)
    out = cuda.to_device(poison)
    cuda.jit(backend=backend)(_kernel(ufunc))[4, 128](cuda.to_device(a), cuda.to_device(b), out)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
    whole = cuda.to_device(poison)
    cuda.jit(backend=backend)(_arrays_kernel(ufunc))[1, 1](cuda.to_device(a), cuda.to_device(b), whole)
    np.testing.assert_array_equal(whole.copy_to_host(), expected)
