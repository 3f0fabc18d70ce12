"""Kernels of Hopper's warpgroup tensor cores and the cheap Hopper extras (elect.sync, setmaxnreg,
griddepcontrol), shared by the PTX tests and the GPU tests (tests/operations/tensor_cores/test_wgmma.py,
tests/operations/tensor_cores/test_wgmma_gpu.py). One warpgroup (128 threads) multiplies a 64 x K matrix A by a K x N
matrix B held in shared memory in one of cumlir.wgmma_layout's orders."""

import numpy as np

from cumlir import cuda, types
from cumlir import wgmma_layout as wl
from cumlir.cuda import intrin
from cumlir.cuda.experimental import consteval

WARPGROUP = 128
M = 64
LAYOUTS = {"interleaved": wl.interleaved, "swizzled_128b": wl.swizzled_128b}


def operands(rng, n, k):
    """A (64, k) and B (k, n) of small multiples of 1/4, exact in f16 and bf16 and in their products' sums."""
    a = rng.integers(-8, 8, (M, k)) / 4
    b = rng.integers(-8, 8, (k, n)) / 4
    return a, b


def bits(matrix, dtype):
    """The 16-bit patterns of *matrix* (exact in *dtype*, 'f16' or 'bf16')."""
    if dtype == "f16":
        return matrix.astype(np.float16).view(np.uint16)
    return (matrix.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def layouts(a, b, dtype, layout):
    """The shared-memory images of A (M rows of K) and of B (N rows of K: K-major)."""
    arrange = LAYOUTS[layout]
    return arrange(bits(a, dtype)), arrange(bits(np.ascontiguousarray(b.T), dtype))


def fragment_position(thread, register):
    """(row, column) of D that *register* of *thread* holds in an m64nNk16 float32 accumulator."""
    warp, lane = divmod(thread, 32)
    row = 16 * warp + lane // 4 + 8 * ((register // 2) % 2)
    column = 8 * (register // 4) + 2 * (lane % 4) + register % 2
    return row, column


@cuda.jit(device=True)
def _fill(shared, source, t):
    """The warpgroup's threads copy *source* into the shared array, thread t every 128th element."""
    for i in range(t, len(shared), WARPGROUP):
        shared[i] = source[i]


def _storing(count):
    """A device function storing an m64nN accumulator of *count* elements of thread t into
    out (64 x N), each element at its place in D (fragment_position)."""

    @cuda.jit(device=True)
    def store(acc, out, t):
        warp = t // 32
        lane = t % 32
        for r in consteval(range(count)):
            row = 16 * warp + lane // 4 + 8 * ((r // 2) % 2)
            column = 8 * (r // 4) + 2 * (lane % 4) + r % 2
            out[row, column] = acc[r]

    return store


def make_product(n, k, dtype, a_layout, b_layout, acc_dtype=np.float32):
    """A kernel(a, b, out) computing out = A @ B, a and b the flat shared-memory images, in an
    accumulator of *acc_dtype*."""
    a_size, b_size = a_layout.data.size, b_layout.data.size
    a_lbo, a_sbo, b_lbo, b_sbo = (
        a_layout.leading_byte_offset,
        a_layout.stride_byte_offset,
        b_layout.leading_byte_offset,
        b_layout.stride_byte_offset,
    )
    swizzle = a_layout.swizzle
    steps = k // 16
    count = n // 2
    store = _storing(count)
    shape = f"m64n{n}k16"
    a_rows, b_rows = M, n

    def product(a, b, out):
        sa = cuda.shared.array(a_size, np.uint16, alignment=1024)
        sb = cuda.shared.array(b_size, np.uint16, alignment=1024)
        t = cuda.threadIdx.x
        _fill(sa, a, t)
        _fill(sb, b, t)
        intrin.fence_proxy_async()
        cuda.syncthreads()
        acc = cuda.local.array(count, acc_dtype)
        # loops unrolled at compile time: every index of the accumulator a constant, so that it
        # stays in registers
        for r in consteval(range(count)):
            acc[r] = 1e30  # scale_d = 0 on the first step discards it
        intrin.wgmma_fence()
        for s in consteval(range(steps)):
            if swizzle == 0:
                a_start = s * 2 * a_lbo // 2
                b_start = s * 2 * b_lbo // 2
            else:
                a_start = ((s * 32) // 128 * a_rows * 128 + (s * 32) % 128) // 2
                b_start = ((s * 32) // 128 * b_rows * 128 + (s * 32) % 128) // 2
            da = intrin.wgmma_descriptor(sa[a_start:], a_lbo, a_sbo, swizzle)
            db = intrin.wgmma_descriptor(sb[b_start:], b_lbo, b_sbo, swizzle)
            intrin.wgmma_mma_async(acc, da, db, shape, s, dtype=dtype)
        intrin.wgmma_commit_group()
        intrin.wgmma_wait_group(0, acc)
        store(acc, out, t)

    return product


def make_integer_product(n, k, dtype, a_layout, b_layout, b_dtype=None):
    """A kernel(a, b, out) computing out = A @ B for 8-bit integers ('s8' or 'u8'; B of
    *b_dtype* where given), a and b the flat shared-memory images (interleaved) of int8 or
    uint8, in an int32 accumulator."""
    a_size, b_size = a_layout.data.size, b_layout.data.size
    a_lbo, a_sbo = a_layout.leading_byte_offset, a_layout.stride_byte_offset
    b_lbo, b_sbo = b_layout.leading_byte_offset, b_layout.stride_byte_offset
    element = np.int8 if dtype == "s8" else np.uint8
    b_dtype = b_dtype or dtype
    b_element = np.int8 if b_dtype == "s8" else np.uint8
    steps, count, shape = k // 32, n // 2, f"m64n{n}k32"
    store = _storing(count)

    def product(a, b, out):
        sa = cuda.shared.array(a_size, element, alignment=1024)
        sb = cuda.shared.array(b_size, b_element, alignment=1024)
        t = cuda.threadIdx.x
        _fill(sa, a, t)
        _fill(sb, b, t)
        intrin.fence_proxy_async()
        cuda.syncthreads()
        acc = cuda.local.array(count, np.int32)
        for r in consteval(range(count)):
            acc[r] = -12345  # scale_d = 0 on the first step discards it
        intrin.wgmma_fence()
        for s in consteval(range(steps)):
            da = intrin.wgmma_descriptor(sa[s * 2 * a_lbo :], a_lbo, a_sbo, 0)
            db = intrin.wgmma_descriptor(sb[s * 2 * b_lbo :], b_lbo, b_sbo, 0)
            intrin.wgmma_mma_async(acc, da, db, shape, s, dtype=dtype, b_dtype=b_dtype)
        intrin.wgmma_commit_group()
        intrin.wgmma_wait_group(0, acc)
        store(acc, out, t)

    return product


def a_fragment_position(thread, element):
    """(row, column) of A (64 x 16) that *element* of *thread* holds in an A fragment in registers
    of a 16-bit m64nNk16 wgmma: each warp 16 rows, laid out as mma.sync's m16n8k16 A."""
    warp, lane = divmod(thread, 32)
    row = 16 * warp + lane // 4 + 8 * ((element // 2) % 2)
    column = 2 * (lane % 4) + element % 2 + 8 * (element // 4)
    return row, column


def a_fragments(a, dtype):
    """A (64 x 16) as each thread holds it in registers: (128 * 8,) elements of float16, or of
    ml_dtypes' bfloat16 for 'bf16'."""
    if dtype == "f16":
        element = np.float16
    else:
        import ml_dtypes

        element = ml_dtypes.bfloat16
    return np.array([a[a_fragment_position(t, e)] for t in range(WARPGROUP) for e in range(8)]).astype(element)


def make_register_product(n, dtype, b_layout):
    """A kernel(fragments, b, out) computing out = A @ B for one k16 step, A in registers (the
    elements of a_fragments) and B in shared memory in *b_layout*."""
    b_size, b_lbo, b_sbo = b_layout.data.size, b_layout.leading_byte_offset, b_layout.stride_byte_offset
    swizzle = b_layout.swizzle
    count = n // 2
    shape = f"m64n{n}k16"
    element = np.float16 if dtype == "f16" else types.bfloat16
    store = _storing(count)

    def product(fragments, b, out):
        sb = cuda.shared.array(b_size, np.uint16, alignment=1024)
        t = cuda.threadIdx.x
        _fill(sb, b, t)
        intrin.fence_proxy_async()
        cuda.syncthreads()
        a = cuda.local.array(8, element)
        for e in consteval(range(8)):
            a[e] = fragments[8 * t + e]
        acc = cuda.local.array(count, np.float32)
        for r in consteval(range(count)):
            acc[r] = 1e30  # scale_d = 0 discards it
        intrin.wgmma_fence()
        db = intrin.wgmma_descriptor(sb, b_lbo, b_sbo, swizzle)
        intrin.wgmma_mma_async(acc, a, db, shape, 0, dtype=dtype)
        intrin.wgmma_commit_group()
        intrin.wgmma_wait_group(0, acc)
        store(acc, out, t)

    return product


def elected(flags, out):
    """out[t] = 1 in the lane elected among those of its warp with flags[t] set, else 0."""
    t = cuda.threadIdx.x
    out[t] = 0
    if flags[t]:
        if intrin.elect_sync_mask(cuda.activemask()):
            out[t] = 1
    cuda.syncwarp()
    if intrin.elect_sync():
        out[t] += 2


SETMAXNREG_REGISTERS = 128  # the kernel's max_registers: ptxas ignores setmaxnreg without a count at entry


def two_warpgroups(out):
    """The first warpgroup gives 88 registers a thread back, the second takes them (the block's
    registers stay 2 x 128 a thread); each thread writes its index."""
    t = cuda.threadIdx.x
    if t < WARPGROUP:
        intrin.setmaxnreg_dec(40)
    else:
        intrin.setmaxnreg_inc(216)
    out[t] = t


def producer(out, rounds, zero):
    """Writes out[i] = i after some work (*zero* is 0: the work cannot be left out), then lets
    the dependent grid start."""
    i = cuda.grid(1)
    value = 0
    for _ in range(rounds):  # long enough that a dependent reading early would see the poison
        value = (value * 7 + i) % 1000003
    out[i] = i + value * zero
    intrin.griddepcontrol_launch_dependents()


def consumer(source, out):
    """Launched with pdl=True after producer: waits for it, then reads what it wrote."""
    intrin.griddepcontrol_wait()
    i = cuda.grid(1)
    out[i] = source[i] * 2


def dependent(out):
    """Waits for the grids it depends on (none: it returns at once), then lets its dependents start."""
    intrin.griddepcontrol_wait()
    out[cuda.grid(1)] = 7
    intrin.griddepcontrol_launch_dependents()
