"""Thread indexing on the GPU (operations/cuda/indexing.py), on both code generators: every
thread of 3-d launches records its twelve registers, grid(3) and gridsize(3), compared with the
launch's geometry computed by NumPy; and a 1-d launch of more than 2**31 threads, whose last
threads' positions need 64 bits."""

import numpy as np
import pytest

from cumlir import cuda

from ...support import poisoned

pytestmark = pytest.mark.gpu


def every_index(out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = cuda.gridsize(3)
    row = out[z, y, x]
    row[0], row[1], row[2] = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    row[3], row[4], row[5] = cuda.blockIdx.x, cuda.blockIdx.y, cuda.blockIdx.z
    row[6], row[7], row[8] = cuda.blockDim.x, cuda.blockDim.y, cuda.blockDim.z
    row[9], row[10], row[11] = cuda.gridDim.x, cuda.gridDim.y, cuda.gridDim.z
    row[12], row[13], row[14] = x, y, z
    row[15], row[16], row[17] = nx, ny, nz


@pytest.mark.parametrize(
    "blocks, threads",
    [((3, 2, 2), (8, 4, 2)), ((1, 1, 1), (1, 1, 1)), ((5, 1, 3), (32, 2, 1)), ((2, 3, 1), (1, 1, 64))],
)
def test_every_thread_of_a_3d_launch_sees_its_indices(blocks, threads, backend):
    shape = [b * t for b, t in zip(blocks, threads)]  # threads along x, y, z
    out = poisoned(int(np.prod(shape)) * 18, np.int64).reshape(shape[2], shape[1], shape[0], 18)
    cuda.jit(backend=backend)(every_index)[blocks, threads](out)
    z, y, x = np.indices(out.shape[:3])
    for axis, (position, block, thread) in enumerate(zip((x, y, z), blocks, threads)):
        np.testing.assert_array_equal(out[..., axis], position % thread, err_msg=f"threadIdx.{'xyz'[axis]}")
        np.testing.assert_array_equal(out[..., 3 + axis], position // thread, err_msg=f"blockIdx.{'xyz'[axis]}")
        np.testing.assert_array_equal(out[..., 6 + axis], thread, err_msg=f"blockDim.{'xyz'[axis]}")
        np.testing.assert_array_equal(out[..., 9 + axis], block, err_msg=f"gridDim.{'xyz'[axis]}")
        np.testing.assert_array_equal(out[..., 12 + axis], position, err_msg=f"grid(3)[{axis}]")
        np.testing.assert_array_equal(out[..., 15 + axis], block * thread, err_msg=f"gridsize(3)[{axis}]")


FIRST = 2**31  # the first thread whose position does not fit an int32


def beyond_int32(out):
    i = cuda.grid(1)
    n = cuda.gridsize(1)
    if i == n - 1:
        out[0] = i
        out[1] = n
        out[2] = cuda.blockIdx.x
    if i >= FIRST:
        out[3 + i - FIRST] = i


def test_a_grid_of_more_than_2_to_the_31_threads(backend):
    threads, blocks = 1024, 2**21 + 1  # 2**31 + 1024 threads
    out = poisoned(3 + threads, np.int64)
    cuda.jit(backend=backend)(beyond_int32)[blocks, threads](out)
    n = blocks * threads
    np.testing.assert_array_equal(out[:3], [n - 1, n, blocks - 1])
    np.testing.assert_array_equal(out[3:], np.arange(FIRST, n))
