"""Arrays made in device code on the GPU (the device runtime, docs/nrt.md): NumPy's results,
and the runtime's counters balanced (every allocation freed), also after 10,000 launches.

The expected number of allocations of each launch comes from running the same generated code
on the host against the checking stand-in of the runtime (tests/nrt_harness.py)."""

import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

from . import nrt_harness
from .cases import nrt_kernels as nk
from .support import poisoned

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.not_simulated("compares with tests/nrt_harness.py, which compiles for the NVPTX path"),
]

THREADS, BLOCK = 512, 128
CASES = nk.CASES + [nk.dtype_case(d) for d in nk.DTYPES]
HOST_CASES = nk.CASES + [nk.dtype_case(d) for d in nk.DTYPES if d != "float16"]


def _inputs(rng, rows=THREADS):
    x = rng.uniform(-1.0, 1.0, (rows, nk.N))
    x[::2, 0] = np.abs(x[::2, 0])  # owned_or_borrowed takes both paths
    x[1::2, 0] = -np.abs(x[1::2, 0])
    return x, poisoned(rows * nk.OUT, np.float64).reshape(rows, nk.OUT)


def _host_allocations(case, x):
    """Allocations the generated code makes for each row, counted on the host."""
    kernel = nrt_harness.Kernel(nk.single(case), (types.float64[::1], types.float64[::1], types.int64))
    total = 0
    for row in x:
        runtime = kernel(np.zeros(nk.OUT), row.copy(), nk.N)
        runtime.check_balanced()
        total += runtime.stats["alloc"]
    return total


def _check_rows(case, x, out, before):
    for i in range(x.shape[0]):
        np.testing.assert_array_equal(out[i], nk.reference(case, x[i], nk.N, before[i]), err_msg=f"row {i}")


def _balanced(stats):
    assert stats.alloc == stats.free and stats.mi_alloc == stats.mi_free, stats


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_allocating_kernels_match_numpy_and_free_everything(case, rng):
    kernel = cuda.jit(nrt=True)(nk.per_thread(case))
    x, out = _inputs(rng)
    before = out.copy()
    kernel[THREADS // BLOCK, BLOCK](out, x, nk.N)
    _check_rows(case, x, out, before)
    stats = kernel.nrt_stats()
    _balanced(stats)
    if case in HOST_CASES:
        assert stats.alloc == _host_allocations(case, x)
    else:
        assert stats.alloc > 0


@pytest.mark.parametrize("lto", [False, True])
def test_ten_thousand_launches_leave_the_counters_balanced(lto, rng):
    case = nk.returned_from_device_functions
    kernel = cuda.jit(nrt=True, lto=lto)(nk.per_thread(case))
    x, out = _inputs(rng, 64)
    dx = cuda.to_device(x)
    dout = cuda.to_device(out)
    kernel[1, 64](dout, dx, nk.N)
    first = kernel.nrt_stats()
    assert first.alloc == _host_allocations(case, x) > 0
    for _ in range(9_999):
        kernel[1, 64](dout, dx, nk.N)
    stats = kernel.nrt_stats()
    _balanced(stats)
    assert stats.alloc == 10_000 * first.alloc and stats.mi_alloc == 10_000 * first.mi_alloc
    _check_rows(case, x, dout.copy_to_host(), out)


def test_context_totals_sum_the_kernels(rng):
    kernels = [cuda.jit(nrt=True)(nk.per_thread(case)) for case in (nk.like, nk.iteration)]
    x, out = _inputs(rng, BLOCK)
    # the totals sum the kernels loaded now: none may be collected between the two readings
    gc.collect()
    gc.disable()
    try:
        start = cuda.nrt_stats()
        for kernel in kernels:
            kernel[1, BLOCK](out, x, nk.N)
        total = cuda.nrt_stats()
    finally:
        gc.enable()
    assert total.alloc - start.alloc == sum(k.nrt_stats().alloc for k in kernels) > 0
    _balanced(total)


@pytest.mark.parametrize("lto", [False, True])
def test_cpp_allocation_freed_by_cumlir_decref(lto):
    make_squares = nk.squares_function()

    @cuda.jit(nrt=True, lto=lto)
    def kernel(out, n):
        i = cuda.grid(1)
        if i < out.shape[0]:
            a = cuda.nrt_array(make_squares(n), n, np.float64)
            b = a[1:]
            for j in range(b.size):
                out[i, j] = b[j] + i

    n = 9
    out = poisoned(THREADS * (n - 1), np.float64).reshape(THREADS, n - 1)
    kernel[THREADS // BLOCK, BLOCK](out, n)
    expected = np.arange(1.0, n) ** 2 + np.arange(THREADS)[:, None]
    np.testing.assert_array_equal(out, expected)
    stats = kernel.nrt_stats()
    _balanced(stats)
    assert stats.alloc == THREADS


def test_exhausted_heap_ends_the_launch_with_an_error():
    """A separate process: the trap leaves its context unusable."""
    script = textwrap.dedent(
        """
        import numpy as np
        from cumlir import cuda

        @cuda.jit(nrt=True)
        def hog(out, n):
            a = np.empty(n)
            a[n - 1] = 1.0
            out[0] = a[n - 1]

        out = np.zeros(1)
        try:
            hog[1, 1](out, 1 << 40)
            cuda.synchronize()
        except Exception as e:
            print("launch failed:", type(e).__name__)
        else:
            print("launch succeeded")
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    # the runtime prints what was asked for before trapping; whether the driver flushes the
    # printf buffer of a trapped kernel is its own business, so only the failure is required
    assert "launch failed" in result.stdout, result.stdout + result.stderr
