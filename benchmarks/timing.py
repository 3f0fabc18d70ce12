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


def interleaved_ms(runs, repeats=25):
    """The median wall time in milliseconds of each of *runs* (label -> function), the
    device synchronized after each call, the runs taking turns call by call so that a
    drift of the machine's speed falls on all of them alike; one warm-up call each first."""
    import cupy as cp

    times = {label: [] for label in runs}
    for run in runs.values():
        run()
    for _ in range(repeats):
        for label, run in runs.items():
            cp.cuda.runtime.deviceSynchronize()
            start = time.perf_counter()
            run()
            cp.cuda.runtime.deviceSynchronize()
            times[label].append((time.perf_counter() - start) * 1e3)
    return {label: float(np.median(t)) for label, t in times.items()}
