"""Kernels using TMA (cuda.intrin, docs/hopper.md): compiled to PTX by tests/operations/hopper/test_tma.py and
launched on a Hopper GPU by tests/operations/hopper/test_tma_gpu.py."""

import numpy as np

from cumlir import cuda
from cumlir.cuda import intrin
from cumlir.types import bfloat16

ROWS, COLS = 8, 32  # the box of the 2-d loads: 8 x 32 elements


@cuda.jit(device=True)
def init_barrier(bar, t):
    """Thread t = 0 makes *bar* an mbarrier of one arrival, which the whole block then sees."""
    if t == 0:
        intrin.mbarrier_init(bar, 1)
        intrin.fence_mbarrier_init()
    cuda.syncthreads()


def tile_load_f32(tmap, out, row, col):
    """The 8 x 32 box of a float32 matrix at (row, col) -> out, through shared memory."""
    tile = cuda.shared.array((ROWS, COLS), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    t = cuda.threadIdx.x
    init_barrier(bar, t)
    if t == 0:
        intrin.prefetch_tensormap(tmap)
        intrin.mbarrier_arrive_expect_tx(bar, ROWS * COLS * 4)
        intrin.cp_async_bulk_tensor_load(tile, tmap, (row, col), bar)
    intrin.mbarrier_try_wait(bar, 0)
    for r in range(ROWS):
        out[r, t] = tile[r, t]


def tile_load_dynamic(tmap, out, row, col):
    """As tile_load_f32, the box landing in dynamic shared memory aligned to 1024 bytes, after
    a static array (the mbarrier): its start is rounded up in the kernel."""
    bar = cuda.shared.array(1, np.uint64)
    tile = cuda.shared.array(0, np.float32, alignment=1024)
    t = cuda.threadIdx.x
    init_barrier(bar, t)
    if t == 0:
        intrin.mbarrier_arrive_expect_tx(bar, ROWS * COLS * 4)
        intrin.cp_async_bulk_tensor_load(tile, tmap, (row, col), bar)
    intrin.mbarrier_try_wait(bar, 0)
    for r in range(ROWS):
        out[r, t] = tile[r * COLS + t]


def tile_load_bf16(tmap, out, row, col):
    """As tile_load_f32 for a bfloat16 matrix, with numba-cuda-mlir's 2-d form (c0 the column)."""
    tile = cuda.shared.array((ROWS, COLS), bfloat16)
    bar = cuda.shared.array(1, np.uint64)
    t = cuda.threadIdx.x
    init_barrier(bar, t)
    if t == 0:
        intrin.mbarrier_arrive_expect_tx(bar, ROWS * COLS * 2)
        intrin.cp_async_bulk_tensor_2d(tile, tmap, col, row, bar)
    intrin.mbarrier_try_wait(bar, 0)
    for r in range(ROWS):
        out[r, t] = tile[r, t]


def tile_store_f32(tmap, row, col):
    """Writes 1000 * r + c into the 8 x 32 box at (row, col) of the map's matrix."""
    tile = cuda.shared.array((ROWS, COLS), np.float32)
    t = cuda.threadIdx.x
    for r in range(ROWS):
        tile[r, t] = 1000 * r + t
    intrin.fence_proxy_async_shared()
    cuda.syncthreads()
    if t == 0:
        intrin.cp_async_bulk_tensor_store(tmap, (row, col), tile)
        intrin.cp_async_bulk_commit_group()
        intrin.cp_async_bulk_wait_group(0)


def multicast_load_f32(tmap, out):
    """Block 0 of a cluster of 2 loads box (0, 0) into the tile of both blocks; each copies its own out."""
    tile = cuda.shared.array((ROWS, COLS), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    t = cuda.threadIdx.x
    rank = intrin.cluster_ctarank()
    if t == 0:
        intrin.mbarrier_init(bar, 1)
        intrin.fence_mbarrier_init()
    intrin.cluster_sync()  # both barriers ready before the copy signals them
    if t == 0:
        intrin.mbarrier_arrive_expect_tx(bar, ROWS * COLS * 4)
        if rank == 0:
            intrin.cp_async_bulk_tensor_load(tile, tmap, (0, 0), bar, 0b11)
    intrin.mbarrier_try_wait(bar, 0)
    for r in range(ROWS):
        out[rank, r, t] = tile[r, t]
    intrin.cluster_sync()


def bulk_copy_f32(src, dst):
    """The first 256 floats of src -> shared memory (bulk load) -> dst (bulk store)."""
    buffer = cuda.shared.array(256, np.float32)
    bar = cuda.shared.array(1, np.uint64)
    init_barrier(bar, cuda.threadIdx.x)
    if cuda.threadIdx.x == 0:
        intrin.mbarrier_arrive_expect_tx(bar, 1024)
        intrin.cp_async_bulk_load(buffer, src, bar, 1024)
    intrin.mbarrier_try_wait(bar, 0)
    if cuda.threadIdx.x == 0:
        intrin.cp_async_bulk_store(dst, buffer, 1024)
        intrin.cp_async_bulk_commit_group()
        intrin.cp_async_bulk_wait_group_read(0)
        intrin.cp_async_bulk_wait_group(0)


def load_3d(tmap, out):
    """A 3-d box (2, 4, 8) of float32 at (1, 2, 8)."""
    tile = cuda.shared.array((2, 4, 8), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    init_barrier(bar, cuda.threadIdx.x)
    if cuda.threadIdx.x == 0:
        intrin.mbarrier_arrive_expect_tx(bar, 2 * 4 * 8 * 4)
        intrin.cp_async_bulk_tensor_load(tile, tmap, (1, 2, 8), bar)
    intrin.mbarrier_try_wait(bar, 0)
    out[0] = tile[1, 3, 7]


def load_with_two_coordinates(tmap, out):
    tile = cuda.shared.array((8, 32), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    intrin.cp_async_bulk_tensor_load(tile, tmap, (0, 0), bar)
    out[0] = tile[0, 0]


def load_with_scalar_coordinates(tmap, out):
    tile = cuda.shared.array((8, 32), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    intrin.cp_async_bulk_tensor_load(tile, tmap, 3, bar)


def load_with_float_barrier(tmap, out):
    tile = cuda.shared.array((8, 32), np.float32)
    bar = cuda.shared.array(1, np.float64)
    intrin.cp_async_bulk_tensor_load(tile, tmap, (0, 0), bar)


def load_with_array_as_map(a, out):
    tile = cuda.shared.array((8, 32), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    intrin.cp_async_bulk_tensor_load(tile, a, (0, 0), bar)


def bulk_load_of_float_size(src, out):
    buffer = cuda.shared.array(4, np.float32)
    bar = cuda.shared.array(1, np.uint64)
    intrin.cp_async_bulk_load(buffer, src, bar, 16.0)


def wait_group_of_variable(n):
    intrin.cp_async_bulk_wait_group(n)
