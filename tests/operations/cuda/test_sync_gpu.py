"""Synchronization intrinsics on the GPU (operations/cuda/sync.py), on both back ends, against
host answers: block barrier reductions against counts of the predicates, syncwarp ordering a
warp's exchange through shared memory, fences and nanosleep around a block barrier. The bit
intrinsics on the GPU are test_bits_gpu.py's."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import sync_bits_kernels as sk
from ...support import poisoned, random_values

pytestmark = pytest.mark.gpu


@pytest.fixture
def jit(backend):
    return lambda fn: cuda.jit(backend=backend)(fn)


# ---- block barriers -----------------------------------------------------------------------


def _predicates(dtype, blocks, threads, rng):
    """Random predicates whose blocks are all zero, all non-zero or mixed at random densities;
    non-zero values are random, so some only have bits above the low 32."""
    density = rng.choice([0.0, 1.0, 0.03, 0.5, 0.97], size=blocks)
    on = rng.random((blocks, threads)) < density[:, None]
    if dtype == "bool":
        return on.ravel()
    values = random_values(dtype, blocks * threads, rng).reshape(blocks, threads)
    values[values == 0] = 1
    if np.dtype(dtype).itemsize == 8:
        values[:, ::7] = np.array(1 << 40, dtype=dtype)  # zero in its low 32 bits, still true
    return np.where(on, values, 0).astype(dtype).ravel()


@pytest.mark.numba_cuda_differs  # numba-cuda truncates 64-bit predicates to 32 bits (semantics.md)
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "uint64", "bool"])
@pytest.mark.parametrize("threads", [32, 48, 100, 256, 1000, 1])
def test_block_reductions(dtype, threads, jit, rng):
    blocks = 23
    pred = _predicates(dtype, blocks, threads, rng)
    counts, alls, anys = (poisoned(blocks, np.int32) for _ in range(3))
    jit(sk.block_reductions)[blocks, threads](pred, counts, alls, anys)
    rows = pred.reshape(blocks, threads) != 0
    np.testing.assert_array_equal(counts, rows.sum(axis=1), err_msg="syncthreads_count")
    np.testing.assert_array_equal(alls, rows.all(axis=1).astype(np.int32), err_msg="syncthreads_and")
    np.testing.assert_array_equal(anys, rows.any(axis=1).astype(np.int32), err_msg="syncthreads_or")


@pytest.mark.parametrize("threads", [32, 64, 256, 1024])
def test_syncwarp_orders_a_warp_exchange(threads, jit, rng):
    blocks = 5
    x = random_values("int64", blocks * threads, rng)
    out = poisoned(blocks * threads, np.int64)
    jit(sk.warp_exchange)[blocks, threads](x, out)
    np.testing.assert_array_equal(out, x[np.arange(x.size) ^ 1])


@pytest.mark.parametrize("threads", [1, 64, 96, 512])
def test_fences_and_nanosleep_run(threads, jit, rng):
    blocks = 7
    x = random_values("float32", blocks * threads, rng)
    doubled = (x * np.float32(2)).reshape(blocks, threads)
    out = poisoned(blocks * threads, np.float32)
    jit(sk.fenced_reverse)[blocks, threads](x, out)
    np.testing.assert_array_equal(out, doubled.ravel())
    np.testing.assert_array_equal(x, doubled[:, ::-1].ravel())  # each thread read its mirror's write
