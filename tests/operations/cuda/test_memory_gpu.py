"""Shared, local and constant memory on the GPU, compared with NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import memory_kernels as mk
from ...support import poisoned, random_values

pytestmark = pytest.mark.gpu

DTYPES = ["int32", "uint64", "float32", "float64"]
TOLERANCE = {"float32": 1e-5, "float64": 1e-12}


def _close(actual, expected, scale, dtype, what):
    """Integers exactly (NumPy wraps as the kernels do); floats within a tolerance relative to
    *scale*, the sum of the magnitudes of what was added up."""
    if np.dtype(dtype).kind != "f":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    assert not np.isnan(actual).any(), f"{what}: elements left unwritten"
    error = np.abs(actual.astype(np.float64) - expected)
    bad = error > TOLERANCE[dtype] * (scale + np.finfo(np.float64).tiny)
    assert not bad.any(), f"{what}: {bad.sum()} elements off, first {np.argwhere(bad)[:3].tolist()}"


def _jit(pyfunc):
    return cuda.jit(pyfunc)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,k,m", [(37, 53, 29), (70, 16, 101), (1, 5, 33)])
def test_tiled_matmul(dtype, n, k, m, rng):
    a = random_values(dtype, n * k, rng).reshape(n, k)
    b = random_values(dtype, k * m, rng).reshape(k, m)
    c = poisoned(n * m, dtype).reshape(n, m)
    grid = ((m + mk.TILE - 1) // mk.TILE, (n + mk.TILE - 1) // mk.TILE)
    _jit(mk.tiled_matmul(getattr(np, dtype)))[grid, (mk.TILE, mk.TILE)](a, b, c)
    if np.dtype(dtype).kind == "f":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        _close(c, a64 @ b64, np.abs(a64) @ np.abs(b64), dtype, "matmul")
    else:
        _close(c, a @ b, None, dtype, "matmul")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [1000, mk.BLOCK, 5])
def test_block_sum(dtype, size, rng):
    x = random_values(dtype, size, rng)
    blocks = (size + mk.BLOCK - 1) // mk.BLOCK
    out = poisoned(blocks, dtype)
    _jit(mk.block_sum(getattr(np, dtype)))[blocks, mk.BLOCK](x, out)
    padded = np.zeros(blocks * mk.BLOCK, dtype)
    padded[:size] = x
    rows = padded.reshape(blocks, mk.BLOCK)
    if np.dtype(dtype).kind == "f":
        wide = rows.astype(np.float64)
        _close(out, wide.sum(axis=1), np.abs(wide).sum(axis=1), dtype, "block sums")
    else:
        _close(out, rows.sum(axis=1, dtype=dtype), None, dtype, "block sums")


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_arrays_alias(dtype, rng):
    threads = 96
    itemsize = np.dtype(dtype).itemsize
    x = random_values(dtype, threads, rng)
    out = poisoned(threads, dtype)
    lengths = np.full(2, -1, np.int64)
    _jit(mk.dynamic_alias(getattr(np, dtype)))[1, threads, 0, threads * itemsize](x, out, lengths)
    np.testing.assert_array_equal(out, x[::-1])
    assert lengths.tolist() == [threads, threads * itemsize]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nbytes", [4096, 100 * 1024])
def test_dynamic_shared_memory_sizes(dtype, nbytes, rng):
    # 100 KiB is above the 48 KiB a kernel gets without opting in
    n = nbytes // np.dtype(dtype).itemsize
    x = random_values(dtype, n, rng)
    out = poisoned(n, dtype)
    _jit(mk.dynamic_fill(getattr(np, dtype)))[1, 256, 0, nbytes](x, out)
    np.testing.assert_array_equal(out, np.roll(x, -1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_shared_array_declared_after_control_flow(dtype, rng):
    n = 1000
    x = random_values(dtype, n, rng) // 8 if dtype.startswith(("int", "uint")) else random_values(dtype, n, rng)
    out = poisoned(n, dtype)
    itemsize = np.dtype(dtype).itemsize
    _jit(mk.dynamic_after_control_flow(getattr(np, dtype)))[1, 128, 0, n * itemsize](x, out, 3)
    np.testing.assert_array_equal(out, np.roll(x * np.array(5, dtype), -1))  # scale 2 + 3


def test_too_much_shared_memory_is_a_launch_error():
    kernel = _jit(mk.tiled_matmul(np.float32))
    a = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match=r"2048 bytes of static shared memory .* 10000000 bytes of dynamic"):
        kernel[1, (mk.TILE, mk.TILE), 0, 10_000_000](a, a, a.copy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_local_arrays_sort_and_scan(dtype, rng):
    rows = 300
    x = random_values(dtype, rows * mk.LOCAL_N, rng).reshape(rows, mk.LOCAL_N)
    sorted_out = poisoned(x.size, dtype).reshape(x.shape)
    prefix = poisoned(x.size, dtype).reshape(x.shape)
    _jit(mk.local_sort(getattr(np, dtype)))[(rows + 63) // 64, 64](x, sorted_out, prefix)
    expected = np.sort(x, axis=1)
    np.testing.assert_array_equal(sorted_out, expected)
    if np.dtype(dtype).kind == "f":
        wide = expected.astype(np.float64)
        _close(prefix, np.cumsum(wide, axis=1), np.cumsum(np.abs(wide), axis=1), dtype, "prefix sums")
    else:
        _close(prefix, np.cumsum(expected, axis=1, dtype=dtype), None, dtype, "prefix sums")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(50,), (6, 7)])
def test_const_arrays(dtype, shape, rng):
    table = random_values(dtype, int(np.prod(shape)), rng).reshape(shape)
    idx = rng.integers(0, table.size, 500)
    out = poisoned(idx.size, dtype)
    _jit(mk.const_gather(table))[(idx.size + 127) // 128, 128](idx, out)
    np.testing.assert_array_equal(out, table.ravel()[idx])


@pytest.mark.parametrize("alignment", [None, 64, 256])
def test_aligned_arrays(alignment):
    threads = 96
    out = np.full(threads, -1, np.int64)
    _jit(mk.aligned_arrays(alignment))[1, threads](out)
    i = np.arange(threads)
    np.testing.assert_array_equal(out, (i % 3 + 10) + (i + (i + 1) % 3))
