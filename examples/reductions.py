"""Three building blocks of GPU algorithms, checked against NumPy:

- a sum: each block reduces its part in shared memory, one atomic add per block;
- a histogram: each block counts into shared memory with atomics, then adds its counts
  to the global histogram;
- an inclusive scan of each block's part: warp shuffles scan each warp, the warps' totals
  are scanned the same way through shared memory.

Without a GPU the kernels are compiled to PTX for sm_90 and nothing is run.
"""

import numpy as np

from cumlir import cuda

THREADS = 256  # per block: a multiple of the warp size
WARPS = THREADS // 32
BINS = 64


@cuda.jit
def block_sum(values, total):
    partial = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    partial[t] = values[i] if i < values.size else 0.0
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, partial[0])


@cuda.jit
def histogram(keys, counts):
    local = cuda.shared.array(BINS, np.int32)
    t = cuda.threadIdx.x
    if t < BINS:
        local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < keys.size:
        cuda.atomic.add(local, keys[i], 1)
    cuda.syncthreads()
    if t < BINS:
        cuda.atomic.add(counts, t, local[t])


@cuda.jit(device=True)
def warp_inclusive_scan(value, lane):
    offset = 1
    while offset < 32:
        below = cuda.shfl_up_sync(0xFFFFFFFF, value, offset)
        if lane >= offset:
            value += below
        offset *= 2
    return value


@cuda.jit
def block_scan(values, out):
    totals = cuda.shared.array(WARPS, np.int64)
    t = cuda.threadIdx.x
    lane = cuda.laneid
    warp = t // 32
    i = cuda.grid(1)
    value = values[i] if i < values.size else 0
    value = warp_inclusive_scan(value, lane)
    if lane == 31:
        totals[warp] = value
    cuda.syncthreads()
    if warp == 0:
        total = totals[lane] if lane < WARPS else 0
        total = warp_inclusive_scan(total, lane)
        if lane < WARPS:
            totals[lane] = total
    cuda.syncthreads()
    if warp > 0:
        value += totals[warp - 1]
    if i < values.size:
        out[i] = value


def run(rng, n=1_000_003):
    blocks = (n + THREADS - 1) // THREADS

    values = rng.standard_normal(n)
    total = np.zeros(1)
    block_sum[blocks, THREADS](values, total)
    np.testing.assert_allclose(total[0], values.sum(), rtol=1e-9)

    keys = rng.integers(0, BINS, n).astype(np.int32)
    counts = np.zeros(BINS, np.int32)  # the kernel adds into it
    histogram[blocks, THREADS](keys, counts)
    np.testing.assert_array_equal(counts, np.bincount(keys, minlength=BINS))

    ints = rng.integers(-1000, 1000, n).astype(np.int64)
    scanned = np.full(n, np.iinfo(np.int64).min, np.int64)  # poisoned: every element is written
    block_scan[blocks, THREADS](ints, scanned)
    padded = np.zeros(blocks * THREADS, np.int64)
    padded[:n] = ints
    expected = np.cumsum(padded.reshape(blocks, THREADS), axis=1).ravel()[:n]
    np.testing.assert_array_equal(scanned, expected)


def main():
    if not cuda.is_available():
        for kernel, sig in (
            (block_sum, "void(float64[:], float64[:])"),
            (histogram, "void(int32[:], int32[:])"),
            (block_scan, "void(int64[:], int64[:])"),
        ):
            ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0))
            print(f"{kernel.__name__}: {len(ptx.splitlines())} lines of PTX for sm_90")
        print("reductions: compiled to PTX for sm_90; no GPU here, so the kernels were not run")
        return
    run(np.random.default_rng(0))
    print(f"reductions: sum, histogram and scan ran on {cuda.get_current_device().name}; the results match NumPy")


if __name__ == "__main__":
    main()
