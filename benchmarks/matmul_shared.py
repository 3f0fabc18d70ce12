"""Tiled shared-memory matmul of float32 square matrices: cumlir against cupy.matmul.

Informational: prints the median time of several runs after a warm-up, measured with
CUDA events on the default stream, and the relative difference between the results.

    source .gpu/prelude.sh && python3 benchmarks/matmul_shared.py
"""

import statistics
import sys

import numpy as np

from benchmarks.kernels import matmul as suite_matmul
from cumlir import cuda

TILE = suite_matmul.TILE
SIZES = (2048, 4096)
WARMUP, RUNS = 2, 10


# the suite's kernel (benchmarks/kernels/matmul.py), compiled lazily for the arrays given
matmul = cuda.jit(suite_matmul.matmul)


def _median_ms(cupy, launch):
    for _ in range(WARMUP):
        launch()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(RUNS):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(times)


def main():
    try:
        import cupy
    except ImportError:
        sys.exit("this benchmark needs CuPy (the anchor and the CUDA events come from it)")
    rng = np.random.default_rng(0)
    print(
        f"float32 square matmul, median of {RUNS} runs after {WARMUP} warm-up runs ({cuda.get_current_device().name})"
    )
    print(
        f"{'n':>6} {'cumlir ms':>10} {'TFLOP/s':>8} {'cupy ms':>10} {'TFLOP/s':>8} {'cumlir/cupy':>12} {'rel. diff':>10}"
    )
    for n in SIZES:
        a = cupy.asarray(rng.standard_normal((n, n), dtype=np.float32))
        b = cupy.asarray(rng.standard_normal((n, n), dtype=np.float32))
        c = cupy.empty((n, n), np.float32)
        blocks = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
        ours = _median_ms(cupy, lambda: matmul[blocks, (TILE, TILE)](a, b, c))
        theirs = _median_ms(cupy, lambda: cupy.matmul(a, b))
        reference = cupy.matmul(a, b)
        diff = float(cupy.abs(c - reference).max() / cupy.abs(reference).max())
        flops = 2.0 * n**3
        print(
            f"{n:>6} {ours:>10.3f} {flops / ours / 1e9:>8.2f} {theirs:>10.3f} {flops / theirs / 1e9:>8.2f} "
            f"{ours / theirs:>11.2f}x {diff:>10.1e}"
        )


if __name__ == "__main__":
    main()
