"""GPU ufuncs on the GPU against NumPy: cuda.vectorize over 1-d to 4-d operands of every
numeric dtype, broadcasting, strided views, scalars, host, device, CuPy and PyTorch operands,
out= and stream=; cuda.guvectorize matmul and dot; cuda.reduce sum and max with init."""

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import ufunc_cases as cases

pytestmark = pytest.mark.gpu

SHAPES = [(37,), (5, 7), (3, 4, 5), (2, 3, 4, 5)]


def _values(dtype, shape, rng):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)
    if dtype.kind == "c":
        parts = rng.standard_normal((2, n)) * 100
        return (parts[0] + 1j * parts[1]).astype(dtype).reshape(shape)
    return (rng.standard_normal(n) * 100).astype(dtype).reshape(shape)  # float16 stays finite


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
@pytest.mark.parametrize("dtype", cases.NUMERIC_DTYPES)
def test_vectorize_every_dtype_and_rank(dtype, shape, rng):
    a, b = _values(dtype, shape, rng), _values(dtype, shape, rng)
    result = cases.twice_plus(a, b)
    assert isinstance(result, np.ndarray) and result.dtype == np.dtype(dtype) and result.shape == shape
    np.testing.assert_array_equal(result, cases.twice_plus_reference(a, b))


def test_vectorize_broadcasting(rng):
    x = rng.standard_normal((3, 1, 5)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)
    z = rng.standard_normal(5).astype(np.float32)
    result = cases.fused(x, y, z)
    assert result.shape == (3, 4, 5)
    cases.check_fused(result, x, y, z, np.float32)


def test_vectorize_scalars_and_zero_d(rng):
    x = rng.standard_normal((6, 7))
    np.testing.assert_array_equal(cases.fused(x, 2.0, 0.5), x * 2.0 + 0.5)  # exact: x * 2.0 is
    # every operand a scalar: a 0-d result, returned as NumPy returns it
    assert cases.fused(np.float64(2), np.float64(3), np.float64(4)) == 10.0
    assert cases.fused(np.array(2.0), np.array(3.0), np.array(4.0)) == 10.0
    # an integer scalar fits float32: the float32 loop is chosen, as the result's dtype shows
    x32 = x.astype(np.float32)
    result = cases.fused(x32, x32, 1)
    assert result.dtype == np.float32
    cases.check_fused(result, x32, x32, 1, np.float32)


def test_vectorize_strided_host_views(rng):
    base = rng.standard_normal((20, 30))
    x, y, z = base[::2, ::3], base.T[:10, 3:13], base[1:11, 2:12]  # all (10, 10), none contiguous
    cases.check_fused(cases.fused(x, y, z), x, y, z, np.float64)


def test_vectorize_device_arrays_strided_and_transposed(rng):
    base = rng.standard_normal((16, 24))
    d = cuda.to_device(base)
    x, y = d[::2, ::3], d.T[:8, :8]
    result = cases.fused(x, y, 1.0)
    assert not isinstance(result, np.ndarray)  # device operands: the result stays on the device
    cases.check_fused(result.copy_to_host(), base[::2, ::3], base.T[:8, :8], 1.0, np.float64)


def test_vectorize_out_host_device_and_in_place(rng):
    x = rng.standard_normal((5, 6)).astype(np.float32)
    out = support.poisoned(30, np.float32).reshape(5, 6)
    assert cases.fused(x, x, x, out=out) is out
    cases.check_fused(out, x, x, x, np.float32)
    d = cuda.to_device(x)
    dout = cuda.to_device(support.poisoned(30, np.float32).reshape(5, 6))
    cases.fused(d, d, d, out=dout)
    np.testing.assert_array_equal(dout.copy_to_host(), out)  # the same kernel as for host operands
    cases.fused(d, d, d, d)  # the output as the last positional argument, in place
    np.testing.assert_array_equal(d.copy_to_host(), out)
    # out of a wider kind-compatible dtype: the float32 results converted on store
    wide = support.poisoned(30, np.float64).reshape(5, 6)
    cases.fused(x, x, x, out=wide)
    np.testing.assert_array_equal(wide, out.astype(np.float64))


# sizes around multiples of the four iterations a thread runs together, for grids of one
# thread to several blocks: the kernel's first loop, then the rest one at a time
GRIDS = [(1, 1), (1, 32), (3, 32), (2, 256)]
SIZES = [
    (1,),
    (3,),
    (4,),
    (5,),
    (127,),
    (128,),
    (129,),
    (1023,),
    (1024,),
    (1025,),
    (6143,),
    (6145,),
    (33, 31),
    (3, 8, 65),
]


@pytest.mark.parametrize("shape", SIZES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: f"{g[0]}x{g[1]}")
def test_vectorize_kernel_computes_every_element_once_for_any_grid(grid, shape, rng):
    n = int(np.prod(shape))
    a = rng.integers(-(2**40), 2**40, n, dtype=np.int64).reshape(shape)
    b = rng.integers(-(2**40), 2**40, n, dtype=np.int64).reshape(shape)
    kernel = cases.twice_plus.kernel((np.dtype(np.int64), np.dtype(np.int64)))
    da, db = cuda.to_device(a), cuda.to_device(b)
    out = cuda.to_device(np.full(shape, -7, np.int64))
    kernel[grid](da, db, out)
    np.testing.assert_array_equal(out.copy_to_host(), a + a + b)
    # in place (out is the first input): an element done twice would be doubled twice
    kernel[grid](da, db, da)
    np.testing.assert_array_equal(da.copy_to_host(), a + a + b)


def test_vectorize_out_broadcasts_inputs(rng):
    row = rng.standard_normal(6)
    out = support.poisoned(24, np.float64).reshape(4, 6)
    cases.fused(row, 2.0, 0.0, out=out)
    np.testing.assert_array_equal(out, np.broadcast_to(row * 2.0, (4, 6)))


def test_vectorize_stream(rng):
    x = rng.standard_normal(1000)
    stream = cuda.stream()
    d = cuda.to_device(x, stream=stream)
    result = cases.fused(d, d, d, stream=stream)
    stream.synchronize()
    cases.check_fused(result.copy_to_host(), x, x, x, np.float64)


def test_vectorize_boolean_result_and_casting(rng):
    a = rng.integers(-50, 50, 200)
    b = rng.integers(-50, 50, 200)
    np.testing.assert_array_equal(cases.less(a, b), a < b)
    # int32 inputs are converted to the first signature they fit safely: int64
    np.testing.assert_array_equal(cases.less(a.astype(np.int32), b.astype(np.int32)), a < b)
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    np.testing.assert_array_equal(cases.less(x, y), x < y)


def test_vectorize_lazy_signatures(rng):
    before = cases.lazy_hypot.ntypes
    a = rng.integers(-1000, 1000, 64)
    b = rng.integers(-1000, 1000, 64)
    result = cases.lazy_hypot(a, b)
    np.testing.assert_allclose(result, np.sqrt((a * a + b * b).astype(np.float64)), rtol=1e-15)
    f = rng.standard_normal(64).astype(np.float32)
    # numba types float32 ** 0.5 (a float64 literal) as float64
    np.testing.assert_allclose(cases.lazy_hypot(f, f), np.sqrt(2 * f.astype(np.float64) ** 2), rtol=1e-6)
    assert cases.lazy_hypot.ntypes == before + 2
    cases.lazy_hypot(a, b)
    assert cases.lazy_hypot.ntypes == before + 2  # compiled once per input dtypes


def test_vectorize_cupy_in_place(rng):
    cp = pytest.importorskip("cupy")
    x = rng.standard_normal((64, 3)).astype(np.float32)
    cx = cp.asarray(x)
    cout = cp.full((64, 3), cp.nan, dtype=cp.float32)
    cases.fused(cx, cx[:, :1], 1.0, out=cout)
    cases.check_fused(cp.asnumpy(cout), x, x[:, :1], 1.0, np.float32)


def test_vectorize_torch_in_place(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    x = rng.standard_normal(100)
    tx = torch.tensor(x, device="cuda")
    tout = torch.full((100,), float("nan"), dtype=torch.float64, device="cuda")
    cases.fused(tx, tx, tx, out=tout)
    torch.cuda.synchronize()
    cases.check_fused(tout.cpu().numpy(), x, x, x, np.float64)


# ---- guvectorize -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_guvectorize_matmul_batched_and_broadcast(dtype, rng):
    a = rng.standard_normal((3, 4, 5)).astype(dtype)
    b = rng.standard_normal((5, 2)).astype(dtype)  # broadcast over the batch
    result = cases.matmul(a, b)
    assert result.shape == (3, 4, 2) and result.dtype == np.dtype(dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    # sums of 5 products of N(0, 1) values: absolute bounds cover cancellation
    atol = 1e-5 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(result, expected.astype(dtype), rtol=1e-6 if dtype == "float32" else 1e-14, atol=atol)


def test_guvectorize_matmul_single_and_device_out(rng):
    a, b = rng.standard_normal((6, 3)), rng.standard_normal((3, 4))
    out = cuda.to_device(support.poisoned(24, np.float64).reshape(6, 4))
    cases.matmul(cuda.to_device(a), cuda.to_device(b), out=out)
    np.testing.assert_allclose(out.copy_to_host(), a @ b, rtol=1e-14, atol=1e-13)


def test_guvectorize_dot(rng):
    a = rng.integers(-1000, 1000, (4, 5, 9))
    b = rng.integers(-1000, 1000, (5, 9))
    result = cases.dot(a, b)
    assert result.shape == (4, 5)
    np.testing.assert_array_equal(result, np.einsum("ijk,jk->ij", a, b))
    x, y = rng.standard_normal((7, 11)), rng.standard_normal(11)
    np.testing.assert_allclose(cases.dot(x, y), x @ y, rtol=1e-13, atol=1e-13)


def test_guvectorize_scalar_in_layout(rng):
    a = rng.standard_normal((3, 8))
    s = rng.standard_normal(3)
    np.testing.assert_array_equal(cases.scaled(a, s), a * s[:, None])
    np.testing.assert_array_equal(cases.scaled(a, 2.0), a * 2.0)


# ---- reduce ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 31, 256, 257, 100_000, 3_000_001])
def test_reduce_sum_int64_exact(n, rng):
    x = rng.integers(-(2**40), 2**40, n)
    assert cases.sum_reduce(x) == x.sum()
    assert cases.sum_reduce(cuda.to_device(x), init=5) == x.sum() + 5


def test_reduce_sum_float64(rng):
    x = rng.standard_normal(1_000_003)
    np.testing.assert_allclose(cases.sum_reduce(x), np.sum(x), rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint16"])
def test_reduce_max_with_init(dtype, rng):
    x = _values(dtype, (123_457,), rng)
    low = x.min()
    assert cases.max_reduce(x, init=low) == x.max()
    # init always takes part (Numba-CUDA's rule): a larger init wins
    big = np.iinfo(dtype).max if np.dtype(dtype).kind in "iu" else np.float32(1e30)
    assert cases.max_reduce(x, init=big) == big


def test_reduce_res_and_size(rng):
    x = rng.integers(0, 100, 5000)
    res = cuda.to_device(np.full(2, -1, np.int64))
    assert cases.sum_reduce(x, res=res) is None
    assert res.copy_to_host()[0] == x.sum()
    assert cases.sum_reduce(x, size=1000) == x[:1000].sum()
    stream = cuda.stream()
    assert cases.sum_reduce(cuda.to_device(x), stream=stream) == x.sum()


@pytest.mark.parametrize("kind", ["cumlir", "cupy"])
def test_reduce_of_device_arrays_launched_as_they_are(kind, rng):
    x = rng.integers(-(2**40), 2**40, 70_001)
    y = rng.integers(-(2**40), 2**40, 513)
    if kind == "cupy":
        cp = pytest.importorskip("cupy")
        dx, dy, empty = cp.asarray(x), cp.asarray(y), cp.zeros(0, np.int64)
    else:
        dx, dy, empty = cuda.to_device(x), cuda.to_device(y), cuda.device_array(0, np.int64)
    first = cases.sum_reduce(dx)
    second = cases.sum_reduce(dy, init=3)
    assert first == x.sum() and second == y.sum() + 3  # a result is not overwritten by the next
    assert isinstance(first, np.int64)
    assert cases.sum_reduce(dx, size=1234) == x[:1234].sum()
    assert cases.sum_reduce(dx, size=0, init=9) == 9
    assert cases.sum_reduce(empty, init=-4) == -4
    assert cases.sum_reduce(dx, stream=cuda.stream()) == x.sum()
    with pytest.raises(ValueError, match="outside the array"):
        cases.sum_reduce(dy, size=514)


def test_ufunc_reduce(rng):
    add = cuda.vectorize(["int64(int64, int64)", "float64(float64, float64)"])(lambda a, b: a + b)
    x = rng.integers(-(2**40), 2**40, 100_003)
    assert add.reduce(x) == x.sum()
    assert add.reduce(cuda.to_device(x[:1])) == x[0]
    y = rng.standard_normal(5000)
    np.testing.assert_allclose(add.reduce(y), y.sum(), rtol=1e-12, atol=1e-10)


def test_guvectorize_without_loop_axes_and_host_out(rng):
    x, y = rng.standard_normal(9), rng.standard_normal(9)
    result = cases.dot(x, y)
    assert np.ndim(result) == 0
    np.testing.assert_allclose(result, x @ y, rtol=1e-13, atol=1e-13)
    out = support.poisoned(4, np.float64)
    a = rng.standard_normal((4, 9))
    assert cases.dot(a, y, out) is out  # the output as a trailing argument
    np.testing.assert_allclose(out, a @ y, rtol=1e-13, atol=1e-13)
