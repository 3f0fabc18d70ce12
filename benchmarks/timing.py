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
