"""Thread-block clusters on the GPU (sm_90), on both code generators: every cluster register in
launches of one, two and three dimensions (and without a cluster, clusters of one block); blocks
reading and writing each other's shared memory through mapa, of whole arrays and of strided
views, across the cluster barrier."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda import intrin

from ...cases import hopper_kernels as hk
from ...support import poisoned

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("thread-block clusters have no host form")]

THREADS = 32
REGISTERS = 15  # the columns _coordinates writes


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("thread-block clusters need sm_90")


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


def _coordinates(where):
    """Thread 0 of each block writes every cluster register into the block's row."""
    if cuda.threadIdx.x == 0:
        b = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
        where[b, 0] = intrin.cluster_ctarank()
        where[b, 1] = intrin.cluster_nctarank()
        where[b, 2] = intrin.block_idx_in_cluster()
        where[b, 3] = intrin.cluster_ctaid(0)
        where[b, 4] = intrin.cluster_ctaid(1)
        where[b, 5] = intrin.cluster_ctaid(2)
        where[b, 6] = intrin.cluster_nctaid(0)
        where[b, 7] = intrin.cluster_nctaid(1)
        where[b, 8] = intrin.cluster_nctaid(2)
        where[b, 9] = intrin.clusterid(0)
        where[b, 10] = intrin.clusterid(1)
        where[b, 11] = intrin.clusterid(2)
        where[b, 12] = intrin.nclusterid(0)
        where[b, 13] = intrin.nclusterid(1)
        where[b, 14] = intrin.nclusterid(2)


def _expected_coordinates(grid, cluster):
    rows = []
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                block = (x, y, z)
                within = [block[a] % cluster[a] for a in range(3)]
                # the rank counts blocks x first, as CUDA's cluster.block_rank()
                rank = within[0] + cluster[0] * (within[1] + cluster[1] * within[2])
                rows.append(
                    [rank, cluster[0] * cluster[1] * cluster[2], within[0], *within, *cluster]
                    + [block[a] // cluster[a] for a in range(3)]
                    + [grid[a] // cluster[a] for a in range(3)]
                )
    return np.array(rows, np.int32)


@pytest.mark.parametrize(
    "grid, cluster",
    [((4, 2, 6), (2, 2, 2)), ((6, 4, 2), (3, 1, 2)), ((8, 3, 1), (4, 1, 1)), ((2, 6, 4), (1, 2, 4))],
)
def test_every_register_of_a_cluster_of_up_to_three_dimensions(backend, grid, cluster):
    kernel = cuda.jit(backend=backend)(_coordinates)
    blocks = grid[0] * grid[1] * grid[2]
    where = poisoned(blocks * REGISTERS, np.int32).reshape(blocks, REGISTERS)
    kernel.configure(grid, THREADS, cluster=cluster)(where)
    np.testing.assert_array_equal(where, _expected_coordinates(grid, cluster))


def _write_into_the_next_block(out):
    """Each block writes into the shared memory of the next block of its cluster, then reads
    what the previous one wrote into its own."""
    mine = cuda.shared.array(THREADS, np.int32)
    t = cuda.threadIdx.x
    rank = intrin.cluster_ctarank()
    mine[t] = -1
    intrin.cluster_sync()  # every block has started (and poisoned its array) before any writes into it
    theirs = intrin.mapa(mine, (rank + 1) % intrin.cluster_nctarank())
    theirs[t] = rank * 1000 + t
    intrin.cluster_arrive()  # releases the write to the cluster ...
    intrin.cluster_wait()  # ... and acquires the other blocks'
    out[cuda.grid(1)] = mine[t]


@pytest.mark.parametrize("size", [2, 4, 8])
def test_blocks_write_into_each_others_shared_memory(backend, size):
    kernel = cuda.jit(backend=backend)(_write_into_the_next_block)
    blocks = 2 * size
    out = poisoned(blocks * THREADS, np.int32)
    kernel.configure(blocks, THREADS, cluster=size)(out)
    for b in range(blocks):
        previous = (b % size - 1) % size
        np.testing.assert_array_equal(out[b * THREADS : (b + 1) * THREADS], previous * 1000 + np.arange(THREADS))


def _read_a_view_of_the_next_block(out):
    """Each block reads a strided view (rows reversed, every third column from the second) of
    the next block's 4 x 8 shared array."""
    mine = cuda.shared.array((4, 8), np.int32)
    t = cuda.threadIdx.x
    rank = intrin.cluster_ctarank()
    mine[t // 8, t % 8] = rank * 1000 + t
    intrin.cluster_sync()
    theirs = intrin.mapa(mine[::-1, 1::3], (rank + 1) % intrin.cluster_nctarank())
    if t < 12:
        out[cuda.blockIdx.x, t] = theirs[t // 3, t % 3]
    # no block may leave while another still reads its shared memory
    intrin.cluster_sync()


def test_mapa_of_a_strided_view_reads_the_same_view_of_the_other_block(backend):
    kernel = cuda.jit(backend=backend)(_read_a_view_of_the_next_block)
    size, blocks = 4, 8
    out = poisoned(blocks * 12, np.int32).reshape(blocks, 12)
    kernel.configure(blocks, THREADS, cluster=size)(out)
    for b in range(blocks):
        neighbour = (b % size + 1) % size
        theirs = neighbour * 1000 + np.arange(32, dtype=np.int32).reshape(4, 8)
        np.testing.assert_array_equal(out[b], theirs[::-1, 1::3].ravel())
