"""Kernels using shared, local and constant memory, shared by the CPU and GPU tests.

The element type of an array allocated in a kernel is a compile-time constant, so
each kernel comes from a factory that closes over its dtype.
"""

import functools

from cumlir import cuda

TILE = 16  # matmul tiles are TILE x TILE
BLOCK = 128  # threads per block of the reductions
LOCAL_N = 8  # elements each thread sorts in local memory


@functools.cache
def tiled_matmul(dtype):
    """C = A @ B with TILE x TILE tiles of A and B staged in shared memory; any sizes."""

    def matmul(a, b, c):
        ta = cuda.shared.array((TILE, TILE), dtype)
        tb = cuda.shared.array((TILE, TILE), dtype)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        n, k = a.shape
        m = b.shape[1]
        acc = dtype(0)
        for t in range((k + TILE - 1) // TILE):
            kk = t * TILE
            ta[ty, tx] = a[row, kk + tx] if row < n and kk + tx < k else dtype(0)
            tb[ty, tx] = b[kk + ty, col] if kk + ty < k and col < m else dtype(0)
            cuda.syncthreads()
            for j in range(TILE):
                acc += ta[ty, j] * tb[j, tx]
            cuda.syncthreads()
        if row < n and col < m:
            c[row, col] = acc

    return matmul


@functools.cache
def block_sum(dtype):
    """out[b] = the sum of block b's BLOCK elements of x (missing elements count as 0)."""

    def reduce(x, out):
        partial = cuda.shared.array(BLOCK, dtype)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        partial[tid] = x[i] if i < x.size else dtype(0)
        cuda.syncthreads()
        step = BLOCK // 2
        while step > 0:
            if tid < step:
                partial[tid] += partial[tid + step]
            cuda.syncthreads()
            step //= 2
        if tid == 0:
            out[cuda.blockIdx.x] = partial[0]

    return reduce


@functools.cache
def dynamic_alias(dtype):
    """Two dynamic shared arrays alias one buffer: out is x reversed within the block,
    written through one array and read through the other; lengths[0] = len(first),
    lengths[1] = len of a byte view of the same memory."""

    def alias(x, out, lengths):
        first = cuda.shared.array(0, dtype)
        second = cuda.shared.array(0, dtype)
        as_bytes = cuda.shared.array(0, "uint8")
        tid = cuda.threadIdx.x
        n = cuda.blockDim.x
        first[tid] = x[tid]
        cuda.syncthreads()
        out[tid] = second[n - 1 - tid]
        if tid == 0:
            lengths[0] = len(first)
            lengths[1] = len(as_bytes)

    return alias


@functools.cache
def dynamic_fill(dtype):
    """Stage all of x in dynamic shared memory (as large as the launch gives), then out = the
    staged values rotated by one: every thread reads what another thread wrote."""

    def fill(x, out):
        buf = cuda.shared.array(0, dtype)
        tid = cuda.threadIdx.x
        n = len(buf)
        for i in range(tid, n, cuda.blockDim.x):
            buf[i] = x[i]
        cuda.syncthreads()
        for i in range(tid, n, cuda.blockDim.x):
            out[i] = buf[(i + 1) % n]

    return fill


@functools.cache
def dynamic_after_control_flow(dtype):
    """As dynamic_fill, the dynamic array declared after a branch and a loop, and the values
    scaled by what they computed."""

    def fill(x, out, flag):
        scale = 2 if flag > 0 else 1
        for _ in range(flag):
            scale += 1
        buf = cuda.shared.array(0, dtype)
        tid = cuda.threadIdx.x
        n = len(buf)
        for i in range(tid, n, cuda.blockDim.x):
            buf[i] = x[i] * scale
        cuda.syncthreads()
        for i in range(tid, n, cuda.blockDim.x):
            out[i] = buf[(i + 1) % n]

    return fill


@functools.cache
def local_sort(dtype):
    """Each thread sorts its row of LOCAL_N elements in a local array (insertion sort) and
    writes the row sorted and its running sums."""

    def sort(x, sorted_out, prefix_out):
        row = cuda.grid(1)
        if row >= x.shape[0]:
            return
        buf = cuda.local.array(LOCAL_N, dtype)
        sums = cuda.local.array((LOCAL_N,), dtype)
        for j in range(LOCAL_N):
            buf[j] = x[row, j]
        for j in range(1, LOCAL_N):
            v = buf[j]
            p = j - 1
            while p >= 0 and buf[p] > v:
                buf[p + 1] = buf[p]
                p -= 1
            buf[p + 1] = v
        total = dtype(0)
        for j in range(LOCAL_N):
            total += buf[j]
            sums[j] = total
        for j in range(LOCAL_N):
            sorted_out[row, j] = buf[j]
            prefix_out[row, j] = sums[j]

    return sort


def const_gather(table):
    """out[i] = table[idx[i]] for a 1-D table, table[idx[i] // cols, idx[i] % cols] for a 2-D
    one; *table* is copied into constant memory when the kernel is compiled."""
    if table.ndim == 1:

        def gather(idx, out):
            t = cuda.const.array_like(table)
            i = cuda.grid(1)
            if i < idx.size:
                out[i] = t[idx[i]]

    else:

        def gather(idx, out):
            t = cuda.const.array_like(table)
            i = cuda.grid(1)
            if i < idx.size:
                cols = t.shape[1]
                out[i] = t[idx[i] // cols, idx[i] % cols]

    return gather


def aligned_arrays(alignment):
    """Arrays with an explicit alignment (checked in the PTX)."""

    def aligned(out):
        s = cuda.shared.array(3, "uint8", alignment=alignment)
        loc = cuda.local.array(3, "uint8", alignment=alignment)
        i = cuda.threadIdx.x
        if i < 3:
            s[i] = i + 10
        for j in range(3):
            loc[j] = i + j
        cuda.syncthreads()
        out[i] = s[i % 3] + loc[(i + 1) % 3]

    return aligned
