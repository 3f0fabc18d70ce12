"""NumPy inside kernels against the loops it replaces (informational, one run):

  - each thread sums 8 float32 values: ``a[i*8:(i+1)*8].sum()`` against a hand loop, and
    numba-cuda's ``a[i*8:(i+1)*8].sum()`` where it imports;
  - each thread stages 8 values in ``tmp = np.zeros(8)`` against ``cuda.local.array(8)``;
device time per launch (CUDA events around a batch of launches, the kernels taking turns),
and each kernel's allocations on the device heap (none is expected).

    source .gpu/prelude.sh && python3 benchmarks/numpy_in_kernels.py
"""

import numpy as np
from anchors import numba_cuda

N = 2**26  # values; N // 8 threads
BATCH, ROUNDS = 20, 15


def _kernels(cuda):
    """(label -> kernel source function) for one ``cuda`` module (cumlir's or numba-cuda's)."""

    def hand_sum(a, out):
        i = cuda.grid(1)
        if i < out.size:
            acc = np.float32(0)
            for k in range(8):
                acc += a[i * 8 + k]
            out[i] = acc

    def method_sum(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i * 8 : (i + 1) * 8].sum()

    def zeros_scratch(a, out):
        i = cuda.grid(1)
        if i < out.size:
            tmp = np.zeros(8, np.float32)
            for k in range(8):
                tmp[k] = a[i * 8 + k] * 2
            acc = np.float32(0)
            for k in range(8):
                acc += tmp[k]
            out[i] = acc

    def local_scratch(a, out):
        i = cuda.grid(1)
        if i < out.size:
            tmp = cuda.local.array(8, np.float32)
            for k in range(8):
                tmp[k] = 0
            for k in range(8):
                tmp[k] = a[i * 8 + k] * 2
            acc = np.float32(0)
            for k in range(8):
                acc += tmp[k]
            out[i] = acc

    return {"hand loop": hand_sum, ".sum()": method_sum, "np.zeros(8)": zeros_scratch, "local.array(8)": local_scratch}


def _device_ms(launches):
    """Median device milliseconds per launch of each (label -> launch), taking turns."""
    import cupy as cp

    samples = {label: [] for label in launches}
    for launch in launches.values():
        launch()
    for _ in range(ROUNDS):
        for label, launch in launches.items():
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            for _ in range(BATCH):
                launch()
            stop.record()
            stop.synchronize()
            samples[label].append(cp.cuda.get_elapsed_time(start, stop) / BATCH)
    return {label: float(np.median(s)) for label, s in samples.items()}


def main():
    import cupy as cp

    from cumlir import cuda

    rng = cp.random.default_rng(0)
    a = rng.standard_normal(N, dtype=cp.float32)
    threads = N // 8
    expected = a.reshape(threads, 8).astype(cp.float64).sum(axis=1)
    outs, launches, kernels = {}, {}, {}
    blocks = (threads + 255) // 256
    for label, fn in _kernels(cuda).items():
        kernel = kernels[label] = cuda.jit(fn)
        out = outs[label] = cp.full(threads, cp.nan, cp.float32)
        launches[f"cumlir {label}"] = lambda k=kernel, o=out: k[blocks, 256](a, o)
    ncuda, why = numba_cuda()
    if ncuda is not None:
        theirs = ncuda.jit(_kernels(ncuda)[".sum()"])
        out = outs["numba-cuda .sum()"] = cp.full(threads, cp.nan, cp.float32)
        launches["numba-cuda .sum()"] = lambda: theirs[blocks, 256](a, out)
    for launch in launches.values():
        launch()
    cp.cuda.runtime.deviceSynchronize()
    for label, out in outs.items():
        scale = 2.0 if "zeros" in label or "local" in label else 1.0
        assert bool(cp.allclose(out, scale * expected, rtol=1e-5, atol=1e-4)), f"{label} computed a wrong result"
    times = _device_ms(launches)
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"8 float32 values per thread, {threads} threads ({name}); device time per launch")
    print(f"{'':>24} {'us':>9} {'GB/s':>9} {'heap allocations':>17}")
    for label, ms in times.items():
        short = label.removeprefix("cumlir ")
        allocations = kernels[short].nrt_stats().alloc if short in kernels else "-"
        print(f"{label:>24} {ms * 1e3:9.1f} {N * 4 * 1.125 / ms / 1e6:9.1f} {allocations!s:>17}")
    print(f"  .sum() / hand loop: {times['cumlir .sum()'] / times['cumlir hand loop']:.3f}")
    print(f"  np.zeros(8) / local.array(8): {times['cumlir np.zeros(8)'] / times['cumlir local.array(8)']:.3f}")
    if why:
        print(f"  ({why})")


if __name__ == "__main__":
    main()
