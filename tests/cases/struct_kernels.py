"""C structs and unions (``cuda.experimental.struct``/``union``): the declarations and kernels the
CPU tests (PTX, the simulator) and the GPU tests share, each kernel with a host reference
computed by the host's values of the same types (typerecords/_c_host.py), whose bytes are
C's layout, checked against ctypes and GCC by the CPU tests.

Kernels write whole values out as bytes, through a union of the value and a C array of
bytes, so that a comparison with the host is bit for bit, padding included."""

import numpy as np

from cumlir import cuda, types
from cumlir.cuda.experimental import struct, union

Inner = struct([("x", types.float32), ("y", types.int16)], "Inner")
Flags = struct(
    [
        ("ready", types.boolean, 1),
        ("level", types.int32, 5),
        ("count", types.uint32, 12),
        (None, types.uint32, 4),
        ("code", types.uint8, 7),
        ("wide", types.int64, 40),
    ],
    "Flags",
)
# a field of every kind: each integer width, the floats, bool, complex numbers, a nested
# struct, a C array, a vector type and bit fields after ordinary fields
Every = struct(
    [
        ("b", types.boolean),
        ("i8", types.int8),
        ("u16", types.uint16),
        ("i32", types.int32),
        ("u8", types.uint8),
        ("i64", types.int64),
        ("u32", types.uint32),
        ("i16", types.int16),
        ("u64", types.uint64),
        ("f16", types.float16),
        ("f32", types.float32),
        ("bf16", types.bfloat16),
        ("f64", types.float64),
        ("c64", types.complex64),
        ("c128", types.complex128),
        ("inner", Inner),
        ("arr", types.UniTuple(types.int16, 3)),
        ("vec", cuda.float32x4),
        ("flags", Flags),
        ("small", types.int8, 3),
        ("tiny", types.uint16, 2),
    ],
    "Every",
)
EveryBytes = union([("value", Every), ("raw", types.UniTuple(types.uint8, Every.size))], "EveryBytes")
Word = union(
    [
        ("u", types.uint32),
        ("f", types.float32),
        ("bytes", types.UniTuple(types.uint8, 4)),
        ("halves", struct([("lo", types.uint16), ("hi", types.uint16)], "Halves")),
        ("bits", struct([("mantissa", types.uint32, 23), ("exponent", types.uint32, 8), ("sign", types.uint32, 1)])),
    ],
    "Word",
)

INTEGER_FIELDS = ["i8", "u16", "i32", "u8", "i64", "u32", "i16", "u64"]
FLOAT_FIELDS = ["f16", "f32", "bf16", "f64"]


def random_every(rng):
    """An Every of random field values (floats exact in float32, so that no conversion rounds twice)."""
    e = Every()
    e.b = bool(rng.integers(2))
    for name in INTEGER_FIELDS:  # any bits
        size = int(name[1:]) // 8
        setattr(e, name, int.from_bytes(rng.bytes(size), "little", signed=name[0] == "i"))
    for name in FLOAT_FIELDS:
        setattr(e, name, float(np.float32(rng.standard_normal() * 100)))
    e.c64 = complex(np.float32(rng.standard_normal()), np.float32(rng.standard_normal()))
    e.c128 = complex(rng.standard_normal(), rng.standard_normal())
    e.inner = {"x": float(np.float32(rng.standard_normal())), "y": int(rng.integers(-(2**15), 2**15))}
    e.arr = tuple(int(v) for v in rng.integers(-(2**15), 2**15, 3))
    e.vec = tuple(float(np.float32(v)) for v in rng.standard_normal(4))
    e.flags.ready = bool(rng.integers(2))
    e.flags.level = int(rng.integers(-16, 16))
    e.flags.count = int(rng.integers(0, 4096))
    e.flags.code = int(rng.integers(0, 128))
    e.flags.wide = int(rng.integers(-(2**39), 2**39))
    e.small = int(rng.integers(-4, 4))
    e.tiny = int(rng.integers(0, 4))
    return e


# ---- a value passed in, read field by field and written out whole ----------------------------


@cuda.jit
def read_every(e, ints, floats, raw):
    """Every field of the argument *e* into *ints* and *floats*, and its bytes into *raw*."""
    ints[0] = e.b
    ints[1] = e.i8
    ints[2] = e.u16
    ints[3] = e.i32
    ints[4] = e.u8
    ints[5] = e.i64
    ints[6] = e.u32
    ints[7] = e.i16
    ints[8] = e.u64
    ints[9] = e.inner.y
    ints[10] = e.arr[0]
    ints[11] = e.arr[1]
    ints[12] = e.arr[2]
    ints[13] = e.flags.ready
    ints[14] = e.flags.level
    ints[15] = e.flags.count
    ints[16] = e.flags.code
    ints[17] = e.flags.wide
    ints[18] = e.small
    ints[19] = e.tiny
    floats[0] = e.f16
    floats[1] = e.f32
    floats[2] = e.bf16
    floats[3] = e.f64
    floats[4] = e.c64.real
    floats[5] = e.c64.imag
    floats[6] = e.c128.real
    floats[7] = e.c128.imag
    floats[8] = e.inner.x
    floats[9] = e.vec.x
    floats[10] = e.vec.y
    floats[11] = e.vec.z
    floats[12] = e.vec.w
    whole = EveryBytes(value=e)
    for k in range(raw.size):
        raw[k] = whole.raw[k]


def read_every_reference(e):
    """(ints, floats, raw) read_every writes for *e*."""
    ints = [e.b, *(getattr(e, n) for n in INTEGER_FIELDS), e.inner.y, *e.arr]
    ints += [e.flags.ready, e.flags.level, e.flags.count, e.flags.code, e.flags.wide, e.small, e.tiny]
    floats = [*(getattr(e, n) for n in FLOAT_FIELDS), e.c64.real, e.c64.imag, e.c128.real, e.c128.imag, e.inner.x]
    floats += list(e.vec)
    bits = np.array([int(v) % 2**64 for v in ints], dtype=np.uint64)  # the int64s written, as bits
    return bits, np.array(floats, dtype=np.float64), np.frombuffer(bytes(e), np.uint8)


# ---- values built in a kernel ----------------------------------------------------------------
# thread i builds an Every from row i of ints and floats and writes its bytes to raw[i]: fields
# given to the constructor, assigned, assigned through a nested struct, updated in place, and
# bit fields given values that do not fit them (C keeps their low bits)


@cuda.jit
def build_every(ints, floats, raw):
    i = cuda.grid(1)
    if i >= raw.shape[0]:
        return
    n = ints[i]
    x = floats[i]
    e = Every(ints[i, 0] != 0, ints[i, 1], u16=ints[i, 2], f32=x[1])
    e.i32 = n[3]
    e.u8 = n[4]
    e.i64 = n[5]
    e.u32 = n[6]
    e.i16 = n[7]
    e.u64 = n[8]
    e.f16 = x[0]
    e.bf16 = x[2]
    e.f64 = x[3]
    e.c64 = complex(x[4], x[5])
    e.c128 = complex(x[6], x[7])
    e.inner = Inner(x[8], n[9])
    e.inner.x += 1.0
    e.inner.y -= 3
    e.arr = (n[10], n[11], n[12])
    e.vec = cuda.float32x4(x[9], x[10], x[11], x[12])
    e.flags.ready = n[13] != 0
    e.flags.level = n[14]
    e.flags.count = n[15]
    e.flags.code = n[16]
    e.flags.wide = n[17]
    e.flags.count += 1
    e.small = n[18]
    e.tiny = n[19]
    whole = EveryBytes(value=e)
    for k in range(raw.shape[1]):
        raw[i, k] = whole.raw[k]


def build_every_reference(ints, floats):
    """The rows of bytes build_every writes."""
    rows = []
    for n, x in zip(ints.tolist(), floats.tolist()):
        e = Every(n[0] != 0, n[1] % 2**8 - (n[1] % 2**8 >= 2**7) * 2**8, u16=n[2] % 2**16, f32=x[1])
        e.i32, e.u8, e.i64, e.u32, e.i16, e.u64 = n[3], n[4], n[5], n[6], n[7], n[8]
        e.f16, e.bf16, e.f64 = x[0], x[2], x[3]
        e.c64, e.c128 = complex(x[4], x[5]), complex(x[6], x[7])
        e.inner = Inner(x[8], n[9])
        e.inner.x = float(np.float32(np.float32(e.inner.x) + np.float32(1.0)))
        e.inner.y = (e.inner.y - 3 + 2**15) % 2**16 - 2**15
        e.arr = tuple(n[10:13])
        e.vec = tuple(x[9:13])
        e.flags.ready, e.flags.level, e.flags.count, e.flags.code, e.flags.wide = n[13] != 0, *n[14:18]
        e.flags.count = e.flags.count + 1
        e.small, e.tiny = n[18], n[19]
        rows.append(np.frombuffer(bytes(e), np.uint8))
    return np.array(rows)


def build_every_inputs(rng, n):
    """(ints, floats) for build_every: integers in each field's range, bit fields' values past theirs."""
    ranges = [(0, 2), (-128, 128), (0, 2**16), (-(2**31), 2**31), (0, 256), (-(2**62), 2**62), (0, 2**32)]
    ranges += [(-(2**15), 2**15), (0, 2**63), (-(2**15), 2**15 - 3), (-(2**15), 2**15), (-(2**15), 2**15)]
    ranges += [(-(2**15), 2**15), (0, 2), (-100, 100), (0, 5000), (0, 255), (-(2**45), 2**45), (-50, 50), (0, 40)]
    ints = np.stack([rng.integers(lo, hi, n, dtype=np.int64) for lo, hi in ranges], axis=1)
    floats = (rng.standard_normal((n, 13)).astype(np.float32) * np.float32(50)).astype(np.float64)  # exact in float32
    return ints, floats


# ---- unions: one value's bytes read as each field ----------------------------------------------


@cuda.jit
def word_views(values, out):
    """Thread i: values[i] through each field of Word, written to out[i]."""
    i = cuda.grid(1)
    if i >= values.size:
        return
    w = Word(f=values[i])
    out[i, 0] = w.u
    out[i, 1] = w.halves.lo
    out[i, 2] = w.halves.hi
    out[i, 3] = w.bytes[0] + 256 * w.bytes[3]
    out[i, 4] = w.bits.exponent
    out[i, 5] = w.bits.mantissa
    w.bits.sign = 1 - w.bits.sign
    out[i, 6] = w.u
    w.halves.hi = 0x3F80
    w.halves.lo = 0
    out[i, 7] = w.f  # 1.0
    w.bytes = (1, 2, 3, 4)
    out[i, 8] = w.u


def word_views_reference(values):
    bits = values.astype(np.float32).view(np.uint32).astype(np.int64)
    out = np.zeros((values.size, 9), np.int64)
    out[:, 0] = bits
    out[:, 1] = bits & 0xFFFF
    out[:, 2] = bits >> 16
    out[:, 3] = (bits & 0xFF) + 256 * (bits >> 24)
    out[:, 4] = (bits >> 23) & 0xFF
    out[:, 5] = bits & 0x7FFFFF
    out[:, 6] = bits ^ (1 << 31)
    out[:, 7] = 1
    out[:, 8] = 0x04030201
    return out


# ---- arrays of structs in local and shared memory ---------------------------------------------


@cuda.jit
def local_arrays(values, out):
    """Thread i keeps 8 Inners and a 2x3 array of Flags in local memory, assigns their fields
    through the arrays (``a[j].x = v``), and writes what it reads back to out[i]."""
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    a = cuda.local.array(8, Inner)
    g = cuda.local.array((2, 3), Flags)
    for j in range(8):
        a[j] = Inner(values[i, j], j)
    for j in range(8):
        a[(j + i) % 8].x += 1.0
        a[j].y *= 2
    for r in range(2):
        for c in range(3):
            g[r, c] = Flags()
            g[r, c].count = r * 3 + c + i
            g[r, c].level = -(c + 1)
    total = 0.0
    for j in range(8):
        total += np.float64(a[j].x) * a[j].y
    out[i, 0] = total
    out[i, 1] = g[1, 2].count - g[0, 1].level
    copy = a[3]  # a copy: assigning its field leaves the array alone
    copy.x = 1000.0
    out[i, 2] = a[3].x


def local_arrays_reference(values):
    out = np.zeros((values.shape[0], 3))
    for i, row in enumerate(values.astype(np.float32)):
        xs = row + np.float32(1.0)
        ys = 2 * np.arange(8)
        out[i, 0] = sum(float(np.float32(x)) * y for x, y in zip(xs, ys))
        out[i, 1] = (5 + i) + 2
        out[i, 2] = xs[3]
    return out


@cuda.jit
def shared_arrays(values, out):
    """Each thread of a block assigns the fields of its own element of a shared array one at a
    time (the others' bytes untouched, so no other thread's write is raced or read unwritten),
    then reads its neighbour's; a dynamic shared array of Words does the same."""
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s = cuda.shared.array(64, Inner)
    d = cuda.shared.array(0, Word)
    s[t].x = values[i]
    s[t].y = t
    d[t].f = values[i]
    cuda.syncthreads()
    n = (t + 1) % cuda.blockDim.x
    out[i, 0] = np.float64(s[n].x) + s[n].y
    out[i, 1] = d[n].halves.hi


def shared_arrays_reference(values, threads):
    v = values.astype(np.float32)
    neighbour = np.array([(i // threads) * threads + (i % threads + 1) % threads for i in range(v.size)])
    out = np.zeros((v.size, 2))
    out[:, 0] = v[neighbour].astype(np.float64) + neighbour % threads
    out[:, 1] = v[neighbour].view(np.uint32) >> 16
    return out


# ---- device functions: values in, values out ---------------------------------------------------


@cuda.jit(device=True)
def scaled(p, k):
    """*p* with x scaled: a copy of the caller's (assigning its field leaves the caller's alone)."""
    p.x = p.x * k
    p.y += 1
    return p


@cuda.jit(device=True)
def counted(f, n):
    for _ in range(n):
        if f.ready:
            f.count += 2
        else:
            f.count += 1
        f.ready = not f.ready
    return f


@cuda.jit
def through_functions(values, out):
    i = cuda.grid(1)
    if i >= values.size:
        return
    p = Inner(values[i], i)
    q = scaled(p, 3.0)
    out[i, 0] = p.x
    out[i, 1] = q.x
    out[i, 2] = q.y
    f = counted(Flags(ready=True), i % 7)
    out[i, 3] = f.count
    out[i, 4] = f.ready


def through_functions_reference(values):
    v = values.astype(np.float32)
    out = np.zeros((v.size, 5))
    out[:, 0] = v
    out[:, 1] = v * np.float32(3.0)
    out[:, 2] = np.arange(v.size) + 1
    for i in range(v.size):
        ready, count = True, 0
        for _ in range(i % 7):
            count += 2 if ready else 1
            ready = not ready
        out[i, 3], out[i, 4] = count, ready
    return out


KERNELS = {
    "read_every": (read_every, (Every._type, types.int64[:], types.float64[:], types.uint8[:])),
    "build_every": (build_every, "void(int64[:, :], float64[:, :], uint8[:, :])"),
    "word_views": (word_views, "void(float32[:], int64[:, :])"),
    "local_arrays": (local_arrays, "void(float64[:, :], float64[:, :])"),
    "shared_arrays": (shared_arrays, "void(float32[:], float64[:, :])"),
    "through_functions": (through_functions, "void(float32[:], float64[:, :])"),
}
