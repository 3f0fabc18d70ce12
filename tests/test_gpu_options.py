"""``cuda.jit`` options on the GPU: the code they change still computes NumPy's answers, and
the limits they set reach the loaded kernel."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime.driver import CudaDriverError

pytestmark = pytest.mark.gpu

N = 4099


def _fma(a, b, c, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i] + c[i]


def _run(kernel, rng, threads=128):
    a, b, c = (rng.standard_normal(N).astype(np.float32) for _ in range(3))
    out = np.full(N, np.nan, dtype=np.float32)  # poisoned: every element must be written
    kernel[(N + threads - 1) // threads, threads](a, b, c, out)
    expected = a.astype(np.float64) * b + c
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=4e-6)  # float32 rounding of a*b (|a*b| < 40)
    return kernel


def _attribute(kernel, name):
    from cuda.bindings import driver

    (overload,) = kernel.overloads.values()
    return overload.loaded().attribute(getattr(driver.CUfunction_attribute, name))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"max_registers": 32},
        {"launch_bounds": (128, 2)},
        {"lineinfo": True},
        {"fastmath": {"contract"}},
        {"fastmath": True},
        {"opt": False},
        {"lto": True},
        {"debug": True, "opt": False},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default",
)
def test_options_keep_the_answers(backend, options, rng):
    _run(cuda.jit(backend=backend, **options)(_fma), rng)


@pytest.mark.not_simulated("register counts are the GPU's")
def test_max_registers_limits_the_loaded_kernel(rng):
    kernel = _run(cuda.jit(max_registers=24)(_fma), rng)
    assert 0 < _attribute(kernel, "CU_FUNC_ATTRIBUTE_NUM_REGS") <= 24


def test_launch_bounds_limit_the_block(rng):
    kernel = _run(cuda.jit(launch_bounds=128)(_fma), rng)
    assert _attribute(kernel, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK") == 128
    with pytest.raises(CudaDriverError):  # the driver refuses the launch
        _run(kernel, rng, threads=256)


def test_shared_memory_carveout_reaches_the_kernel(rng):
    kernel = _run(cuda.jit(shared_memory_carveout=25)(_fma), rng)
    assert _attribute(kernel, "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT") == 25


def test_forceinline_device_function_at_opt_false(rng):
    @cuda.jit(device=True, forceinline=True)
    def product(x, y):
        return x * y

    @cuda.jit(opt=False)
    def k(a, b, c, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = product(a[i], b[i]) + c[i]

    _run(k, rng)
