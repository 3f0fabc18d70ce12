"""Ampere's asynchronous copies on the GPU (sm_80 and later), on both code generators: 4-, 8-
and 16-byte copies bringing their source into shared memory, from views of arrays of several
element types; a group waited for with wait_group(1) complete before the next."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda import intrin

from ...cases import hopper_kernels as hk
from ...support import poisoned

pytestmark = pytest.mark.gpu

THREADS = 64
WIDE = 4 * THREADS  # the shared arrays' length, a global known at compile time


@pytest.fixture(autouse=True)
def _ampere():
    if cuda.get_current_device().compute_capability < (8, 0):
        pytest.skip("cp.async needs sm_80")


def test_async_copies_bring_the_source(backend, rng):
    kernel = cuda.jit(backend=backend)(hk.async_copies)
    blocks = 5
    src = rng.standard_normal(blocks * 7 * hk.THREADS).astype(np.float32)
    out = poisoned(src.size, np.float32)
    kernel[blocks, hk.THREADS](src, out)
    np.testing.assert_array_equal(out, src)


def _two_groups(first, second, out_first, out_second):
    """Two groups of a 16-byte copy per thread; each thread reads its own copies back."""
    a = cuda.shared.array(WIDE, np.float32)
    b = cuda.shared.array(WIDE, np.float32)
    t = cuda.threadIdx.x
    intrin.cp_async(a[4 * t :], first[4 * t :], 16)
    intrin.cp_async_commit_group()
    intrin.cp_async(b[4 * t :], second[4 * t :], 16)
    intrin.cp_async_commit_group()
    intrin.cp_async_wait_group(1)  # the first group has landed; the second may still be in flight
    for k in range(4):
        out_first[4 * t + k] = a[4 * t + k]
    intrin.cp_async_wait_group(0)
    for k in range(4):
        out_second[4 * t + k] = b[4 * t + k]


def test_wait_group_1_leaves_only_the_last_group_in_flight(backend, rng):
    kernel = cuda.jit(backend=backend)(_two_groups)
    first, second = rng.standard_normal((2, WIDE)).astype(np.float32)
    out_first, out_second = poisoned(WIDE, np.float32), poisoned(WIDE, np.float32)
    kernel[1, THREADS](first, second, out_first, out_second)
    np.testing.assert_array_equal(out_first, first)
    np.testing.assert_array_equal(out_second, second)


ROWS, COLUMNS = 8, 64


def _rows_of_bytes(src, out):
    """32 threads copy 16 bytes each: row r of the shared array from row r + 1 of src."""
    sm = cuda.shared.array((ROWS, COLUMNS), np.int8)
    t = cuda.threadIdx.x
    r, c = t // 4, 16 * (t % 4)
    intrin.cp_async(sm[r, c:], src[r + 1, c:], 16)
    intrin.cp_async_commit_group()
    intrin.cp_async_wait_all()
    cuda.syncthreads()
    if t < ROWS:
        for k in range(COLUMNS):
            out[t, k] = sm[t, k]


def test_16_byte_copies_of_int8_rows(backend, rng):
    kernel = cuda.jit(backend=backend)(_rows_of_bytes)
    src = rng.integers(-128, 128, (ROWS + 1, COLUMNS)).astype(np.int8)
    out = poisoned(ROWS * COLUMNS, np.int8).reshape(ROWS, COLUMNS)
    kernel[1, 32](src, out)
    np.testing.assert_array_equal(out, src[1:])


def _reversed_doubles(src, out):
    """Each thread copies one float64 (8 bytes) into the mirrored place of the shared array,
    and one int32 (4 bytes) of the second half of src's bits."""
    sm = cuda.shared.array(THREADS, np.float64)
    words = cuda.shared.array(THREADS, np.int32)
    t = cuda.threadIdx.x
    intrin.cp_async(sm[THREADS - 1 - t :], src[t:], 8)
    intrin.cp_async(words[t:], src.view(np.int32)[2 * t + 1 :], 4)
    intrin.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = sm[t]
    out[THREADS + t] = words[t]


def test_8_and_4_byte_copies(backend, rng):
    kernel = cuda.jit(backend=backend)(_reversed_doubles)
    src = rng.standard_normal(THREADS)
    out = poisoned(2 * THREADS, np.float64)
    kernel[1, THREADS](src, out)
    np.testing.assert_array_equal(out[:THREADS], src[::-1])
    np.testing.assert_array_equal(out[THREADS:], src.view(np.int32)[1::2].astype(np.float64))
