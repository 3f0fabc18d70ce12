"""The loops of GPU ufunc kernels on the GPU (operations/numpy/elementwise.py): ``elementwise``
and ``gufunc_loop`` kernels launched on grids of many blocks at once (the host runs its
threads one after another), every position computed exactly once, compared with NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from .test_elementwise import _dots, _in_place, _three

pytestmark = pytest.mark.gpu

GRIDS = [(1, 1), (3, 64), (64, 128)]  # one thread for all, fewer threads than positions, more


@pytest.mark.parametrize("blocks, threads", GRIDS)
def test_elementwise_on_grids_of_every_size(blocks, threads, rng):
    x = rng.uniform(-100, 100, (37, 129))
    y = np.asfortranarray(np.broadcast_to(rng.uniform(-3, 3, 129), (37, 129)))  # an F operand
    s = float(rng.uniform(-10, 10))
    out = support.poisoned(x.size, "float64").reshape(x.shape)
    cuda.jit(_three)[blocks, threads](x, y, s, out)
    support.assert_contractible(out, x * y + s, x * y, s)


@pytest.mark.parametrize("blocks, threads", GRIDS)
def test_each_element_is_computed_exactly_once(blocks, threads, rng):
    x = rng.integers(-1000, 1000, (33, 65))
    d_x = cuda.to_device(x)
    cuda.jit(_in_place)[blocks, threads](d_x)
    np.testing.assert_array_equal(d_x.copy_to_host(), x + 1)  # an element computed twice gains 2


@pytest.mark.parametrize("blocks, threads", GRIDS)
def test_gufunc_loop_on_grids_of_every_size(blocks, threads, rng):
    a = rng.integers(-9, 9, (13, 17, 5)).astype(np.float64)
    b = rng.integers(-9, 9, (13, 17, 5)).astype(np.float64)
    scale = rng.integers(-5, 5, (13, 17)).astype(np.float64)
    out = np.full((13, 17, 1), np.nan)
    cuda.jit(_dots)[blocks, threads](a, b, scale, out)
    np.testing.assert_array_equal(out[..., 0], scale * np.einsum("ijk,ijk->ij", a, b))
