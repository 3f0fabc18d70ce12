"""The kernel and the functions that benchmarks/scaling.py runs in other processes (Dask
workers, the cold-cache workers), in a module of their own so that those processes import
them by name (a kernel pickles as its module and name)."""

import json
import os
import time

import numpy as np

from cumlir import cuda

THREADS = 256
SIGNATURE = "void(float32, float32[::1], float32[::1])"
BYTES_PER_ELEMENT = 12  # saxpy reads x and y and writes y: three float32


@cuda.jit
def saxpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


def blocks(n):
    return (n + THREADS - 1) // THREADS


def random_chunk(seed, n):
    """A chunk of *n* float32 uniform in [0, 1), drawn on the worker's GPU."""
    import cupy

    return cupy.random.RandomState(seed).random_sample(n, dtype=np.float32)


def saxpy_block(x, repeats, a=0.5):
    """A Dask block: ``y = a * x + y`` *repeats* times on a CuPy chunk *x* (y starting as x),
    on the chunk's GPU; the new chunk y."""
    y = x.copy()
    if x.size:
        launch = saxpy[blocks(x.size), THREADS]
        for _ in range(repeats):
            launch(np.float32(a), x, y)
    return y


def cold_cache_worker(start_at, n=1 << 20):
    """One of the cold-cache workers (CUMLIR_CACHE=1 and CUMLIR_CACHE_DIR set by the parent):
    ready a device and arrays, wait until the wall clock reaches *start_at* (all the workers
    then launch at once), launch saxpy for the first time, and print a line of JSON: whether
    the disk cache hit, the compile statistics' seconds, the time to the first result, and
    whether the result is right."""
    x = np.arange(n, dtype=np.float32)
    dx, dy = cuda.to_device(x), cuda.to_device(np.ones(n, np.float32))
    cuda.synchronize()
    time.sleep(max(0.0, start_at - time.time()))
    began = time.perf_counter()
    saxpy[blocks(n), THREADS](np.float32(2), dx, dy)
    cuda.synchronize()
    first = time.perf_counter() - began
    (stats,) = (overload.compile_stats for overload in saxpy.overloads.values())
    ok = bool(np.array_equal(dy.copy_to_host(), 2 * x + 1))
    seconds = sum(v for v in stats.values() if isinstance(v, float))
    print(json.dumps({"pid": os.getpid(), "cache": stats.get("cache"), "stats_s": seconds, "first_s": first, "ok": ok}))
