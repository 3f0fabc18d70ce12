"""Counted loops (codegen/passes/counted_loops.py) visit every element once, whatever the number
of trips left over after the groups of eight (loops that only read) or four (loops that
write): sums, a shared-memory histogram and row scaling (unrolled) and grid-stride copies
(left rolled) checked exactly against NumPy for lengths around multiples of the grid and
of four and eight trips."""

import numpy as np
import pytest

from cumlir import cuda

from .cases import loop_kernels
from .support import poisoned

pytestmark = pytest.mark.gpu

BLOCKS, THREADS = 3, 64  # 192 threads: lengths below, at and past 1, 4 and 5 trips each


grid_stride_sum = cuda.jit(loop_kernels.grid_stride_sum)
grid_stride_copy = cuda.jit(loop_kernels.grid_stride_copy)
row_sums = cuda.jit(loop_kernels.row_sums)
shared_histogram = cuda.jit(loop_kernels.shared_histogram)
row_scale = cuda.jit(loop_kernels.row_scale)


LENGTHS = [
    *(0, 1, 191, 192, 193, 4 * 192 - 1, 4 * 192, 4 * 192 + 1, 5 * 192 + 7),
    *(8 * 192 - 1, 8 * 192, 8 * 192 + 1, 9 * 192 + 5, 16 * 192 + 3, 37 * 192 + 100),
]


def _expected_sums(x, threads):
    padded = np.zeros(-(-x.size // threads) * threads or threads, np.int64)
    padded[: x.size] = x
    return padded.reshape(-1, threads).sum(axis=0)


@pytest.mark.parametrize("n", LENGTHS)
def test_grid_stride_sum_visits_every_element_once(n, rng):
    x = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    out = cuda.to_device(np.full(BLOCKS * THREADS, -7, np.int64))
    grid_stride_sum[BLOCKS, THREADS](cuda.to_device(x), out)
    np.testing.assert_array_equal(out.copy_to_host(), _expected_sums(x, BLOCKS * THREADS))


@pytest.mark.parametrize("n", LENGTHS)
def test_grid_stride_copy_writes_every_element_once(n, rng):
    src = rng.integers(-1000, 1000, n, dtype=np.int32)
    dst = cuda.to_device(np.full(n + 5, 99, np.int32))
    grid_stride_copy[BLOCKS, THREADS](cuda.to_device(src), dst[:n])
    got = dst.copy_to_host()
    np.testing.assert_array_equal(got[:n], src * 3 + 1)
    np.testing.assert_array_equal(got[n:], 99)  # nothing past the view


@pytest.mark.parametrize("n", LENGTHS)
def test_shared_histogram_counts_every_element_once(n, rng):
    data = rng.integers(0, 64, n, dtype=np.uint8)
    counts = cuda.to_device(np.zeros(64, np.int32))
    shared_histogram[BLOCKS, 64](cuda.to_device(data), counts)
    np.testing.assert_array_equal(counts.copy_to_host(), np.bincount(data, minlength=64))


@pytest.mark.parametrize("cols", [1, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000])
def test_rows_scaled_stepping_by_the_block_size(cols, rng):
    x = rng.standard_normal((5, cols)).astype(np.float32)
    out = cuda.to_device(np.full((5, cols + 3), np.nan, np.float32))
    row_scale[5, 64](cuda.to_device(x), out[:, :cols])
    got = out.copy_to_host()
    np.testing.assert_array_equal(got[:, :cols], (x.astype(np.float64) * 3 + 1).astype(np.float32))
    assert np.isnan(got[:, cols:]).all()  # nothing past the view


@pytest.mark.parametrize("cols", [1, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000])
def test_rows_stepping_by_the_block_size(cols, rng):
    x = rng.standard_normal((5, cols))
    out = cuda.to_device(poisoned(5 * 64, np.float64).reshape(5, 64))
    row_sums[5, 64](cuda.to_device(x), out)
    padded = np.zeros((5, -(-cols // 64) * 64))
    padded[:, :cols] = x
    expected = padded.reshape(5, -1, 64).sum(axis=1)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-13, atol=1e-13)
