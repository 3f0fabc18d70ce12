"""``CUMLIR_SIMULATOR=python``: kernels run as their Python functions, thread by thread, so
that a tracer (pdb, coverage) sees their lines; results against NumPy, errors naming the
thread."""

import re
import sys

import numpy as np
import pytest
from numba import float32

from cumlir import cuda


@pytest.fixture
def python_mode(simulated, monkeypatch):
    monkeypatch.setenv("CUMLIR_SIMULATOR", "python")


def reverse_and_pair(a, out):
    s = cuda.shared.array(64, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    if i >= a.size:
        return
    s[t] = a[i]
    cuda.syncthreads()
    v = s[63 - t]
    v += cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    out[i] = 2 * v + cuda.laneid


def test_kernels_run_thread_by_thread(python_mode, rng):
    a = rng.standard_normal(128).astype(np.float32)
    out = np.full(128, np.nan, np.float32)
    cuda.jit(reverse_and_pair)[2, 64](a, out)
    expected = np.empty(128, np.float32)
    for b in range(2):
        block = a[64 * b : 64 * b + 64][::-1]
        for t in range(64):
            lane = t % 32
            expected[64 * b + t] = 2 * (block[t] + (block[t + 1] if lane < 31 else block[t])) + lane
    np.testing.assert_array_equal(out, expected)


def counted(out):
    i = cuda.grid(1)
    cuda.atomic.add(out, 0, 1)
    if i % 2:
        cuda.atomic.add(out, 1, 1)


def test_a_tracer_sees_the_kernels_lines(python_mode):
    """What pdb and coverage rely on: the kernel's own lines run in Python."""
    seen = set()
    code = counted.__code__

    def tracer(frame, event, arg):
        if frame.f_code is code and event == "line":
            seen.add(frame.f_lineno - code.co_firstlineno)
        return tracer

    import threading

    out = np.zeros(2, np.int64)
    threading.settrace(tracer)
    try:
        cuda.jit(counted)[1, 8](out)
    finally:
        threading.settrace(None)
        sys.settrace(None)
    np.testing.assert_array_equal(out, [8, 4])
    assert seen == {1, 2, 3, 4}


def out_of_bounds(out):
    i = cuda.grid(1)
    out[i] = i


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python 3.11's")
def test_an_index_error_names_the_thread(python_mode):
    with pytest.raises(IndexError) as caught:
        cuda.jit(out_of_bounds)[1, 8](np.zeros(5))
    # threads 5, 6 and 7 index past the end; the first to fail is reported
    assert re.search(
        r"in the kernel out_of_bounds, block \(0, 0, 0\), thread \([567], 0, 0\)", caught.value.__notes__[0]
    )


def test_one_kernel_can_ask_for_python(rng):
    """``cuda.jit(simulate=True)`` in a process that does not simulate: that kernel runs in
    Python, on NumPy arrays in place."""
    a = rng.standard_normal(128).astype(np.float32)
    out = np.full(128, np.nan, np.float32)
    kernel = cuda.jit(simulate=True)(reverse_and_pair)
    kernel[2, 64](a, out)
    assert not cuda.is_simulator()
    assert np.isfinite(out).all() and out[0] == 2 * (a[63] + a[62])
    with pytest.raises(TypeError, match="simulate must be True or False"):
        cuda.jit(simulate="yes")
