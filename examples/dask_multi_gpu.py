"""A Dask array of CuPy chunks spread over the GPUs of one machine, each chunk processed by
cumlir kernels on the GPU that holds it.

dask_cuda.LocalCUDACluster starts one worker process per GPU (each sees its GPU as device
0 through CUDA_VISIBLE_DEVICES), so a kernel launched by a task runs where its chunk lives.
The chunks are drawn on the workers by a CuPy RandomState; two cumlir kernels then run on
every chunk:

  - ``polynomial``, a ``@cuda.jit`` kernel evaluating a cubic by Horner's rule, through
    ``map_blocks`` (it writes into ``cupy.empty_like(block)``);
  - ``magnitude``, a ``@cuda.vectorize`` ufunc (sqrt(a^2 + b^2)) called on the Dask arrays
    themselves: ``magnitude(p, y)``. As with a NumPy ufunc, the Dask array's
    ``__array_ufunc__`` turns the call into one task per pair of chunks, each a GPU ufunc
    call on CuPy chunks that gives back a CuPy chunk.

The tasks carry the kernels in their pickles: a dispatcher pickles as its Python function
(by module and name when the name finds it, else by value), never as compiled code, so
each worker compiles once (or loads from the disk cache). That is why the kernels and the
block functions live at this module's top level.

The results come back to the client and are checked against NumPy in float64 on the host,
within a float32 rounding bound per element.

    python3 examples/dask_multi_gpu.py [--n 16777216] [--chunks 2097152] [--workers 2]

Without dask, distributed, dask_cuda, CuPy or a GPU, the kernels are compiled to PTX for
sm_90 and nothing is run.
"""

import argparse
import math
import os
from collections import Counter

import numpy as np

from cumlir import cuda

THREADS = 256
# the cubic's coefficients c0 + c1 x + c2 x^2 + c3 x^3
COEFFICIENTS = (0.25, -1.5, 0.75, 2.0)


@cuda.jit
def polynomial(x, c0, c1, c2, c3, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = ((c3 * v + c2) * v + c1) * v + c0


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def magnitude(a, b):
    return math.sqrt(a * a + b * b)


def polynomial_block(block):
    """The cubic of one CuPy chunk, on the chunk's GPU; a new CuPy chunk of its dtype."""
    import cupy

    out = cupy.empty_like(block)
    if block.size:
        c0, c1, c2, c3 = (block.dtype.type(c) for c in COEFFICIENTS)  # the chunk's precision
        polynomial[(block.size + THREADS - 1) // THREADS, THREADS](block, c0, c1, c2, c3, out)
    return out


def worker_device():
    """(the GPU this worker process was given, its name): run on every worker."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
    return visible, cuda.get_current_device().name


def float32_bound(x, coefficients):
    """A bound on the error of the cubic computed in float32 at the float32 points *x*:
    a few roundings of each term's size sum |c_k| |x|^k (Horner's rule: 2 per step, and
    the coefficients' own rounding to float32)."""
    size = np.zeros_like(x)
    for c in reversed(coefficients):
        size = size * np.abs(x) + abs(c)
    return 8 * np.finfo(np.float32).eps * size


def run(n=1 << 24, chunks=1 << 21, workers=None, seed=7):
    """Run the pipeline on a LocalCUDACluster of *workers* GPUs (all when None) and check it."""
    import cupy
    import dask
    import dask.array as da
    from dask_cuda import LocalCUDACluster
    from distributed import Client, wait

    with LocalCUDACluster(n_workers=workers) as cluster, Client(cluster) as client:
        devices = client.run(worker_device)
        for address, (visible, name) in sorted(devices.items()):
            print(f"worker {address}: GPU {visible} ({name})")

        state = da.random.RandomState(seed, RandomState=cupy.random.RandomState)
        x = state.uniform(-1, 1, size=n, chunks=chunks).astype(np.float32)
        y = state.uniform(-1, 1, size=n, chunks=chunks).astype(np.float32)
        meta = cupy.empty((0,), np.float32)  # what a chunk is: Dask need not call the functions to find out
        p = x.map_blocks(polynomial_block, dtype=np.float32, meta=meta)
        m = magnitude(p, y)  # a Dask array: the ufunc applied chunk by chunk

        x, y, p, m = client.persist([x, y, p, m])
        wait([x, y, p, m])
        placed = Counter()  # GPU -> chunks of the result it holds
        for address, keys in client.has_what().items():
            placed[devices[address][0]] += sum(m.name in str(key) for key in keys)
        where = ", ".join(f"GPU {gpu}: {count}" for gpu, count in sorted(placed.items()))
        print(
            f"polynomial (cuda.jit) and magnitude (cuda.vectorize) on {m.npartitions} chunks of {chunks} float32 ({where})"
        )

        xh, yh, ph, mh = (cupy.asnumpy(a) for a in dask.compute(x, y, p, m))

    x64, y64 = xh.astype(np.float64), yh.astype(np.float64)
    expected_p = np.polynomial.polynomial.polyval(x64, COEFFICIENTS)
    bound = float32_bound(x64, COEFFICIENTS)
    worst_p = float(np.max(np.abs(ph - expected_p) / bound))
    assert worst_p <= 1, f"polynomial: an error {worst_p:.2f} times the float32 bound"
    expected_m = np.hypot(ph.astype(np.float64), y64)
    # sqrt(a^2 + b^2) in float32: a few roundings relative to the result
    worst_m = float(np.max(np.abs(mh - expected_m) / (4 * np.finfo(np.float32).eps * expected_m + 1e-30)))
    assert worst_m <= 1, f"magnitude: an error {worst_m:.2f} times the float32 bound"
    print(
        f"check: {n} elements match NumPy (float64) within float32 rounding (worst {max(worst_p, worst_m):.2f} of the bound)"
    )


def missing():
    """Why the pipeline cannot run here, or None."""
    for name in ("cupy", "dask.array", "distributed", "dask_cuda"):
        try:
            __import__(name)
        except ImportError:
            return f"{name} is not installed"
    if not cuda.is_available():
        return "no GPU here"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24, help="elements of the arrays")
    parser.add_argument("--chunks", type=int, default=1 << 21, help="elements per chunk")
    parser.add_argument("--workers", type=int, default=None, help="workers, one per GPU (default: every GPU)")
    args = parser.parse_args()
    why = missing()
    if why:
        sig = "void(float32[::1], float32, float32, float32, float32, float32[::1])"
        ptx, _ = cuda.compile_ptx(polynomial, sig, cc=(9, 0))
        ufunc_kernel, argtypes = magnitude.kernel_for("float32(float32, float32)")
        ufunc_ptx, _ = cuda.compile_ptx(ufunc_kernel, argtypes, cc=(9, 0))
        print(
            f"dask_multi_gpu: compiled polynomial ({len(ptx)} characters of PTX) and magnitude's kernel "
            f"({len(ufunc_ptx)}) for sm_90; {why}, so nothing was run"
        )
        return
    run(args.n, args.chunks, args.workers)


if __name__ == "__main__":
    main()
