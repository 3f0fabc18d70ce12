"""Hopper's intrinsics on the GPU (sm_90), on both code generators: blocks of a cluster
(launched with a cluster shape) exchanging values through mapa-ed shared memory, an mbarrier
handing values from a producer thread to the block, and cp.async copies checked against
their source."""

import numpy as np
import pytest

from cumlir import cuda

from .cases import hopper_kernels as hk
from .support import poisoned

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("thread-block clusters and mbarrier try_wait need sm_90")


def test_a_launch_without_a_cluster_runs_in_clusters_of_one_block(backend):
    kernel = cuda.jit(backend=backend)(hk.cluster_exchange)
    blocks = 3
    out, where = poisoned(blocks * hk.THREADS, np.int32), poisoned(blocks * 8, np.int32).reshape(blocks, 8)
    kernel[blocks, hk.THREADS](out, where)
    # each block's neighbour in its cluster of one is itself: rank 0
    np.testing.assert_array_equal(out, np.tile(np.arange(hk.THREADS), blocks))
    for b in range(blocks):
        assert list(where[b]) == [0, 1, 0, 0, 1, b, blocks, 0 + 1 + 0]


@pytest.mark.parametrize(
    "launch, blocks, size",
    [("getitem", 6, 2), ("configure", 6, 2), ("getitem", 32, 16)],  # 16: a non-portable size, opted in
)
def test_blocks_of_a_cluster_read_each_others_shared_memory(backend, launch, blocks, size):
    kernel = cuda.jit(backend=backend)(hk.cluster_exchange)
    out, where = poisoned(blocks * hk.THREADS, np.int32), poisoned(blocks * 8, np.int32).reshape(blocks, 8)
    if launch == "getitem":
        kernel[blocks, hk.THREADS, 0, 0, size](out, where)
    else:
        kernel.configure(blocks, hk.THREADS, cluster=(size, 1, 1))(out, where)
    for b in range(blocks):
        rank = b % size
        neighbour = (rank + 1) % size
        np.testing.assert_array_equal(
            out[b * hk.THREADS : (b + 1) * hk.THREADS], neighbour * 1000 + np.arange(hk.THREADS)
        )
        assert list(where[b]) == [rank, size, rank, rank, size, b // size, blocks // size, 0 + 1 + 0]


def test_an_mbarrier_hands_each_round_to_the_block(backend):
    kernel = cuda.jit(backend=backend)(hk.mbarrier_handoff)
    rounds = 9
    data = np.arange(1, rounds + 1, dtype=np.float32) * 1.5
    out = poisoned(128, np.float32)
    kernel[1, 128](data, out, rounds)
    np.testing.assert_array_equal(out, np.full(128, data.sum(), np.float32))


def test_blocks_arrive_at_each_others_mbarriers(backend):
    kernel = cuda.jit(backend=backend)(hk.remote_arrivals)
    blocks = 8
    out = poisoned(blocks, np.int32)
    kernel.configure(blocks, 32, cluster=2)(out)
    other = np.arange(blocks) ^ 1  # the other block of each cluster, of the other rank
    np.testing.assert_array_equal(out, 1000 + 10 * other + other % 2)


def test_arrive_expect_tx_of_no_bytes_completes_on_arrivals(backend):
    kernel = cuda.jit(backend=backend)(hk.expect_tx_zero)
    out = poisoned(32, np.int32)
    kernel[1, 32](out)
    np.testing.assert_array_equal(out, np.ones(32, np.int32))


def test_async_copies_bring_the_source(backend, rng):
    kernel = cuda.jit(backend=backend)(hk.async_copies)
    blocks = 5
    src = rng.standard_normal(blocks * 7 * hk.THREADS).astype(np.float32)
    out = poisoned(src.size, np.float32)
    kernel[blocks, hk.THREADS](src, out)
    np.testing.assert_array_equal(out, src)
