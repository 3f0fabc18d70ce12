"""TMA on a Hopper GPU (docs/hopper.md, "TMA"): tiles loaded into shared memory and stored back
through tensor maps, a multicast load in a cluster of 2, a bulk copy, and the zeros read
outside the matrix, each compared with NumPy."""

import ml_dtypes
import numpy as np
import pytest

from cumlir import cuda

from ...cases import tma_kernels as tk

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("TMA copies have no host form")]
NVPTX = "nvptx"  # bfloat16 arrays: the nvvm code generator has them from sm_100 only


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("TMA needs sm_90")


def test_tile_load_float32_and_zero_fill_at_the_edge(backend):
    host = np.arange(20 * 48, dtype=np.float32).reshape(20, 48)
    tmap = cuda.tensor_map.tiled(cuda.to_device(host), (tk.ROWS, tk.COLS))
    kernel = cuda.jit(tk.tile_load_f32, backend=backend)
    for row, col in ((8, 0), (16, 32)):  # the second box crosses the last rows and columns
        out = cuda.to_device(np.full((tk.ROWS, tk.COLS), -1, np.float32))
        kernel[1, tk.COLS](tmap, out, row, col)
        expected = np.zeros((tk.ROWS, tk.COLS), np.float32)
        inside = host[row : row + tk.ROWS, col : col + tk.COLS]
        expected[: inside.shape[0], : inside.shape[1]] = inside
        np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_tile_load_into_dynamic_shared_memory_after_a_static_array(backend):
    host = np.arange(20 * 48, dtype=np.float32).reshape(20, 48)
    tmap = cuda.tensor_map.tiled(cuda.to_device(host), (tk.ROWS, tk.COLS))
    kernel = cuda.jit(tk.tile_load_dynamic, backend=backend)
    out = cuda.to_device(np.full((tk.ROWS, tk.COLS), -1, np.float32))
    kernel[1, tk.COLS, 0, tk.ROWS * tk.COLS * 4](tmap, out, 8, 0)
    np.testing.assert_array_equal(out.copy_to_host(), host[8:16, 0:32])


def test_tile_load_bfloat16():
    host = (np.arange(16 * 64) % 251).astype(ml_dtypes.bfloat16).reshape(16, 64)
    tmap = cuda.tensor_map.tiled(cuda.to_device(host), (tk.ROWS, tk.COLS))
    out = cuda.to_device(np.zeros((tk.ROWS, tk.COLS), ml_dtypes.bfloat16))
    cuda.jit(tk.tile_load_bf16, backend=NVPTX)[1, tk.COLS](tmap, out, 8, 32)
    np.testing.assert_array_equal(out.copy_to_host(), host[8:16, 32:64])


def test_tile_store(backend):
    matrix = cuda.to_device(np.zeros((16, 64), np.float32))
    tmap = cuda.tensor_map.tiled(matrix, (tk.ROWS, tk.COLS))
    cuda.jit(tk.tile_store_f32, backend=backend)[1, tk.COLS](tmap, 8, 32)
    expected = np.zeros((16, 64), np.float32)
    expected[8:16, 32:64] = 1000 * np.arange(8)[:, None] + np.arange(32)[None, :]
    np.testing.assert_array_equal(matrix.copy_to_host(), expected)


def test_multicast_load_in_a_cluster_of_two(backend):
    host = np.arange(tk.ROWS * tk.COLS, dtype=np.float32).reshape(tk.ROWS, tk.COLS)
    tmap = cuda.tensor_map.tiled(cuda.to_device(host), (tk.ROWS, tk.COLS))
    out = cuda.to_device(np.zeros((2, tk.ROWS, tk.COLS), np.float32))
    cuda.jit(tk.multicast_load_f32, backend=backend)[2, tk.COLS, 0, 0, (2, 1, 1)](tmap, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.stack([host, host]))


def test_bulk_copy():
    src = np.arange(512, dtype=np.float32)
    dst = cuda.to_device(np.zeros(256, np.float32))
    cuda.jit(tk.bulk_copy_f32)[1, 32](cuda.to_device(src), dst)
    np.testing.assert_array_equal(dst.copy_to_host(), src[:256])
