"""The warp's 8x8 matrix loads and stores on the GPU (operations/tensor_cores/ldmatrix.py), on
both code generators: ldmatrix with and without .trans gives each lane the elements PTX's
fragment layout assigns it (threads giving the rows of other threads' matrices, which the host
tier cannot show), into 16-bit elements or packed 32-bit words, and stmatrix (sm_90) stores what
ldmatrix loads."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import tensor_core_kernels as tk
from ...support import poisoned

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("tensor-core operations have no host form")]


def _needs(cc):
    if cuda.get_current_device().compute_capability < cc:
        pytest.skip(f"needs sm_{cc[0]}{cc[1]}")


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_gives_each_lane_its_elements(backend, rng, num, trans):
    _needs((8, 0))
    matrices = rng.integers(0, 2**16, (tk.ROWS, 8)).astype(np.uint16)
    out = poisoned(32 * 2 * num, np.uint16).reshape(32, 2 * num)
    cuda.jit(backend=backend)(tk.ldmatrix_kernel(num, trans))[1, 32](matrices, out)
    np.testing.assert_array_equal(out, tk.ldmatrix_expected(matrices, num, trans))


def test_ldmatrix_into_words_holds_the_first_element_low(backend, rng):
    _needs((8, 0))
    matrices = rng.integers(0, 2**16, (tk.ROWS, 8)).astype(np.uint16)
    out = poisoned(32 * 4, np.uint32).reshape(32, 4)
    cuda.jit(backend=backend)(tk.ldmatrix_words_kernel)[1, 32](matrices, out)
    halves = tk.ldmatrix_expected(matrices, 4, False).astype(np.uint32)
    np.testing.assert_array_equal(out, halves[:, 0::2] | (halves[:, 1::2] << 16))


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_stores_what_ldmatrix_loads(backend, rng, num, trans):
    _needs((9, 0))
    matrices = rng.integers(1, 2**16, (tk.ROWS, 8)).astype(np.uint16)
    fragments = np.ascontiguousarray(tk.ldmatrix_expected(matrices, num, trans))
    out = poisoned(tk.ROWS * 8, np.uint16).reshape(tk.ROWS, 8)
    cuda.jit(backend=backend)(tk.stmatrix_kernel(num, trans))[1, 32](fragments, out)
    expected = np.zeros_like(matrices)
    expected[: 8 * num] = matrices[: 8 * num]
    np.testing.assert_array_equal(out, expected)
