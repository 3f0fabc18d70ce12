"""Arrays made in device code on the GPU (operations/numpy/arraycreation.py), what the host's
run of the generated code cannot show: many threads making their arrays at once, on the
device heap (run-time shapes, counted by the runtime, every one freed) and in each thread's
own stack slot (compile-time shapes made once: no runtime at all), and float16 arrays
(the host's JIT has no float16 conversions); compared with NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ... import support

pytestmark = pytest.mark.gpu

THREADS, BLOCK = 256, 64


def _per_thread(out, x, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = np.full((2, 3), i)  # a compile-time shape made once: the thread's stack
        h = np.arange(i % 5, n)  # the heap, one each
        c = x[i].copy()
        z = np.zeros_like(x[i], np.int16)
        c[0] = -1.0  # a copy: x keeps its element
        s[0, 0] = 2 * i
        out[i, 0] = s[0, 0] + s[1, 2]
        out[i, 1] = h.size
        out[i, 2] = h[h.size - 1]
        out[i, 3] = c[0] + c[1] + z[2]
        out[i, 4] = x[i, 0]


def _per_thread_on_the_host(x, n):
    out = np.empty((x.shape[0], 5))
    for i in range(x.shape[0]):
        s = np.full((2, 3), i)
        s[0, 0] = 2 * i
        h = np.arange(i % 5, n)
        c = x[i].copy()
        c[0] = -1.0
        out[i] = [s[0, 0] + s[1, 2], h.size, h[-1], c[0] + c[1] + np.zeros(3, np.int16)[2], x[i, 0]]
    return out


def test_every_thread_makes_its_own_arrays(rng):
    kernel = cuda.jit(nrt=True)(_per_thread)
    x = rng.standard_normal((THREADS, 3))
    out = support.poisoned(THREADS * 5, "float64").reshape(THREADS, 5)
    kernel[THREADS // BLOCK, BLOCK](out, x, 9)
    np.testing.assert_array_equal(out, _per_thread_on_the_host(x, 9))
    stats = kernel.nrt_stats()
    # three heap arrays a thread (arange, copy, zeros_like); the stack array is not the runtime's
    assert stats.alloc == stats.free == 3 * THREADS, stats
    assert stats.mi_alloc == stats.mi_free, stats


@cuda.jit(nrt=False)
def _stack_slots(out):
    i = cuda.grid(1)
    t = np.zeros(16, np.int32)
    for j in range(16):
        t[j] = i * 16 + j
    cuda.syncthreads()  # every thread has written its array before any reads its own back
    for j in range(16):
        out[i, j] = t[j]


def test_stack_arrays_are_each_threads_own_without_the_runtime():
    out = support.poisoned(THREADS * 16, "int32").reshape(THREADS, 16)
    _stack_slots[THREADS // BLOCK, BLOCK](out)
    np.testing.assert_array_equal(out, np.arange(THREADS * 16, dtype=np.int32).reshape(THREADS, 16))


@cuda.jit(nrt=True)
def _half_arrays(full, ranged, ones, x, n):
    full[...] = np.full(n, x[0], np.float16)
    ranged[...] = np.arange(n, dtype=np.float16) * x[1]
    ones[...] = np.ones_like(x[:n]) + x[:n]


def test_float16_arrays_match_numpy(rng):
    n = 6
    x = rng.uniform(-4, 4, 8).astype(np.float16)
    outputs = [support.poisoned(n, "float16") for _ in range(3)]
    _half_arrays[1, 1](*outputs, x, n)
    np.testing.assert_array_equal(outputs[0], np.full(n, x[0], np.float16))
    np.testing.assert_array_equal(outputs[1], np.arange(n, dtype=np.float16) * x[1])
    np.testing.assert_array_equal(outputs[2], np.ones_like(x[:n]) + x[:n])
