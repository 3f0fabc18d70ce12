"""Cooperative launches on the GPU: grid-wide barriers against NumPy iterations, the
launch-size check, and ``forall``."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import cg_kernels as ck
from ...support import poisoned

pytestmark = pytest.mark.gpu

TPB = 128


def _smooth_on_host(a, steps):
    a = a.copy()
    for _ in range(steps):
        b = a.copy()
        b[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
        a = b
    return a


@pytest.mark.parametrize("n,steps", [(100_000, 200), (1000, 500), (3, 10)])
def test_grid_sync_stencil_matches_numpy(n, steps, rng):
    kernel = cuda.jit("void(float64[::1], float64[::1], int64)")(ck.smooth)
    most = kernel.max_cooperative_grid_blocks(TPB)
    blocks = min(most, (n + TPB - 1) // TPB)
    a = rng.uniform(-100, 100, n)
    expected = _smooth_on_host(a, steps)
    d_a, d_b = cuda.to_device(a), cuda.to_device(poisoned(n, np.float64))
    kernel[blocks, TPB](d_a, d_b, steps)
    np.testing.assert_allclose(d_a.copy_to_host(), expected, rtol=1e-12, atol=1e-12)


def test_grid_sync_orders_writes_across_blocks(rng):
    # every round reads elements other blocks wrote in the round before
    kernel = cuda.jit(ck.rotate)
    shift, steps = 7 * TPB + 3, 100
    probe = np.zeros(1, np.int32)
    kernel[1, TPB](probe, probe.copy(), 0, 0)  # compiles for these types
    blocks = min(kernel.max_cooperative_grid_blocks(TPB), 64)
    n = blocks * TPB - 5
    a = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)
    b = poisoned(n, np.int32)
    expected = np.roll(a, -shift * steps)
    kernel[blocks, TPB](a, b, shift, steps)
    np.testing.assert_array_equal(a, expected)


def test_a_grid_too_large_to_be_resident_is_refused():
    kernel = cuda.jit("void(float64[::1], float64[::1], int64)")(ck.smooth)
    (overload,) = kernel.overloads.values()
    most = overload.max_cooperative_grid_blocks(TPB)
    assert most == kernel.max_cooperative_grid_blocks(TPB) == kernel.max_cooperative_grid_blocks((TPB // 4, 4))
    from cuda.bindings import driver

    sms = cuda.get_current_device().attribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    assert most >= sms and most % sms == 0
    a = np.zeros(10)
    with pytest.raises(ValueError, match=rf"smooth.*{most + 1} blocks.*at most {most} blocks"):
        kernel[most + 1, TPB](a, a.copy(), 1)
    kernel[most, TPB](a, a.copy(), 1)  # the largest grid that fits launches


def test_forall_covers_every_task(rng):
    kernel = cuda.jit(ck.add_one)
    for n, tpb in ((100_003, 0), (1000, 32), (1, 0)):
        a = rng.integers(-1000, 1000, n).astype(np.float64)
        expected = a + 1
        kernel.forall(n, tpb=tpb)(a)
        np.testing.assert_array_equal(a, expected)
    a = np.zeros(5)
    kernel.forall(0)(a)
    np.testing.assert_array_equal(a, 0)


def test_forall_launches_a_cooperative_kernel(rng):
    kernel = cuda.jit("void(float64[::1], float64[::1], int64)")(ck.smooth)
    n = 1000
    a = rng.uniform(-1, 1, n)
    expected = _smooth_on_host(a, 20)
    kernel.forall(n, tpb=TPB)(a, poisoned(n, np.float64), 20)
    np.testing.assert_allclose(a, expected, rtol=1e-12, atol=1e-12)
