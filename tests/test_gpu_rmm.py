"""On the GPU: RAPIDS' memory manager (RMM) serves cumlir's allocations through Numba-CUDA's
External Memory Management plugin interface, as cuDF, cuML and cuGraph set it up: RMM's
``RMMNumbaManager``, given to ``cuda.set_memory_manager`` or named by
``NUMBA_CUDA_MEMORY_MANAGER``, over a pool. Every device array, the copy of a NumPy
argument and a ufunc's output come from the pool (RMM's statistics count them, and their
addresses lie in the pool's one block) and go back to it when dropped; kernels over them
compute what NumPy does. Each way runs in a fresh process, as a memory manager is chosen
before the first context is made."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from . import support

pytestmark = pytest.mark.gpu

SCRIPT = textwrap.dedent(
    """
    import gc, sys
    import numpy as np
    if not hasattr(np, "row_stack"):  # numba-cuda, which RMM's plugin imports, still calls it
        np.row_stack = np.vstack
    import rmm
    from cuda.bindings import driver as cu

    pool = rmm.mr.PoolMemoryResource(rmm.mr.CudaMemoryResource(), initial_pool_size=1 << 28)
    stats = rmm.mr.StatisticsResourceAdaptor(pool)
    rmm.mr.set_current_device_resource(stats)

    from cumlir import cuda
    if sys.argv[1] == "function":
        from rmm.allocators.numba import RMMNumbaManager
        cuda.set_memory_manager(RMMNumbaManager)

    def counts():
        c = stats.allocation_counts
        return c.current_count, c.current_bytes, c.total_count

    def pool_base(address):
        err, base, size = cu.cuMemGetAddressRange(address)
        assert err == cu.CUresult.CUDA_SUCCESS, err
        return int(base), int(size)

    @cuda.jit
    def axpy(out, a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    rng = np.random.default_rng(7)
    n = 100_003
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    before = counts()
    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    d_out = cuda.device_array(n)
    d_out.copy_to_device(np.full(n, np.nan))
    assert counts()[0] == before[0] + 3, (before, counts())
    bases = {pool_base(a.device_ctypes_pointer.value) for a in (d_x, d_y, d_out)}
    assert len(bases) == 1 and next(iter(bases))[1] >= 1 << 28, bases  # one block: the pool's
    axpy[(n + 255) // 256, 256](d_out, 2.5, d_x, d_y)
    np.testing.assert_allclose(d_out.copy_to_host(), 2.5 * x + y, rtol=1e-12, atol=1e-15)  # fused multiply-add

    # a NumPy argument's device copy comes from the pool and goes back after the launch
    total = counts()[2]
    out = np.full(n, np.nan)
    axpy[(n + 255) // 256, 256](out, -1.0, d_x, y)
    np.testing.assert_allclose(out, -x + y, rtol=1e-12, atol=1e-15)
    assert counts()[2] >= total + 2 and counts()[0] == before[0] + 3, counts()

    # a GPU ufunc's output
    hyp = cuda.vectorize(["float64(float64, float64)"], target="cuda")(lambda a, b: (a * a + b * b) ** 0.5)
    result = hyp(d_x, d_y)
    np.testing.assert_allclose(result.copy_to_host(), np.hypot(x, y), rtol=1e-14)
    assert pool_base(result.device_ctypes_pointer.value) in bases

    assert type(cuda.current_context().memory_manager).__name__ == "RMMNumbaManager"
    del d_x, d_y, d_out, result
    gc.collect()
    assert counts()[0] == before[0], (before, counts())  # everything went back to the pool
    print("ok", counts()[2] - before[2])
    """
)


@pytest.mark.parametrize("way", ["function", "environment"])
def test_rmm_pool_serves_every_allocation(way):
    support.needs_the_gpu_itself("RMM allocates with the CUDA runtime on a real device")
    if importlib.util.find_spec("rmm") is None:
        pytest.skip("RMM (rmm-cu13) is not installed")
    env = dict(os.environ)
    env.pop("CUMLIR_MEMORY_MANAGER", None)
    env.pop("NUMBA_CUDA_MEMORY_MANAGER", None)
    if way == "environment":
        env["NUMBA_CUDA_MEMORY_MANAGER"] = "rmm.allocators.numba"
    result = subprocess.run([sys.executable, "-c", SCRIPT, way], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.split()
    assert lines[0] == "ok" and int(lines[1]) >= 6, result.stdout
