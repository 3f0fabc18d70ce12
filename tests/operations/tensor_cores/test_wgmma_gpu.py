"""Hopper's warpgroup tensor cores on the GPU (sm_90a), on both code generators: one warpgroup
multiplying bf16 and f16 matrices held in shared memory in the interleaved and the 128-byte
swizzled layouts (cumlir.wgmma_layout), and with A held in registers, compared with NumPy.
elect.sync is tests/operations/hopper/test_elect_gpu.py's, setmaxnreg and griddepcontrol
test_hopper_control_gpu.py's."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda import intrin

from ...cases import wgmma_kernels as wk
from ...support import poisoned

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("tensor-core operations have no host form")]


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability != (9, 0):
        pytest.skip("wgmma and setmaxnreg run on 9.0 devices only (sm_90a)")


@pytest.mark.parametrize("layout", sorted(wk.LAYOUTS))
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("k", [16, 64])
@pytest.mark.parametrize("n", [64, 128, 256])
def test_a_warpgroup_multiplies_matrices_in_shared_memory(backend, rng, n, k, dtype, layout):
    a, b = wk.operands(rng, n, k)
    a_layout, b_layout = wk.layouts(a, b, dtype, layout)
    kernel = cuda.jit(chip="sm_90a", backend=backend)(wk.make_product(n, k, dtype, a_layout, b_layout))
    out = poisoned(wk.M * n, np.float32).reshape(wk.M, n)
    kernel[1, wk.WARPGROUP](a_layout.data, b_layout.data, out)
    # the operands and their sums are exact in float32
    np.testing.assert_array_equal(out.astype(np.float64), a @ b)


@pytest.mark.parametrize("n", [64, 256])
def test_a_float16_accumulator(backend, rng, n):
    a, b = wk.operands(rng, n, 16)  # sums of 16 products of multiples of 1/4 below 2: exact in float16
    a_layout, b_layout = wk.layouts(a, b, "f16", "interleaved")
    kernel = cuda.jit(chip="sm_90a", backend=backend)(wk.make_product(n, 16, "f16", a_layout, b_layout, np.float16))
    out = poisoned(wk.M * n, np.float32).reshape(wk.M, n)
    kernel[1, wk.WARPGROUP](a_layout.data, b_layout.data, out)
    np.testing.assert_array_equal(out.astype(np.float64), a @ b)


@pytest.mark.parametrize("dtype, b_dtype", [("s8", "s8"), ("u8", "u8"), ("s8", "u8"), ("u8", "s8")])
@pytest.mark.parametrize("n, k", [(24, 32), (128, 64)])
def test_8_bit_integers_accumulate_in_int32(backend, rng, n, k, dtype, b_dtype):
    from cumlir import wgmma_layout as wl

    def draw(name, shape):
        info = np.iinfo(np.int8 if name == "s8" else np.uint8)
        return rng.integers(info.min, info.max + 1, shape).astype(info.dtype)

    a, b = draw(dtype, (wk.M, k)), draw(b_dtype, (k, n))
    a_layout, b_layout = wl.interleaved(a), wl.interleaved(np.ascontiguousarray(b.T))
    product = wk.make_integer_product(n, k, dtype, a_layout, b_layout, b_dtype)
    kernel = cuda.jit(chip="sm_90a", backend=backend)(product)
    out = poisoned(wk.M * n, np.int32).reshape(wk.M, n)
    kernel[1, wk.WARPGROUP](a_layout.data, b_layout.data, out)
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("n", [64, 256])
def test_a_warpgroup_multiplies_a_held_in_registers(backend, rng, n, dtype):
    if dtype == "bf16" and backend == "nvvm":
        pytest.skip("arrays of bfloat16 need backend='nvptx' below sm_100")
    a, b = wk.operands(rng, n, 16)
    _, b_layout = wk.layouts(a, b, dtype, "interleaved")
    kernel = cuda.jit(chip="sm_90a", backend=backend)(wk.make_register_product(n, dtype, b_layout))
    out = poisoned(wk.M * n, np.float32).reshape(wk.M, n)
    kernel[1, wk.WARPGROUP](wk.a_fragments(a, dtype), b_layout.data, out)
    np.testing.assert_array_equal(out.astype(np.float64), a @ b)


def _short_accumulator(descriptors, out):
    acc = cuda.local.array(8, np.float32)
    intrin.wgmma_mma_async(acc, descriptors[0], descriptors[1], "m64n64k16", 0, dtype="bf16")
    out[0] = acc[0]


def test_a_short_accumulator_raises_with_debug(backend):
    kernel = cuda.jit(chip="sm_90a", backend=backend, debug=True)(_short_accumulator)
    with pytest.raises(ValueError, match=r"the accumulator holds fewer than the shape's 32 elements"):
        kernel[1, wk.WARPGROUP](np.zeros(2, np.uint64), poisoned(1, np.float32))
