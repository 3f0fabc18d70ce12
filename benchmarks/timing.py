"""Timing shared by the benchmarks (each runs as a script: ``from timing import median_ms``)."""

import time

import numpy as np


def median_ms(run, repeats=20):
    """The median wall time of *run* in milliseconds, the device synchronized after each call
    (CuPy's runtime does it); one warm-up call first."""
    import cupy as cp

    run()
    cp.cuda.runtime.deviceSynchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        cp.cuda.runtime.deviceSynchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def numba_cuda():
    """(numba-cuda's ``cuda`` module, None), or (None, why it is not measured)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 calls np.row_stack, removed from NumPy 2.4
    try:
        from numba import cuda as ncuda

        if not ncuda.is_available():
            return None, "numba-cuda sees no GPU"
        return ncuda, None
    except Exception as e:  # not installed, or broken here
        return None, f"numba-cuda unavailable: {type(e).__name__}: {e}"
