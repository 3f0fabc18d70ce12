"""The CUDA driver's linker on the GPU (``CUMLIR_LINKER=driver``, what ``pip install cumlir``
uses without the extra ``nvjitlink``): kernels of every kind it links give NumPy's results,
with nvJitLink made unusable so that nothing reaches it."""

import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from cumlir import cuda, linking
from cumlir.linking import nvjitlink

from . import support, test_gpu_linking

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("the CUDA driver's linker and the cubins it makes")]

N = 4099  # not a multiple of a block


@pytest.fixture(autouse=True)
def driver_only(monkeypatch):
    monkeypatch.setenv("CUMLIR_LINKER", "driver")

    def refused(*args, **kwargs):
        raise AssertionError("nvJitLink was called with CUMLIR_LINKER=driver")

    monkeypatch.setattr(nvjitlink, "link", refused)


def _grid(n, block=128):
    return (n + block - 1) // block, block


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint64"])
def test_element_wise_kernels(rng, dtype):
    @cuda.jit
    def add(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    a, b = (support.random_values(dtype, N, rng) for _ in range(2))
    out = support.poisoned(N, dtype)
    add[_grid(N)](a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_libdevice_math(rng):
    @cuda.jit
    def waves(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = math.sin(x[i]) * math.exp(-x[i] * x[i])

    x = rng.uniform(-4, 4, N)
    out = support.poisoned(N, np.float64)
    waves[_grid(N)](x, out)
    np.testing.assert_allclose(out, np.sin(x) * np.exp(-x * x), rtol=1e-13, atol=1e-15)


def test_shared_memory_and_atomics(rng):
    @cuda.jit
    def block_sums(x, total):
        part = cuda.shared.array(128, np.float64)
        i = cuda.grid(1)
        part[cuda.threadIdx.x] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        step = 64
        while step:
            if cuda.threadIdx.x < step:
                part[cuda.threadIdx.x] += part[cuda.threadIdx.x + step]
            cuda.syncthreads()
            step //= 2
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(total, 0, part[0])

    x = rng.standard_normal(N)
    total = np.zeros(1)
    block_sums[_grid(N)](x, total)
    assert math.isclose(total[0], math.fsum(x), rel_tol=1e-12)


def test_the_device_runtime_is_linked(rng):
    @cuda.jit
    def cumulative(x, out):
        i = cuda.grid(1)
        if i < out.size:
            scratch = np.zeros(4)
            for k in range(4):
                scratch[k] = x[i] * (k + 1)
            out[i] = scratch.sum()

    x = rng.standard_normal(N)
    out = support.poisoned(N, np.float64)
    cumulative[_grid(N)](x, out)
    np.testing.assert_allclose(out, x * 10, rtol=1e-15)


def test_cuda_cpp_link_items(rng, tmp_path):
    test_gpu_linking.test_kernel_links_a_cxx_file(rng, tmp_path)  # compiled by NVRTC to PTX for the driver


@pytest.mark.parametrize(
    "options",
    [{"debug": True, "opt": False}, {"lineinfo": True}, {"ptxas_options": "-O1"}, {"max_registers": 32}],
    ids=["debug", "lineinfo", "O1", "max_registers"],
)
def test_options_that_reach_ptxas(rng, options):
    @cuda.jit(**options)
    def scale(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] * 0.5

    a = rng.standard_normal(N).astype(np.float32)
    out = support.poisoned(N, np.float32)
    scale[_grid(N)](a, out)
    np.testing.assert_array_equal(out, a * np.float32(0.5))


def test_lineinfo_reaches_the_cubins_line_tables():
    from cumlir.codegen.disassemble import nvdisasm

    def halve(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 0.5

    cc = cuda.get_current_device().compute_capability
    for lineinfo in (False, True):
        kernel = cuda.jit("void(float32[:])", lineinfo=lineinfo)(halve)
        listing = nvdisasm(next(iter(kernel.overloads.values())).output("cubin", cc), ["-g"])
        assert ("//## File" in listing) == lineinfo


def test_the_architecture_specific_target(rng):
    cc = cuda.get_current_device().compute_capability
    if cc != (9, 0):
        pytest.skip("sm_90a runs on compute capability 9.0")

    @cuda.jit(chip="sm_90a")
    def negate(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = -a[i]

    a = rng.standard_normal(N).astype(np.float32)
    out = support.poisoned(N, np.float32)
    negate[_grid(N)](a, out)
    np.testing.assert_array_equal(out, -a)


def test_a_thread_with_no_current_context_links(rng):
    """A cubin asked for on a fresh thread, before any launch there: the driver links in device
    0's primary context, lent for the link; the cubin then runs on the main thread."""

    def twice(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    kernel = cuda.jit("void(float32[:])")(twice)
    cc = cuda.get_current_device().compute_capability
    made = []
    thread = threading.Thread(target=lambda: made.append(next(iter(kernel.overloads.values())).output("cubin", cc)))
    thread.start()
    thread.join()
    assert made and made[0][:4] == b"\x7fELF"
    a = rng.standard_normal(N).astype(np.float32)
    expected = a * 2
    kernel[_grid(N)](a)
    np.testing.assert_array_equal(a, expected)


def test_a_cached_kernel_made_by_the_driver_runs_in_a_fresh_process(tmp_path):
    source = tmp_path / "cached_driver_kernels.py"
    source.write_text(
        "from cumlir import cuda\n"
        "@cuda.jit(cache=True)\n"
        "def cube(a, out):\n"
        "    i = cuda.grid(1)\n"
        "    if i < out.size:\n"
        "        out[i] = a[i] * a[i] * a[i]\n"
    )
    run = (
        "import numpy as np, sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from cached_driver_kernels import cube\n"
        "a = np.arange(1000, dtype=np.int64) - 500\n"
        "out = np.zeros_like(a)\n"
        "cube[8, 128](a, out)\n"
        "assert (out == a ** 3).all()\n"
        "print(next(iter(cube.overloads.values())).compile_stats['cache'])\n"
    )
    env = {**os.environ, "CUMLIR_LINKER": "driver", "CUMLIR_CACHE_DIR": str(tmp_path / "cache")}
    first, second = (
        subprocess.run([sys.executable, "-c", run], env=env, capture_output=True, text=True, check=True).stdout.strip()
        for _ in range(2)
    )
    assert (first, second) == ("miss", "hit")
    nvjitlink_env = {**env, "CUMLIR_LINKER": "nvjitlink"}
    third = subprocess.run([sys.executable, "-c", run], env=nvjitlink_env, capture_output=True, text=True, check=True)
    assert third.stdout.strip() == "miss"  # the key names the linker


def test_the_driver_names_itself_in_the_cache_key():
    assert linking.linker_identity().startswith("driver ")
