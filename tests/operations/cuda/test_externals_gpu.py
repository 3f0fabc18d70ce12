"""External device functions on the GPU (operations/cuda/externals.py), on both code generators:
functions of CUDA C++ compiled by NVRTC and linked in, called through Numba's ABI with float64,
int32, float32, int64 and bool arguments and float64 and bool results, against NumPy. The host
tier (test_externals.py) runs the calls against the host's C ABI; this checks that the device's
ABI agrees with the one CUDA C++ compiles to."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.linkable import CUSource

from ... import support

pytestmark = pytest.mark.gpu

SOURCE = CUSource(
    r"""
extern "C" __device__ int cumlir_gpu_affine(double* result, double a, int k, float b) {
    *result = a * k + b;
    return 7;  // a status the caller ignores
}

extern "C" __device__ int cumlir_gpu_odd(bool* result, long long x, bool flip) {
    *result = ((x & 1) != 0) != flip;
    return 7;
}
""",
    name="externals.cu",
)

affine = cuda.declare_device("cumlir_gpu_affine", "float64(float64, int32, float32)", link=[SOURCE])
odd = cuda.declare_device("cumlir_gpu_odd", "boolean(int64, boolean)", link=[SOURCE])


def calls(out, a, k, b, flags, x, flip):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = affine(a[i], k[i], b[i])
        flags[i] = odd(x[i], flip[i])


@pytest.mark.not_simulated("CUDA C++ link items compile for the GPU only")
def test_cuda_cxx_functions_called_through_numbas_abi(backend, rng):
    n = 3000
    a = support.random_values("float64", n, rng)
    k = support.random_values("int32", n, rng)
    b = support.random_values("float32", n, rng)
    x = support.random_values("int64", n, rng)
    flip = rng.integers(0, 2, n).astype(bool)
    kernel = cuda.jit(backend=backend)(calls)
    expected_flags = (x % 2 == 1) ^ flip
    for initial in (True, False):  # a bool has no value a kernel cannot give: both
        out, flags = support.poisoned(n, np.float64), np.full(n, initial)
        kernel[(n + 127) // 128, 128](out, a, k, b, flags, x, flip)
        product = a * k.astype(np.float64)
        # NVRTC may contract a * k + b into one fma
        support.assert_contractible(out, product + b.astype(np.float64), product, b)
        np.testing.assert_array_equal(flags, expected_flags)
