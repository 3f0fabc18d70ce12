"""A matrix product on the tensor cores, written as on Ampere: C = A @ B for float16 A (M x K)
and B (K x N), row-major, accumulated and returned in float32, checked against NumPy's float64
product (and torch.matmul where torch is installed).

Each block of 256 threads (8 warps, one block per SM) computes a 128 x 256 tile of C, each
warp a 64 x 64 part of it: 4 x 8 tiles of mma.sync m16n8k16, 128 float32 accumulators per
thread in registers. The block walks K in steps of 64: cp.async copies the next tiles of A
and B into dynamic shared memory (3 stages of 48 KiB, the next step's copies in flight while
the warps multiply), ldmatrix loads the fragments from there (B transposed on the way, as the
mma wants it), and mma_sync multiplies. Rows of the tiles in shared memory are stored with
their 16-byte chunks permuted (XOR by the row), so that the 8 rows one ldmatrix reads fall in
different banks. docs/tensor_cores.md walks through it.

Without a GPU the kernel is compiled to PTX for sm_80 and nothing is run.
"""

import time

import numpy as np

from cumlir import cuda
from cumlir.cuda import intrin
from cumlir.cuda.experimental import consteval

BM, BN, BK = 128, 256, 64  # the block's tile of C, and the step along K
WARPS_M, WARPS_N = 2, 4  # the warps of a block, as a 2 x 4 grid over its tile
BLOCKS_PER_SM = 1  # 238-254 registers a thread: the accumulators alone are 128
WM, WN = BM // WARPS_M, BN // WARPS_N  # a warp's part: 64 x 64
MT, NT = WM // 16, WN // 8  # a warp's mma tiles: 4 x 8 of m16n8
NT_PAIRS = NT // 2  # B's fragments come two n8 tiles at a time
THREADS = 32 * WARPS_M * WARPS_N
STAGES = 3
IN_FLIGHT = STAGES - 2  # copies a step may leave in flight: those of the steps after it
A_TILE, B_TILE = BM * BK, BK * BN  # elements of one stage
A_SHARED = STAGES * A_TILE  # B's stages follow A's in the one dynamic shared array
SHARED_BYTES = 2 * STAGES * (A_TILE + B_TILE)  # 144 KiB: over 48, opted in by the launch
A_CHUNKS, B_CHUNKS = A_TILE // 8 // THREADS, B_TILE // 8 // THREADS  # 16-byte copies per thread per tile
A_ROW_CHUNKS, B_ROW_CHUNKS = BK // 8, BN // 8


@cuda.jit(device=True)
def swizzled(row, chunk):
    """The column where the 8 elements (chunk) of a row of a tile sit in shared memory: chunks
    permuted by the row's low 3 bits, so that 8 rows of one chunk fall in different banks."""
    return (chunk ^ (row & 7)) << 3


@cuda.jit(device=True)
def copy_tiles(a, b, sa, sb, stage, row0, col0, k0, t):
    """Start copying the K step at k0 of the block's rows of A and columns of B into stage."""
    for n in range(A_CHUNKS):
        c = t + n * THREADS
        row, chunk = c // A_ROW_CHUNKS, c % A_ROW_CHUNKS
        intrin.cp_async(sa[stage * BM + row, swizzled(row, chunk) :], a[row0 + row, k0 + chunk * 8 :], 16)
    for n in range(B_CHUNKS):
        c = t + n * THREADS
        row, chunk = c // B_ROW_CHUNKS, c % B_ROW_CHUNKS
        intrin.cp_async(sb[stage * BK + row, swizzled(row, chunk) :], b[k0 + row, col0 + chunk * 8 :], 16)


@cuda.jit(launch_bounds=(THREADS, BLOCKS_PER_SM))
def gemm_kernel(a, b, c):
    smem = cuda.shared.array(0, np.float16)
    # the stages as 2-d tiles of constant shape: a column known to be below the row's length
    # needs no clamping, which 1-d slices of the dynamic array (of unknown length) do
    sa = smem[:A_SHARED].reshape((STAGES * BM, BK))
    sb = smem[A_SHARED : A_SHARED + STAGES * B_TILE].reshape((STAGES * BK, BN))
    acc = cuda.local.array((MT, NT, 4), np.float32)
    fa = cuda.local.array((MT, 8), np.float16)
    fb = cuda.local.array((NT_PAIRS, 8), np.float16)
    t = cuda.threadIdx.x & (THREADS - 1)  # the same t; the mask tells the compiler its bound
    lane = t & 31
    warp = t >> 5
    warp_row = (warp // WARPS_N) * WM
    warp_col = (warp % WARPS_N) * WN
    row0 = cuda.blockIdx.y * BM
    col0 = cuda.blockIdx.x * BN
    for i in consteval(range(MT)):
        for j in consteval(range(NT)):
            for e in consteval(range(4)):
                acc[i, j, e] = 0.0
    steps = a.shape[1] // BK

    for s in range(STAGES - 1):
        if s < steps:
            copy_tiles(a, b, sa, sb, s, row0, col0, s * BK, t)
        intrin.cp_async_commit_group()

    stage = 0  # the stage this step reads; the one before it is refilled (counted round, not step % STAGES)
    refill = STAGES - 1
    for step in range(steps):
        intrin.cp_async_wait_group(IN_FLIGHT)  # this step's tiles have landed (for this thread)
        cuda.syncthreads()  # ... for every thread; and every warp is done with the stage refilled next
        ahead = step + STAGES - 1
        if ahead < steps:
            copy_tiles(a, b, sa, sb, refill, row0, col0, ahead * BK, t)
        intrin.cp_async_commit_group()
        a_rows = stage * BM
        b_rows = stage * BK
        refill = stage
        stage = stage + 1 if stage < STAGES - 1 else 0
        for kk in consteval(range(BK // 16)):
            # lanes 0-15 give the rows of the left 8 columns, lanes 16-31 of the right ones
            for i in consteval(range(MT)):
                row = warp_row + i * 16 + (lane & 15)
                intrin.ldmatrix(fa[i], sa[a_rows + row, swizzled(row, kk * 2 + (lane >> 4)) :], 4)
            # two n8 tiles of B at a time, transposed: k along each thread's pairs
            for j in consteval(range(NT_PAIRS)):
                row = kk * 16 + (lane & 15)
                chunk = (warp_col + j * 16) // 8 + (lane >> 4)
                intrin.ldmatrix(fb[j], sb[b_rows + row, swizzled(row, chunk) :], 4, True)
            for i in consteval(range(MT)):
                for j in consteval(range(NT)):
                    half = (j & 1) * 4
                    intrin.mma_sync(acc[i, j], fa[i], fb[j >> 1, half : half + 4], acc[i, j], "m16n8k16")

    for i in consteval(range(MT)):
        for j in consteval(range(NT)):
            row = row0 + warp_row + i * 16 + (lane >> 2)
            col = col0 + warp_col + j * 8 + (lane & 3) * 2
            c[row, col] = acc[i, j, 0]
            c[row, col + 1] = acc[i, j, 1]
            c[row + 8, col] = acc[i, j, 2]
            c[row + 8, col + 1] = acc[i, j, 3]


def _padded(x, rows, cols):
    out = np.zeros((rows, cols), np.float16)
    out[: x.shape[0], : x.shape[1]] = x
    return out


def _round_up(n, step):
    return (n + step - 1) // step * step


def gemm(a, b):
    """A @ B in float32 for float16 NumPy matrices (padded to whole tiles with zeros)."""
    m, k = a.shape
    n = b.shape[1]
    mp, kp, np_ = _round_up(m, BM), _round_up(k, BK), _round_up(n, BN)
    da = cuda.to_device(_padded(a, mp, kp))
    db = cuda.to_device(_padded(b, kp, np_))
    dc = cuda.device_array((mp, np_), np.float32)
    launch(da, db, dc)
    return dc.copy_to_host()[:m, :n]


def launch(a, b, c):
    """c[:] = a @ b for device arrays whose extents are whole tiles (M of BM, N of BN, K of BK)."""
    gemm_kernel[(c.shape[1] // BN, c.shape[0] // BM), THREADS, 0, SHARED_BYTES](a, b, c)


def check(m, n, k, rng):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = gemm(a, b)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    # float32 accumulation of products of float16s: errors grow as sqrt(k) times the rounding
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-4 * np.sqrt(k) * 8)
    return a, b, c


def _torch_check(a, b, c):
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    ours = torch.as_tensor(c)
    theirs = (torch.as_tensor(a).cuda() @ torch.as_tensor(b).cuda()).float().cpu()
    torch.testing.assert_close(ours, theirs, rtol=2e-2, atol=2e-2)  # torch rounds its result to float16
    return torch


def _seconds(launch, repeats=20):
    launch()
    cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        launch()
    cuda.synchronize()
    return (time.perf_counter() - start) / repeats


def benchmark(size=4096):
    """TFLOP/s of gemm_kernel at size x size x size, and of torch.matmul (float16) where torch is here."""
    rng = np.random.default_rng(1)
    a = cuda.to_device(rng.standard_normal((size, size)).astype(np.float16))
    b = cuda.to_device(rng.standard_normal((size, size)).astype(np.float16))
    c = cuda.device_array((size, size), np.float32)
    flops = 2.0 * size**3
    ours = flops / _seconds(lambda: launch(a, b, c)) / 1e12
    try:
        import torch
    except ImportError:
        return ours, None
    ta = torch.randn(size, size, device="cuda", dtype=torch.float16)
    tb = torch.randn(size, size, device="cuda", dtype=torch.float16)
    theirs = flops / _seconds(lambda: torch.matmul(ta, tb)) / 1e12
    return ours, theirs


def main():
    if not cuda.is_available():
        ptx, _ = cuda.compile_ptx(gemm_kernel, "void(float16[:, ::1], float16[:, ::1], float32[:, ::1])", cc=(8, 0))
        print(f"gemm_kernel: {ptx.count('mma.sync')} mma.sync in {len(ptx.splitlines())} lines of PTX for sm_80")
        print("gemm_ampere: compiled to PTX for sm_80; no GPU here, so the kernel was not run")
        return
    rng = np.random.default_rng(0)
    check(200, 300, 100, rng)
    a, b, c = check(1024, 768, 512, rng)
    torch = _torch_check(a, b, c)
    device = cuda.get_current_device().name
    print(f"gemm_ampere: the products match NumPy{' and torch.matmul' if torch else ''} on {device}")
    ours, theirs = benchmark()
    line = f"4096^3: {ours:.0f} TFLOP/s"
    if theirs:
        line += f"; torch.matmul float16 {theirs:.0f} TFLOP/s ({100 * ours / theirs:.0f}%)"
    print(line)


if __name__ == "__main__":
    main()
