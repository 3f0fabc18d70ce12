"""Compile latency: `from cumlir import cuda` in a fresh process, and warm compiles of three
kernels (a new function object each time, so nothing is cached), against Numba-CUDA in the
same run where it imports. Informational; prints medians in milliseconds.

    python3 benchmarks/compile_latency.py            # to PTX (no GPU needed)
    python3 benchmarks/compile_latency.py --launch   # compile + first launch (GPU)
"""

import statistics
import subprocess
import sys
import time

import numpy as np

REPEATS = 15
KERNELS = {}


def kernel(source):
    """Register a kernel by its source, so each measurement can make a fresh function object."""
    name = source.split("def ", 1)[1].split("(", 1)[0]
    KERNELS[name] = source
    return name


kernel(
    """
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
"""
)
kernel(
    """
def math_loop(x, out):
    i = cuda.grid(1)
    if i < out.size:
        v = x[i]
        acc = 0.0
        for k in range(8):
            acc += math.sin(v * k) * math.exp(-v) + math.sqrt(abs(v) + k)
        out[i] = acc
"""
)
kernel(
    """
def matmul(a, b, c):
    ta = cuda.shared.array((32, 32), np.float32)
    tb = cuda.shared.array((32, 32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * 32 + ty
    col = cuda.blockIdx.x * 32 + tx
    acc = np.float32(0)
    for t in range(a.shape[1] // 32):
        ta[ty, tx] = a[row, t * 32 + tx]
        tb[ty, tx] = b[t * 32 + ty, col]
        cuda.syncthreads()
        for k in range(32):
            acc += ta[ty, k] * tb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc
"""
)
SIGNATURES = {
    "vadd": "void(float32[:], float32[:], float32[:])",
    "math_loop": "void(float64[:], float64[:])",
    "matmul": "void(float32[:, :], float32[:, :], float32[:, :])",
}


def fresh(cuda, name):
    import math

    namespace = {"cuda": cuda, "math": math, "np": np}
    exec(KERNELS[name], namespace)
    return namespace[name]


def arguments(name):
    import cupy as cp

    if name == "matmul":
        return [cp.ones((64, 64), np.float32) for _ in range(3)], (2, 2), (32, 32)
    n = 1 << 12
    if name == "vadd":
        return [cp.ones(n, np.float32) for _ in range(3)], n // 128, 128
    return [cp.ones(n, np.float64) for _ in range(2)], n // 128, 128


def compile_ms(cuda, name, launch):
    times = []
    for _ in range(REPEATS):
        pyfunc = fresh(cuda, name)
        start = time.perf_counter()
        if launch:
            args, blocks, threads = arguments(name)
            cuda.jit(pyfunc)[blocks, threads](*args)
            cuda.synchronize()
        else:
            cuda.compile_ptx(pyfunc, SIGNATURES[name], cc=(9, 0))
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[2:])  # the first compiles also load numba's lazy parts


def import_ms(module):
    code = f"import time; t = time.perf_counter(); from {module} import cuda; print((time.perf_counter() - t) * 1e3)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) for _ in range(7)]
    return statistics.median(runs)


def numba_cuda():
    try:
        if not hasattr(np, "row_stack"):  # numba-cuda 0.30 calls it; NumPy 2.4 removed it
            np.row_stack = np.vstack
        from numba import cuda

        return cuda
    except ImportError:
        return None


def main():
    launch = "--launch" in sys.argv
    from cumlir import cuda

    rows = [("from ... import cuda", import_ms("cumlir"), None)]
    theirs = numba_cuda()
    if theirs is not None:
        rows[0] = (rows[0][0], rows[0][1], import_ms("numba"))
    for name in KERNELS:
        ours = compile_ms(cuda, name, launch)
        other = compile_ms(theirs, name, launch) if theirs is not None else None
        rows.append((f"{'compile + launch' if launch else 'compile to PTX'} {name}", ours, other))
    print(f"{'(median ms)':40s} {'cumlir':>10s} {'numba-cuda':>12s} {'ratio':>7s}")
    for label, ours, other in rows:
        shown = f"{other:12.2f} {other / ours:6.2f}x" if other is not None else f"{'-':>12s} {'-':>7s}"
        print(f"{label:40s} {ours:10.2f} {shown}")


if __name__ == "__main__":
    main()
