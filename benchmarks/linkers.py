"""The two linkers side by side on a GPU: nvJitLink (the extra ``[nvjitlink]``) and the CUDA
driver's own linker, which ``pip install cumlir`` uses without it (docs/compiling.md,
"Linking"). For each: a fresh process's first kernel, cold and from a warm disk cache; the
link stage of warm compiles; compile + launch; and the run time of the cubins each makes.
Informational; prints medians in milliseconds.

    python3 benchmarks/linkers.py
"""

import os
import statistics
import tempfile

import numpy as np
from compile import KERNELS, arguments, compile_ms, first_kernel_ms, fresh

LINKERS = ("nvjitlink", "driver")
RUNS = 20


def link_ms(cuda, name):
    """The link stage (compile_stats["link"]) of warm compiles of kernel *name*."""
    times = []
    for _ in range(8):
        args, blocks, threads = arguments(name)
        kernel = cuda.jit(fresh(cuda, name))
        kernel[blocks, threads](*args)
        times.append(next(iter(kernel.overloads.values())).compile_stats["link"] * 1e3)
    return statistics.median(times[2:])


def big_arguments(name):
    """Inputs large enough for the kernel's run time to be measured."""
    import cupy as cp

    rng = np.random.default_rng(0)
    if name == "matmul":
        n = 2048
        a, b = (cp.asarray(rng.standard_normal((n, n)).astype(np.float32)) for _ in range(2))
        return [a, b, cp.empty((n, n), np.float32)], (n // 32, n // 32), (32, 32)
    n = 1 << 22
    if name == "vadd":
        return [cp.asarray(rng.standard_normal(n).astype(np.float32)) for _ in range(3)], n // 256, 256
    if name == "black_scholes":
        inputs = [cp.asarray(rng.uniform(1.0, 100.0, n)) for _ in range(3)]
        return [*inputs, cp.empty(n), cp.empty(n)], n // 256, 256
    return [cp.asarray(rng.standard_normal(n)), cp.empty(n)], n // 256, 256


def run_ms(cuda, name):
    """The kernel's run time (CUDA events), median of RUNS launches after two warm-ups, and
    the cubin's registers per thread."""
    kernel = cuda.jit(fresh(cuda, name))
    args, blocks, threads = big_arguments(name)
    launch = kernel[blocks, threads]
    for _ in range(2):
        launch(*args)
    times = []
    for _ in range(RUNS):
        start, stop = cuda.event(), cuda.event()
        start.record()
        launch(*args)
        stop.record()
        stop.synchronize()
        times.append(cuda.event_elapsed_time(start, stop))
    return statistics.median(times), next(iter(kernel.overloads.values())).regs_per_thread


def main():
    from cumlir import cuda

    rows = {}
    for linker in LINKERS:
        os.environ["CUMLIR_LINKER"] = linker  # read at each link, and by the fresh processes
        rows.setdefault("first kernel, fresh process", {})[linker] = first_kernel_ms("cumlir", True)
        with tempfile.TemporaryDirectory() as cache_dir:
            rows.setdefault("first kernel, warm disk cache", {})[linker] = first_kernel_ms("cumlir", True, cache_dir)
        for name in KERNELS:
            rows.setdefault(f"link stage {name}", {})[linker] = link_ms(cuda, name)
            rows.setdefault(f"compile + launch {name}", {})[linker] = compile_ms(cuda, name, True)
            ms, regs = run_ms(cuda, name)
            rows.setdefault(f"kernel run {name}", {})[linker] = ms
            rows.setdefault(f"registers {name}", {})[linker] = regs
    print(f"{'median ms':36} | {' | '.join(f'{name:>10}' for name in LINKERS)} | driver / nvjitlink")
    for label, figures in rows.items():
        values = [figures[name] for name in LINKERS]
        cells = " | ".join(f"{v:10.3f}" if isinstance(v, float) else f"{v:10}" for v in values)
        print(f"{label:36} | {cells} | {values[1] / values[0]:.3f}")


if __name__ == "__main__":
    main()
