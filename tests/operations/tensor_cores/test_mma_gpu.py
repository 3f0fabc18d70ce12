"""The warp's matrix multiply-accumulate on the GPU (operations/tensor_cores/mma.py), on both
code generators: every shape and element type of mma_sync against NumPy's float64 product (the
fragments gathered and scattered by the layouts of docs/tensor_cores.md, so a wrong layout or
packing fails too) and satfinite. ldmatrix and stmatrix are test_ldmatrix_gpu.py's."""

import ml_dtypes
import numpy as np
import pytest

from cumlir import cuda, types

from ...cases import tensor_core_kernels as tk
from ...support import poisoned

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("tensor-core operations have no host form")]


def _needs(cc):
    if cuda.get_current_device().compute_capability < cc:
        pytest.skip(f"needs sm_{cc[0]}{cc[1]}")


def _skip_bfloat16_arrays_on_nvvm(backend, dtype):
    if backend == "nvvm" and dtype == types.bfloat16:
        pytest.skip("arrays of bfloat16 need backend='nvptx' below sm_100")


def _as_tf32(x):
    # the float32 values a tf32 holds: the 13 low significand bits zero
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def _tile(rng, dtype, rows, cols):
    """A host tile whose values the element type holds exactly (tf32 tiles are float32 arrays)."""
    name = str(dtype)
    if name in ("int8", "uint8"):
        info = np.iinfo(name)
        return rng.integers(info.min, info.max + 1, (rows, cols)).astype(name)
    if name == "int32":
        return rng.integers(-(2**20), 2**20, (rows, cols)).astype(np.int32)
    values = rng.standard_normal((rows, cols))
    if name in ("float32", "tf32"):
        return _as_tf32(values) if name == "tf32" else values.astype(np.float32)
    host = {"bfloat16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}
    return values.astype(host.get(name, name))


def _tolerance(a_dtype, c_dtype, k):
    # the tensor cores' float32 sums are not IEEE's (the addends aligned with truncation; float8
    # products summed with fewer bits still): wide enough for that, far below a misplaced element
    if str(c_dtype) == "float64":
        return {"rtol": 1e-12, "atol": 1e-12}
    if str(c_dtype) == "float16":
        return {"rtol": 2e-3, "atol": 2e-3 * np.sqrt(k)}
    if str(a_dtype).startswith("f8"):
        return {"rtol": 2e-3, "atol": 3e-3 * np.sqrt(k)}
    return {"rtol": 1e-4, "atol": 1e-4 * np.sqrt(k)}


@pytest.mark.parametrize("case", tk.CASES, ids=tk.case_id)
def test_mma_matches_numpy(backend, rng, case):
    shape, a_dtype, b_dtype, c_dtype = case
    _needs((8, 9) if str(a_dtype).startswith("f8") else (8, 0))
    _skip_bfloat16_arrays_on_nvvm(backend, a_dtype)
    m, n, k = tk.dims(shape)
    # float32 inputs of the tf32 mma are given as tf32 values: the tensor cores read no more of them
    a = _tile(rng, types.tf32 if a_dtype == types.float32 else a_dtype, m, k)
    b = _tile(rng, types.tf32 if b_dtype == types.float32 else b_dtype, k, n)
    c = _tile(rng, c_dtype, m, n)
    d = poisoned(m * n, np.dtype(str(c_dtype))).reshape(m, n)
    where = [tk.fragment_layout(shape, a_dtype, operand) for operand in "abc"]
    kernel = cuda.jit(backend=backend)(tk.mma_kernel(shape, a_dtype, b_dtype, c_dtype))
    kernel[1, 32](a, b, c, d, *where)
    expected = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
    if str(c_dtype) == "int32":
        np.testing.assert_array_equal(d, expected.astype(np.int64))
    else:
        np.testing.assert_allclose(d.astype(np.float64), expected, **_tolerance(a_dtype, c_dtype, k))


def test_satfinite_clamps_instead_of_wrapping(backend):
    _needs((8, 0))
    kernel = cuda.jit(backend=backend)(tk.saturating_product)
    a = np.full(32 * 16, 127, np.int8)
    b = np.full(32 * 8, 127, np.int8)
    c = np.full(32 * 4, 2**31 - 1000, np.int32)  # plus 32 * 127 * 127 overflows int32
    d = poisoned(32 * 4, np.int32)
    kernel[1, 32](d, a, b, c)
    np.testing.assert_array_equal(d, np.full(32 * 4, 2**31 - 1, np.int32))
