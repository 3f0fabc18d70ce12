"""Hopper's mbarriers on the GPU (sm_90), on both code generators: an mbarrier handing values
from a producer thread to the block, blocks of a cluster arriving at each other's barriers. The
cluster intrinsics are tests/operations/hopper/test_cluster_gpu.py's, cp.async's
tests/operations/cuda/test_cp_async_gpu.py's."""

import numpy as np
import pytest

from cumlir import cuda

from .cases import hopper_kernels as hk
from .support import poisoned

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("mbarriers and TMA have no host form")]


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("thread-block clusters and mbarrier try_wait need sm_90")


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
