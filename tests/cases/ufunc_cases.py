"""GPU ufuncs used by both tiers (test_ufuncs.py compiles their kernels to PTX, test_gpu_ufuncs.py
runs them), each with a NumPy reference."""

import numpy as np

from cumlir import cuda

# every numeric dtype Numba-CUDA's ufuncs take (float16 included), and bool
INTEGER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]
COMPLEX_DTYPES = ["complex64", "complex128"]
NUMERIC_DTYPES = INTEGER_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES


def _twice_plus(a, b):
    return a + a + b


# one signature per numeric dtype: a + a + b, wrapping (integers) or rounded (floats) to the
# dtype; a + a is exact, so the result is (2a + b) rounded once, however wide numba computes
twice_plus = cuda.vectorize([f"{t}({t}, {t})" for t in NUMERIC_DTYPES])(_twice_plus)


def twice_plus_reference(a, b):
    with np.errstate(over="ignore", invalid="ignore"):
        return a + a + b


@cuda.vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"])
def fused(x, y, z):
    return x * y + z


def check_fused(result, x, y, z, dtype):
    """*result* is x * y + z in *dtype*: within two roundings of the exact value (the product
    and the sum rounded, or one rounding where a code generator contracts them to an FMA)."""
    x, y, z = (np.asarray(v, np.float64) for v in (x, y, z))
    exact = x * y + z
    bound = 2 * np.finfo(dtype).eps * (np.abs(x * y) + np.abs(z))
    result = np.asarray(result)
    assert result.dtype == np.dtype(dtype), result.dtype
    error = np.abs(result.astype(np.float64) - exact)
    assert np.all(error <= bound), f"x * y + z off by up to {error.max()} (allowed {bound.max()})"


@cuda.vectorize(["boolean(int64, int64)", "boolean(float64, float64)"])
def less(a, b):
    return a < b


@cuda.vectorize
def lazy_hypot(a, b):
    return (a * a + b * b) ** 0.5


@cuda.guvectorize(
    ["void(float32[:,:], float32[:,:], float32[:,:])", "void(float64[:,:], float64[:,:], float64[:,:])"],
    "(m,n),(n,p)->(m,p)",
)
def matmul(a, b, c):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0.0  # float64 accumulation, rounded once when stored
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc


@cuda.guvectorize(["void(float64[:], float64[:], float64[:])", "void(int64[:], int64[:], int64[:])"], "(n),(n)->()")
def dot(a, b, out):
    acc = 0  # int64 for int64 operands, float64 once a float64 is added
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


@cuda.guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")
def scaled(a, s, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * s


def checked_quotient(a, b):
    assert a >= 0  # a branch and a raise site in the function each element calls
    return a // b


sum_reduce = cuda.reduce(lambda a, b: a + b)


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)
