"""Kernels using the synchronization and bit intrinsics, shared by the CPU and GPU tests,
with the host references the GPU tests compare with."""

from fractions import Fraction

import numpy as np

from cumlir import cuda

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SELP_DTYPES = INT_DTYPES + ["float32", "float64"]
WARP_SHARED = 1024  # the largest block the warp exchange kernel takes


# ---- kernels --------------------------------------------------------------------------------


def block_reductions(pred, counts, alls, anys):
    """Per block: how many predicates are non-zero, whether all are, whether any is.
    The grid covers pred exactly, so every thread takes part in the barriers."""
    i = cuda.grid(1)
    p = pred[i]
    c = cuda.syncthreads_count(p)
    a = cuda.syncthreads_and(p)
    o = cuda.syncthreads_or(p)
    if cuda.threadIdx.x == 0:
        counts[cuda.blockIdx.x] = c
        alls[cuda.blockIdx.x] = a
        anys[cuda.blockIdx.x] = o


def warp_exchange(x, out):
    """Each lane reads its neighbour's (lane ^ 1) value through shared memory, ordered by syncwarp."""
    buf = cuda.shared.array(WARP_SHARED, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncwarp()
    partner = t ^ 1
    if partner < cuda.blockDim.x:
        out[i] = buf[partner]
    else:
        out[i] = buf[t]
    cuda.syncwarp(0xFFFFFFFF)


def fenced_reverse(x, out):
    """Each thread writes x[i] * 2 to out, fences, and after a barrier reads the element its
    mirror thread in the block wrote, sleeping a little in between."""
    i = cuda.grid(1)
    out[i] = x[i] * 2
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    cuda.nanosleep(100)
    cuda.syncthreads()
    start = cuda.blockIdx.x * cuda.blockDim.x
    mirror = start + cuda.blockDim.x - 1 - cuda.threadIdx.x
    value = out[mirror]
    cuda.syncthreads()
    x[i] = value


def bit_ops(x, popc, clz, ffs, brev, bit_count):
    i = cuda.grid(1)
    if i < x.size:
        popc[i] = cuda.popc(x[i])
        clz[i] = cuda.clz(x[i])
        ffs[i] = cuda.ffs(x[i])
        brev[i] = cuda.brev(x[i])
        bit_count[i] = x[i].bit_count()


def float_ops(a, b, c, fma, cbrt):
    i = cuda.grid(1)
    if i < a.size:
        fma[i] = cuda.fma(a[i], b[i], c[i])
        cbrt[i] = cuda.cbrt(a[i])


def select(pred, a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.selp(pred[i], a[i], b[i])


# ---- host references ------------------------------------------------------------------------


def width(dtype):
    return np.dtype(dtype).itemsize * 8


def bits_of(value, bits):
    """The two's complement bits of the Python int *value* in *bits* bits, as a Python int."""
    return int(value) & ((1 << bits) - 1)


def popc_of(value, dtype):
    return bin(bits_of(value, width(dtype))).count("1")


def clz_of(value, dtype):
    return width(dtype) - bits_of(value, width(dtype)).bit_length()


def ffs_of(value, dtype):
    v = bits_of(value, width(dtype))
    return (v & -v).bit_length()


def brev_of(value, dtype):
    """brev reverses 32 bits of the operand converted (sign-extended) to uint32, or 64 bits."""
    bits = 64 if width(dtype) == 64 else 32
    return int(format(bits_of(value, bits), f"0{bits}b")[::-1], 2)


def brev_dtype(dtype):
    return np.uint64 if width(dtype) == 64 else np.uint32


def round_fraction(value, dtype):
    """The float of *dtype* nearest the Fraction *value*, ties to even (one rounding)."""
    dtype = np.dtype(dtype)
    guess = dtype.type(float(value))  # within an ulp of the answer, maybe rounded twice
    with np.errstate(over="ignore"):
        candidates = [np.nextafter(guess, dtype.type(-np.inf)), guess, np.nextafter(guess, dtype.type(np.inf))]
    candidates = [c for c in candidates if np.isfinite(c)]
    uint = np.uint64 if dtype.itemsize == 8 else np.uint32

    def key(c):
        return (abs(Fraction(float(c)) - value), int(np.array(c).view(uint)) & 1)

    return min(candidates, key=key)


def fma_of(a, b, c, dtype):
    return round_fraction(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)), dtype)
