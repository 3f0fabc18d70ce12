"""A bf16 GEMM for Hopper (sm_90a) written with @cuda.jit: C = A @ B, float32 accumulation.

Each block computes a 128 x 256 tile of C with two warpgroups (256 threads), each warpgroup
64 rows with ``wgmma`` m64n256k16. The tiles of A and B come into shared memory by TMA
(tensor maps with the 128-byte swizzle, the layout wgmma's descriptors read), in a pipeline
of STAGES buffers: a producer warp (one thread of it) fills a stage once both warpgroups have
arrived on its "empty" mbarrier, and the warpgroups wait on its "full" mbarrier, which
completes when its bytes have arrived; each step's products run while the warpgroups wait for
the next tile. No barrier of the whole block is in the loop.

A is M x K and B is given transposed, N x K (both K-major, as wgmma reads them without a
transpose), as device arrays of ml_dtypes' bfloat16; M a multiple of 128, N of 256, K of 64
and at least STAGES * 64.

    python examples/gemm_hopper.py          # checks a 1024 x 1024 x 1024 product against NumPy

It needs a GPU of compute capability 9.0 (H100, H200) and ml_dtypes (pip install 'cumlir[narrow-floats]').
"""

import sys

import numpy as np

try:
    import ml_dtypes
except ImportError:  # said in one line by missing(), before anything needs it
    ml_dtypes = None

from cumlir import cuda
from cumlir.cuda import intrin
from cumlir.cuda.experimental import consteval
from cumlir.types import bfloat16

BM, BN, BK = 128, 256, 64  # the block's tile of C, and the K extent of one stage
STAGES = 4
GROUP_M = 16  # tiles of M a group of blocks covers
A_TILE, B_TILE = BM * BK, BN * BK  # elements of one stage's A and B tiles
STAGE = A_TILE + B_TILE
THREADS = 288  # two warpgroups of consumers, and a producer warp
PRODUCER = 256  # the producer warp's thread that copies
ACC = BN // 2  # accumulator registers of a thread (m64n256: 64 x 256 floats over 128 threads)
TILE_BYTES = STAGES * STAGE * 2
SHARED_BYTES = TILE_BYTES + 2 * STAGES * 8  # the tiles, then the stages' mbarriers


@cuda.jit(chip="sm_90a", backend="nvptx")  # its bfloat16 result: libNVVM has bfloat from sm_100
def gemm_kernel(a_map, b_map, c, k_tiles):
    # the one shared array is the dynamic one, whose start the TMA copies and the swizzle need
    # on 1024 bytes: dynamic shared memory starts where the static arrays end
    smem = cuda.shared.array(0, np.uint16, alignment=1024)
    bars = cuda.shared.array(0, np.uint64)
    full = bars[TILE_BYTES // 8 :]  # a stage's tiles have arrived
    empty = bars[TILE_BYTES // 8 + STAGES :]  # both warpgroups are done with a stage
    t = cuda.threadIdx.x
    group = t // 128
    # blocks run in groups of GROUP_M tiles down M, across N: the tiles running at once share
    # their panels of A and B in L2
    # in 32 bits: a 64-bit division is a call to a routine nvJitLink links in, and a kernel
    # calling one gets every wgmma serialized (ptxas's note C7509)
    m_tiles, n_tiles = np.uint32(c.shape[0] // BM), np.uint32(c.shape[1] // BN)
    block = np.uint32(cuda.blockIdx.x)
    per_group = np.uint32(GROUP_M * n_tiles)
    first_m = np.uint32(block // per_group * GROUP_M)
    rows_here = min(m_tiles - first_m, np.uint32(GROUP_M))
    row0 = (first_m + block % rows_here) * BM
    col0 = block % per_group // rows_here * BN
    if t == 0:
        for s in range(STAGES):
            intrin.mbarrier_init(full[s:], 1)
            intrin.mbarrier_init(empty[s:], 2)
        intrin.fence_mbarrier_init()
    cuda.syncthreads()
    if group == 2:  # the producer warp: one thread keeps the stages filled
        if t == PRODUCER:
            for kt in range(k_tiles):
                s = kt % STAGES
                if kt >= STAGES:  # the pass before over this stage has been read
                    intrin.mbarrier_try_wait(empty[s:], (kt // STAGES - 1) % 2)
                intrin.mbarrier_arrive_expect_tx(full[s:], STAGE * 2)
                intrin.cp_async_bulk_tensor_load(smem[s * STAGE :], a_map, (row0, kt * BK), full[s:])
                intrin.cp_async_bulk_tensor_load(smem[s * STAGE + A_TILE :], b_map, (col0, kt * BK), full[s:])
        return
    acc = cuda.local.array(ACC, np.float32)
    for r in consteval(range(ACC)):
        acc[r] = 0.0
    intrin.wgmma_fence()
    for kt in range(k_tiles):
        s = kt % STAGES
        intrin.mbarrier_try_wait(full[s:], (kt // STAGES) % 2)
        a_base = s * STAGE + group * 64 * BK
        b_base = s * STAGE + A_TILE
        for k in consteval(range(BK // 16)):
            a_desc = intrin.wgmma_descriptor(smem[a_base + k * 16 :], 16, 1024, 128)
            b_desc = intrin.wgmma_descriptor(smem[b_base + k * 16 :], 16, 1024, 128)
            intrin.wgmma_mma_async(acc, a_desc, b_desc, "m64n256k16", 1, dtype="bf16")
        intrin.wgmma_commit_group()
        # the previous step's products are done (this one's stay in flight): its stage is free
        intrin.wgmma_wait_group(1)
        if kt > 0 and t % 128 == 0:
            intrin.mbarrier_arrive(empty[(kt - 1) % STAGES :])
    intrin.wgmma_wait_group(0, acc)
    warp, lane = (t % 128) // 32, t % 32
    row = row0 + group * 64 + 16 * warp + lane // 4
    col = col0 + 2 * (lane % 4)
    # a thread holds C's elements in pairs of neighbours: each pair rounded to bfloat16
    # together (cvt.rn.bf16x2) and stored as one 32-bit word
    pair = cuda.local.array(2, bfloat16)
    words = c.view(np.uint32)
    for r in consteval(range(0, ACC, 2)):
        pair[0], pair[1] = acc[r], acc[r + 1]
        words[row + 8 * ((r // 2) % 2), (col + 8 * (r // 4)) // 2] = pair.view(np.uint32)[0]


def matmul(a, b_t, c):
    """c[:] = a @ b_t.T for device arrays of bfloat16: a (M, K), b_t (N, K), c (M, N)."""
    (m, k), (n, k_b) = a.shape, b_t.shape
    if k != k_b or c.shape != (m, n):
        raise ValueError(f"shapes do not multiply: a {a.shape}, b_t {b_t.shape}, c {c.shape}")
    if m % BM or n % BN or k % BK or k < STAGES * BK:
        raise ValueError(f"M must be a multiple of {BM}, N of {BN}, K of {BK} and at least {STAGES * BK}")
    a_map = cuda.tensor_map.tiled(a, (BM, BK), swizzle="128b")
    b_map = cuda.tensor_map.tiled(b_t, (BN, BK), swizzle="128b")
    gemm_kernel[(n // BN) * (m // BM), THREADS, 0, SHARED_BYTES](a_map, b_map, c, k // BK)


def random_operands(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b_t = rng.standard_normal((n, k)).astype(ml_dtypes.bfloat16)
    return a, b_t


def check(m=1024, n=1024, k=1024):
    a, b_t = random_operands(m, n, k)
    c = cuda.to_device(np.full((m, n), np.nan, ml_dtypes.bfloat16))
    matmul(cuda.to_device(a), cuda.to_device(b_t), c)
    expected = a.astype(np.float64) @ b_t.astype(np.float64).T
    got = c.copy_to_host().astype(np.float64)
    # float32 sums rounded once to bfloat16 (8 bits): within 2**-8 of each value, relative
    np.testing.assert_allclose(got, expected, rtol=2**-7, atol=2**-7 * np.sqrt(k))
    return float(np.max(np.abs(got - expected)))


def missing():
    """What this example needs and this machine lacks, in one line, or None."""
    if ml_dtypes is None:
        return "gemm_hopper.py needs ml_dtypes for its bfloat16 arrays: pip install 'cumlir[narrow-floats]'"
    if not cuda.is_available():
        return "gemm_hopper.py needs a GPU of compute capability 9.0 (H100, H200); this machine has no CUDA GPU"
    cc = cuda.get_current_device().compute_capability
    if cc != (9, 0):
        return f"gemm_hopper.py needs a GPU of compute capability 9.0 (H100, H200); this one is {cc[0]}.{cc[1]}"
    return None


if __name__ == "__main__":
    if missing():
        sys.exit(missing())
    print(f"max |error| {check():.4f}: the product matches NumPy")
