"""A kernel nobody holds any more gives its module back to the driver: a process that
compiles and drops kernels for days keeps its device memory (benchmarks/soak.py measures it)."""

import gc

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime import cleanup
from cumlir.runtime import driver as drv

pytestmark = pytest.mark.gpu


def _fresh_kernel(k):
    namespace = {"cuda": cuda}
    exec(f"def scale_{k}(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = a[i] * {k}\n", namespace)
    return cuda.jit(namespace[f"scale_{k}"])


def test_a_dropped_kernel_unloads_its_module(monkeypatch):
    unloaded = []
    release = cleanup.release

    def noting(function, handle, made_in=None):
        if function == "cuModuleUnload":
            unloaded.append(handle)
        release(function, handle, made_in)

    monkeypatch.setattr(cleanup, "release", noting)
    a = cuda.to_device(np.ones(64, np.float32))
    kernel = _fresh_kernel(3)
    kernel[1, 64](a)
    assert np.array_equal(a.copy_to_host(), np.full(64, 3, np.float32))
    (overload,) = kernel.overloads.values()
    loaded = overload.loaded()
    module, name = loaded._module, loaded.name
    cu = drv.driver()
    assert cu.cuModuleGetFunction(module, name.encode())[0] == cu.CUresult.CUDA_SUCCESS
    del kernel, overload, loaded
    gc.collect()
    assert module in unloaded  # (asking the driver about the unloaded handle is undefined: it crashed once)


def test_kernels_launched_after_others_were_dropped_compute_right():
    a = cuda.to_device(np.ones(64, np.float32))
    expected = np.ones(64, np.float32)
    for k in range(2, 40):
        _fresh_kernel(k)[1, 64](a)
        expected *= k
        gc.collect()
    np.testing.assert_allclose(a.copy_to_host(), expected, rtol=1e-6)
