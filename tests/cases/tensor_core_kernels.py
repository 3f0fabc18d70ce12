"""Kernels of the warp's tensor-core instructions (mma_sync, ldmatrix, stmatrix) and the
fragment layouts of docs/tensor_cores.md written out on the host, shared by the PTX tests and
the GPU tests (tests/operations/tensor_cores/test_mma.py, tests/operations/tensor_cores/test_mma_gpu.py)."""

import numpy as np

from cumlir import cuda, types
from cumlir.cuda import intrin
from cumlir.cuda.experimental import consteval

# (shape, A's dtype, B's dtype, C's and D's dtype): every combination mma_sync takes, by kind
CASES = [
    ("m16n8k8", types.float16, types.float16, types.float32),
    ("m16n8k16", types.float16, types.float16, types.float32),
    ("m16n8k16", types.float16, types.float16, types.float16),
    ("m16n8k8", types.bfloat16, types.bfloat16, types.float32),
    ("m16n8k16", types.bfloat16, types.bfloat16, types.float32),
    ("m16n8k4", types.float32, types.float32, types.float32),
    ("m16n8k8", types.float32, types.float32, types.float32),
    ("m16n8k8", types.tf32, types.tf32, types.float32),
    ("m8n8k16", types.int8, types.int8, types.int32),
    ("m16n8k16", types.int8, types.uint8, types.int32),
    ("m16n8k32", types.int8, types.int8, types.int32),
    ("m16n8k32", types.uint8, types.uint8, types.int32),
    ("m16n8k32", types.f8E4M3FN, types.f8E4M3FN, types.float32),
    ("m16n8k32", types.f8E5M2, types.f8E4M3FN, types.float32),
    ("m8n8k4", types.float64, types.float64, types.float64),
]

PTX_TYPE = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "tf32",
    "tf32": "tf32",
    "int8": "s8",
    "uint8": "u8",
    "f8E4M3FN": "e4m3",
    "f8E5M2": "e5m2",
    "float64": "f64",
}
ACCUMULATOR_PTX_TYPE = {"float32": "f32", "float16": "f16", "int32": "s32", "float64": "f64"}


def case_id(case):
    shape, a, b, c = case
    return f"{shape}-{a}-{b}-{c}"


def dims(shape):
    """(M, N, K) of a shape name."""
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def register_bits(dtype):
    return 8 if str(dtype).startswith("f8") else dtype.bitwidth


def fragment_layout(shape, dtype, operand):
    """(32, elements, 2): the (row, col) of the tile each lane's fragment element holds, for
    operand "a" (M x K), "b" (K x N) or "c" (M x N, also D's), with A and B of *dtype*: PTX's
    "Matrix Fragments for mma" for the shape, as docs/tensor_cores.md states them."""
    m, n, k = dims(shape)
    per_register = max(1, 32 // register_bits(dtype))
    lanes = []
    for lane in range(32):
        group, thread = lane // 4, lane % 4
        places = []
        if operand == "c":
            for i in range(m * n // 32):
                places.append((group + 8 * (i // 2), 2 * thread + i % 2))
        elif operand == "a":
            row_halves = 2 if m == 16 else 1
            for i in range(m * k // 32):
                register, within = divmod(i, per_register)
                row = group + 8 * (register % row_halves)
                col = per_register * thread + within + 4 * per_register * (register // row_halves)
                places.append((row, col))
        else:
            for i in range(k * n // 32):
                register, within = divmod(i, per_register)
                places.append((per_register * thread + within + 4 * per_register * register, group))
        lanes.append(places)
    return np.array(lanes, np.int32)


def mma_kernel(shape, a_dtype, b_dtype, c_dtype):
    """A kernel of one warp: each lane gathers its fragments of the tiles A, B and C by the
    layouts given (arrays of fragment_layout), runs mma_sync, and scatters D into the tile d."""
    m, n, k = dims(shape)
    na, nb, nc = m * k // 32, k * n // 32, m * n // 32

    def kernel(a, b, c, d, where_a, where_b, where_c):
        lane = cuda.threadIdx.x
        fa = cuda.local.array(na, a_dtype)
        fb = cuda.local.array(nb, b_dtype)
        fc = cuda.local.array(nc, c_dtype)
        fd = cuda.local.array(nc, c_dtype)
        for i in range(na):
            fa[i] = a[where_a[lane, i, 0], where_a[lane, i, 1]]
        for i in range(nb):
            fb[i] = b[where_b[lane, i, 0], where_b[lane, i, 1]]
        for i in range(nc):
            fc[i] = c[where_c[lane, i, 0], where_c[lane, i, 1]]
        intrin.mma_sync(fd, fa, fb, fc, shape)
        for i in range(nc):
            d[where_c[lane, i, 0], where_c[lane, i, 1]] = fd[i]

    return kernel


def mma_signature(a_dtype, b_dtype, c_dtype):
    where = types.int32[:, :, ::1]
    tile = [types.Array(t, 2, "C") for t in (a_dtype, b_dtype, c_dtype, c_dtype)]
    return (*tile, where, where, where)


def saturating_product(d, a, b, c):
    """mma_sync with satfinite: int8 products summed into int32 clamped instead of wrapping."""
    fa = cuda.local.array(16, np.int8)
    fb = cuda.local.array(8, np.int8)
    fc = cuda.local.array(4, np.int32)
    lane = cuda.threadIdx.x
    for i in range(16):
        fa[i] = a[lane * 16 + i]
    for i in range(8):
        fb[i] = b[lane * 8 + i]
    for i in range(4):
        fc[i] = c[lane * 4 + i]
    intrin.mma_sync(fc, fa, fb, fc, "m16n8k32", True)
    for i in range(4):
        d[lane * 4 + i] = fc[i]


ROWS = 32  # the shared matrix of the ldmatrix kernels: 4 stacked 8 x 8 matrices of 16-bit elements


def ldmatrix_kernel(num, trans):
    """Lane l gives the address of row l % (8 * num) of the stacked matrices (8 rows each); the
    fragment comes back as 2 * num uint16 per lane."""
    rows, count = 8 * num, 2 * num

    def kernel(matrices, out):
        sm = cuda.shared.array((ROWS, 8), np.uint16)
        lane = cuda.threadIdx.x
        for col in range(8):
            sm[lane, col] = matrices[lane, col]
        cuda.syncthreads()
        frag = cuda.local.array(count, np.uint16)
        intrin.ldmatrix(frag, sm[lane % rows, 0:], num, trans)
        for i in range(count):
            out[lane, i] = frag[i]

    return kernel


def ldmatrix_words_kernel(matrices, out):
    """ldmatrix into uint32 registers: two elements each, the first in the low half."""
    sm = cuda.shared.array((ROWS, 8), np.uint16)
    lane = cuda.threadIdx.x
    for col in range(8):
        sm[lane, col] = matrices[lane, col]
    cuda.syncthreads()
    frag = cuda.local.array(4, np.uint32)
    intrin.ldmatrix(frag, sm[lane, 0:], 4)
    for i in range(4):
        out[lane, i] = frag[i]


def stmatrix_kernel(num, trans):
    """The inverse of ldmatrix_kernel: lane l's fragment (given) stored through row l % (8 * num)."""
    rows, count = 8 * num, 2 * num

    def kernel(fragments, out):
        sm = cuda.shared.array((ROWS, 8), np.uint16)
        lane = cuda.threadIdx.x
        for col in range(8):
            sm[lane, col] = 0
        cuda.syncthreads()
        frag = cuda.local.array(count, np.uint16)
        for i in range(count):
            frag[i] = fragments[lane, i]
        intrin.stmatrix(sm[lane % rows, 0:], frag, num, trans)
        cuda.syncthreads()
        for col in range(8):
            out[lane, col] = sm[lane, col]

    return kernel


def ldmatrix_expected(matrices, num, trans):
    """(32, 2 * num): what each lane's fragment holds: register j of lane l the elements
    (l // 4, 2 * (l % 4)) and (l // 4, 2 * (l % 4) + 1) of matrix j (or of its transpose)."""
    out = np.zeros((32, 2 * num), matrices.dtype)
    for lane in range(32):
        for j in range(num):
            tile = matrices[8 * j : 8 * j + 8]
            if trans:
                tile = tile.T
            out[lane, 2 * j] = tile[lane // 4, 2 * (lane % 4)]
            out[lane, 2 * j + 1] = tile[lane // 4, 2 * (lane % 4) + 1]
    return out


def registers_stay_in_registers(a, b, out):
    """Fragments filled and read at constant indices (consteval loops): no local memory."""
    fa = cuda.local.array(8, np.float16)
    fb = cuda.local.array(4, np.float16)
    acc = cuda.local.array(4, np.float32)
    lane = cuda.threadIdx.x
    for i in consteval(range(8)):
        fa[i] = a[lane, i]
    for i in consteval(range(4)):
        fb[i] = b[lane, i]
        acc[i] = 0.0
    for _ in range(a.shape[1] // 8):
        intrin.mma_sync(acc, fa, fb, acc, "m16n8k16")
    for i in consteval(range(4)):
        out[lane, i] = acc[i]
