"""Control flow, indexing and thread-indexing intrinsics, run on the GPU against host references."""

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import scalar_kernels

pytestmark = pytest.mark.gpu


def _launch(pyfunc, n, *args, threads=64):
    cuda.jit(pyfunc)[(n + threads - 1) // threads, threads](*args)


def test_logical_operators(rng):
    a = rng.integers(-5, 6, 1000).astype(np.int64)
    b = rng.integers(-5, 6, 1000).astype(np.int64)
    out = support.poisoned(1000, np.bool_)
    out[:] = False
    out[::2] = True
    _launch(scalar_kernels.logical, 1000, a, b, out)
    expected = np.array([(x > 0 and y > 0) or (not (x < y) and x != 3) for x, y in zip(a, b)])
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_if_elif_else(dtype, rng):
    a = np.concatenate([[-11, -10, -1, 0, 1], rng.integers(-30, 30, 995)]).astype(dtype)
    out = support.poisoned(len(a), np.int64)
    _launch(scalar_kernels.branches, len(a), a, out)
    expected = np.where(a < -10, 1, np.where(a < 0, 2, np.where(a == 0, 3, 4)))
    np.testing.assert_array_equal(out, expected)


def _ranged_sums(n):
    s = sum(range(n))
    s += sum(2 * k for k in range(n, -n, -3))
    s -= sum(range(-n, n, 7))
    return s


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_for_range_steps(dtype, rng):
    a = np.concatenate([[0, 1, 2, 3, 7], rng.integers(0, 200, 300)]).astype(dtype)
    out = support.poisoned(len(a), np.int64)
    _launch(scalar_kernels.ranged_sums, len(a), a, out)
    np.testing.assert_array_equal(out, [_ranged_sums(int(n)) for n in a])


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_unsigned_ranges(dtype, rng):
    a = np.concatenate([[0, 1, 2, 9], rng.integers(0, 300, 200)]).astype(dtype)
    out = support.poisoned(len(a), np.int64)
    _launch(scalar_kernels.unsigned_ranges, len(a), a, out)
    np.testing.assert_array_equal(out, [sum(range(n)) + sum(range(2, n, 3)) + sum(range(n, 0, -2)) for n in a.tolist()])


def test_while_break_continue(rng):
    a = rng.integers(-3, 100, 500).astype(np.int64)
    out = support.poisoned(len(a), np.int64)
    _launch(scalar_kernels.loop_control, len(a), a, out)
    np.testing.assert_array_equal(out, [sum(k for k in range(1, n + 1) if k % 3) for n in a])


def test_early_return(rng):
    a = rng.integers(-50, 50, 777).astype(np.int32)
    out = support.poisoned(len(a), np.int32)
    _launch(scalar_kernels.early_return, len(a), a, out)
    np.testing.assert_array_equal(out, np.where(a < 0, -1, a * 2))


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint32"])
def test_negative_indices_wrap(dtype, rng):
    a = (rng.random(301) * 100).astype(dtype)
    out = support.poisoned(len(a), dtype)
    _launch(scalar_kernels.negative_index, len(a), a, out)
    np.testing.assert_array_equal(out, a + a[-1])


def test_shape_size_len(rng):
    a = rng.random(12345).astype(np.float64)
    out = support.poisoned(3, np.int64)
    _launch(scalar_kernels.shapes, 1, a, out)
    np.testing.assert_array_equal(out, [12345, 12345, 12345])


@pytest.mark.parametrize("shape,threads", [((37, 53), (8, 8)), ((100, 3), (16, 4)), ((1, 1000), (1, 256))])
def test_grid_2d(shape, threads):
    out = np.full(shape, -7, np.int64)
    blocks = tuple((s + t - 1) // t for s, t in zip(shape, threads))
    cuda.jit(scalar_kernels.grid_2d)[blocks, threads](out)
    x, y = np.indices(shape)
    np.testing.assert_array_equal(out, x * 1000 + y)


def test_grid_3d():
    shape, threads = (13, 9, 21), (4, 4, 8)
    out = np.full(shape, -7, np.int64)
    blocks = tuple((s + t - 1) // t for s, t in zip(shape, threads))
    cuda.jit(scalar_kernels.grid_3d)[blocks, threads](out)
    x, y, z = np.indices(shape)
    np.testing.assert_array_equal(out, (x * 100 + y) * 100 + z)
    check = np.full(shape, -7, np.int64)
    cuda.jit(scalar_kernels.registers_3d)[blocks, threads](check)
    assert (check == 1).all(), np.unique(check)


@pytest.mark.parametrize("n,threads", [(1, 1), (1000, 128), (4097, 1024), (300, 7)])
def test_thread_registers(n, threads):
    blocks = (n + threads - 1) // threads
    out = np.full((n, 7), -7, np.int64)
    cuda.jit(scalar_kernels.registers)[blocks, threads](out)
    i = np.arange(n)
    np.testing.assert_array_equal(out[:, 0], i % threads)
    np.testing.assert_array_equal(out[:, 1], i // threads)
    np.testing.assert_array_equal(out[:, 2], threads)
    np.testing.assert_array_equal(out[:, 3], blocks)
    np.testing.assert_array_equal(out[:, 4], blocks * threads)
    np.testing.assert_array_equal(out[:, 5], 0)
    np.testing.assert_array_equal(out[:, 6], 1)
