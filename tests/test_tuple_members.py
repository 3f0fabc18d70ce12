"""Tuples with complex members, which an LLVM struct cannot hold (MLIR's complex type is
not the LLVM dialect's): held as separate values, built in kernels, returned by device
functions and unpacked, run on the host (nrt_harness.py) and compared with Python."""

import numpy as np
import pytest
from numba import typeof

from cumlir import cuda

from . import nrt_harness, support


@cuda.jit(device=True)
def _pair_and_product(x, z):
    return (x, z * x, (z.conjugate(), x + 1.0))


def _kernel(a, z, out_real, out_complex):
    x, product, (conjugate, successor) = _pair_and_product(a[0], z[0])
    out_real[0] = x + successor
    out_complex[0] = product
    out_complex[1] = conjugate


@pytest.mark.parametrize("real, complex_", [(np.float64, np.complex128), (np.float32, np.complex64)])
def test_a_device_function_returns_complex_members_of_nested_tuples(real, complex_):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(1).astype(real)
    z = (rng.standard_normal(1) + 1j * rng.standard_normal(1)).astype(complex_)
    out_real = np.full(1, np.nan, real)
    out_complex = np.full(2, np.nan, complex_)
    argtypes = tuple(typeof(v) for v in (a, z, out_real, out_complex))
    nrt_harness.Kernel(_kernel, argtypes)(a, z, out_real, out_complex)
    assert out_real[0] == real(a[0] + (a[0] + real(1.0)))
    np.testing.assert_allclose(out_complex, [z[0] * a[0], np.conj(z[0])], rtol=4 * np.finfo(real).eps)
    ptx, _ = cuda.compile_ptx(_kernel, argtypes, cc=(9, 0))
    support.ptxas(ptx)
