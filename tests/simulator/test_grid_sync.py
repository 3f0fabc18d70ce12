"""Cooperative groups' grid barrier on the simulator: every block under way at once, each
keeping its shared memory across the barrier, a block that ends without reaching it
reported, and the shared memory checks still watching each block."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime.simulator.errors import DeadlockError, SharedMemoryRace

pytestmark = pytest.mark.usefixtures("simulated")

TPB = 64


def shift_rounds(a, scratch, shift, rounds):
    # each round reads what other blocks wrote in the round before; the block's shared
    # memory carries a running sum across every barrier
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    total = cuda.shared.array(TPB, np.float64)
    total[cuda.threadIdx.x] = 0.0
    for _ in range(rounds):
        scratch[i] = a[(i + shift) % n]
        g.sync()
        a[i] = scratch[i]
        total[cuda.threadIdx.x] += a[i]
        g.sync()
    a[i] += total[cuda.threadIdx.x] * 1e-3


def test_grid_sync_orders_every_block_and_keeps_shared_memory(rng):
    blocks, shift, rounds = 12, 3 * TPB + 5, 9
    n = blocks * TPB
    a = rng.uniform(-1, 1, n)
    expected, total = a.copy(), np.zeros(n)
    for _ in range(rounds):
        expected = np.roll(expected, -shift)
        total += expected
    expected = expected + total * 1e-3
    scratch = np.full(n, np.nan)
    cuda.jit(shift_rounds)[blocks, TPB](a, scratch, shift, rounds)
    np.testing.assert_allclose(a, expected, rtol=1e-14)


def leaves_early(a):
    g = cuda.cg.this_grid()
    if cuda.blockIdx.x == 2:
        return
    g.sync()
    a[cuda.grid(1)] = 1.0


def test_a_block_ending_before_the_grid_barrier_is_reported():
    with pytest.raises(
        DeadlockError, match=r"block \(0, 0, 0\) waits at grid.sync \(.*test_grid_sync.py:51\) for block \(2, 0, 0\)"
    ):
        cuda.jit(leaves_early)[4, 32](np.zeros(128))


def races_after_the_barrier(out):
    g = cuda.cg.this_grid()
    sm = cuda.shared.array(32, np.int32)
    sm[cuda.threadIdx.x] = cuda.threadIdx.x
    g.sync()
    if cuda.blockIdx.x == 3:
        sm[0] = sm[(cuda.threadIdx.x + 1) % 32]  # thread 0 writes what thread 31 reads
    out[cuda.grid(1)] = sm[cuda.threadIdx.x]


def test_shared_memory_checks_name_the_block_after_a_grid_barrier():
    with pytest.raises(SharedMemoryRace, match=r"block \(3, 0, 0\)"):
        cuda.jit(races_after_the_barrier)[5, 32](np.zeros(160, np.int32))
