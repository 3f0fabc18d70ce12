"""GPU ufuncs, measured in one run (informational):

  - a 3-input float32 elementwise ufunc ``x * y + z`` over 2**28 elements (CuPy arrays,
    out= given): cumlir's cuda.vectorize, CuPy's ElementwiseKernel of the same expression,
    and numba-cuda's cuda.vectorize where it imports;
  - cuda.reduce of a sum over 2**28 float32 against cupy.sum;
each the median wall time of calls synchronized one by one, the libraries taking turns.

    source .gpu/prelude.sh && python3 benchmarks/ufunc.py
"""

from anchors import numba_cuda
from timing import interleaved_ms, median_ms

N = 2**28


def fma3(x, y, z):
    return x * y + z


def add(a, b):
    return a + b


def _numba_cuda_vectorize():
    """numba-cuda's ufunc of fma3, or None with the reason it is not measured."""
    ncuda, why = numba_cuda()
    if ncuda is None:
        return None, why
    try:
        return ncuda.vectorize(["float32(float32, float32, float32)"], target="cuda")(fma3), None
    except Exception as e:  # broken here
        return None, f"numba-cuda unavailable: {type(e).__name__}: {e}"


def elementwise(n):
    import cupy as cp

    from cumlir import cuda

    rng = cp.random.default_rng(0)
    x, y, z = (rng.standard_normal(n, dtype=cp.float32) for _ in range(3))
    out = cp.empty(n, cp.float32)
    expected = x * y + z
    ours = cuda.vectorize(["float32(float32, float32, float32)"])(fma3)
    kernel = cp.ElementwiseKernel("float32 x, float32 y, float32 z", "float32 o", "o = x * y + z", "fma3_cupy")

    runs = {
        "cumlir cuda.vectorize": lambda: ours(x, y, z, out=out),
        "CuPy ElementwiseKernel": lambda: kernel(x, y, z, out),
    }
    theirs, why = _numba_cuda_vectorize()
    if theirs is not None:
        runs["numba-cuda vectorize"] = lambda: theirs(x, y, z, out=out)
    for label, run in runs.items():
        out.fill(cp.nan)
        run()
        assert bool(cp.allclose(out, expected, rtol=1e-6, atol=1e-6)), f"{label} computed a wrong result"
    rows = list(interleaved_ms(runs).items())
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"x * y + z, {n} float32, 3 inputs + out ({name})")
    print(f"{'':>24} {'ms':>9} {'GB/s':>9} {'cumlir / this':>14}")
    for label, ms in rows:
        print(f"{label:>24} {ms:9.3f} {n * 16 / ms / 1e6:9.1f} {rows[0][1] / ms:14.3f}")
    if why:
        print(f"  ({why})")


def host_overhead(n=4096, calls=5000):
    """Host time per call where the GPU work is negligible: what the call path itself costs."""
    import time

    import cupy as cp

    from cumlir import cuda

    x, y, z, out = (cp.ones(n, cp.float32) for _ in range(4))
    ours = cuda.vectorize(["float32(float32, float32, float32)"])(fma3)
    kernel = cp.ElementwiseKernel("float32 x, float32 y, float32 z", "float32 o", "o = x * y + z", "fma3_small")
    total = cuda.reduce(add)
    rows = (
        ("cumlir cuda.vectorize", lambda: ours(x, y, z, out=out)),
        ("CuPy ElementwiseKernel", lambda: kernel(x, y, z, out)),
        ("cumlir cuda.reduce", lambda: total(x)),
        ("cupy.sum, to the host", lambda: float(x.sum())),
    )
    print(f"host time per call, {n} elements, {calls} calls then one sync (us)")
    for label, run in rows:
        run()
        cp.cuda.runtime.deviceSynchronize()
        start = time.perf_counter()
        for _ in range(calls):
            run()
        cp.cuda.runtime.deviceSynchronize()
        print(f"{label:>24} {(time.perf_counter() - start) / calls * 1e6:9.2f}")


def profile(n=4096, calls=2000):
    """Where the host time of the small calls goes: cProfile of cuda.reduce and of the ufunc."""
    import cProfile
    import pstats

    import cupy as cp

    from cumlir import cuda

    x, y, z, out = (cp.ones(n, cp.float32) for _ in range(4))
    total = cuda.reduce(add)
    ours = cuda.vectorize(["float32(float32, float32, float32)"])(fma3)
    for label, run in (("cuda.reduce", lambda: total(x)), ("cuda.vectorize", lambda: ours(x, y, z, out=out))):
        run()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(calls):
            run()
        profiler.disable()
        print(f"\ncProfile of {calls} calls of {label}, {n} elements")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def reduction(n):
    import cupy as cp

    from cumlir import cuda

    x = cp.random.default_rng(1).random(n, dtype=cp.float32)
    total = cuda.reduce(add)
    times = interleaved_ms({"ours": lambda: total(x), "theirs": lambda: float(x.sum())})
    ours, theirs = times["ours"], times["theirs"]
    got, want = float(total(x)), float(x.sum(dtype=cp.float64))
    assert abs(got - want) <= 1e-4 * want, f"cuda.reduce gave {got}, the float64 sum is {want}"
    print(f"sum of {n} float32 (result on the host)")
    print(f"{'cumlir cuda.reduce':>24} {ours:9.3f} ms {n * 4 / ours / 1e6:9.1f} GB/s")
    print(f"{'cupy.sum':>24} {theirs:9.3f} ms {n * 4 / theirs / 1e6:9.1f} GB/s")
    print(f"cumlir / cupy.sum time ratio: {ours / theirs:.3f}")


def sweep(n):
    """Device time of the 3-input ufunc for other launch geometries, each beside CuPy's
    ElementwiseKernel measured again (the run-to-run noise is of the size of the differences);
    then the reduction's."""
    import cupy as cp

    from cumlir import cuda
    from cumlir.cuda import reduce_api, ufunc_api

    rng = cp.random.default_rng(2)
    x, y, z = (rng.standard_normal(n, dtype=cp.float32) for _ in range(3))
    out = cp.empty(n, cp.float32)
    kernel = cp.ElementwiseKernel("float32 x, float32 y, float32 z", "float32 o", "o = x * y + z", "fma3_sweep")
    kept = ufunc_api.THREADS, ufunc_api.MAX_BLOCKS, reduce_api.MAX_BLOCKS
    print("\nsweep (ms; CuPy measured right after each)")
    try:
        for threads in (128, 256, 512):
            for blocks in (1 << 20, 1 << 21, 2**31 - 1):
                ufunc_api.THREADS, ufunc_api.MAX_BLOCKS = threads, blocks
                ours = cuda.vectorize(["float32(float32, float32, float32)"])(fma3)
                mine = median_ms(lambda: ours(x, y, z, out=out), repeats=40)
                theirs = median_ms(lambda: kernel(x, y, z, out), repeats=40)
                print(
                    f"  vectorize {threads:4d} threads, at most {blocks:10d} blocks {mine:8.3f}  CuPy {theirs:8.3f}  ratio {theirs / mine:6.3f}"
                )
        for blocks in (2048, 4096, 8192):
            reduce_api.MAX_BLOCKS = blocks
            total = cuda.reduce(add)
            print(
                f"  reduce at most {blocks:5d} blocks {median_ms(lambda: total(x)):8.3f}  cupy.sum {median_ms(lambda: float(x.sum())):8.3f}"
            )
    finally:
        ufunc_api.THREADS, ufunc_api.MAX_BLOCKS, reduce_api.MAX_BLOCKS = kept


def main(n=N):
    import sys

    elementwise(n)
    print()
    reduction(n)
    print()
    host_overhead()
    if "--sweep" in sys.argv[1:]:
        sweep(n)
    if "--profile" in sys.argv[1:]:
        profile()


if __name__ == "__main__":
    main()
