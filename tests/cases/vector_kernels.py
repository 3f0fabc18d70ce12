"""CUDA vector types: kernels building vectors in every way Numba-CUDA allows and writing
their lanes out, copies of vector arrays, vectors through device functions and as kernel
arguments, each with a host reference computed from the inputs."""

import numpy as np

from cumlir import cuda
from cumlir.types import BASE_TYPES, vector_types

TYPE_NAMES = list(vector_types)  # "int8x1" ... "float64x4"


def constructor(base, n):
    return getattr(cuda, f"{base}x{n}")


# ---- building vectors ---------------------------------------------------------------------
# ``compositions_kernel(base)(src, out)``: src holds four values of the base type (a, b, c, d);
# the kernel builds vectors of 1 to 4 lanes from scalars and smaller vectors and writes their
# lanes to out in order; COMPOSITIONS says which of a, b, c, d each lane holds.

COMPOSITIONS = [
    "a",  # V1(a)
    "b",  # V1(V1(b))
    "ab",  # V2(a, b)
    "cb",  # V2(V1(c), b)
    "da",  # V2(d, V1(a))
    "ab",  # V2(V2(a, b))
    "abc",  # V3(a, b, c)
    "abd",  # V3(V2(a, b), d)
    "cab",  # V3(c, V2(a, b))
    "bcd",  # V3(V1(b), c, V1(d))
    "cab",  # V3(V3(c, a, b))
    "abcd",  # V4(a, b, c, d)
    "abab",  # V4(V2(a, b), V2(a, b))
    "abcd",  # V4(V3(a, b, c), d)
    "dabc",  # V4(d, V3(a, b, c))
    "cabd",  # V4(c, V2(a, b), V1(d))
    "dcab",  # V4(V1(d), c, V2(a, b))
    "dcba",  # V4(V4(d, c, b, a))
]
COMPOSED_LANES = sum(len(c) for c in COMPOSITIONS)


@cuda.jit(device=True)
def put2(out, j, v):
    out[j] = v.x
    out[j + 1] = v.y


@cuda.jit(device=True)
def put3(out, j, v):
    put2(out, j, v)
    out[j + 2] = v.z


@cuda.jit(device=True)
def put4(out, j, v):
    put3(out, j, v)
    out[j + 3] = v.w


def compositions_kernel(base):
    V1, V2, V3, V4 = (constructor(base, n) for n in (1, 2, 3, 4))

    def kernel(src, out):
        a, b, c, d = src[0], src[1], src[2], src[3]
        v1a = V1(a)
        out[0] = v1a.x
        out[1] = V1(V1(b)).x
        ab = V2(a, b)
        j = 2
        for v in (ab, V2(V1(c), b), V2(d, v1a), V2(ab)):
            put2(out, j, v)
            j += 2
        cab = V3(c, ab)
        for v in (V3(a, b, c), V3(ab, d), cab, V3(V1(b), c, V1(d)), V3(cab)):
            put3(out, j, v)
            j += 3
        abc = V3(a, b, c)
        dcba = V4(d, c, b, a)
        for v in (V4(a, b, c, d), V4(ab, ab), V4(abc, d), V4(d, abc), V4(c, ab, V1(d)), V4(V1(d), c, ab), V4(dcba)):
            put4(out, j, v)
            j += 4

    kernel.__name__ = f"compositions_{base}"
    return kernel


def compositions_reference(src):
    named = dict(zip("abcd", src))
    return np.array([named[lane] for c in COMPOSITIONS for lane in c], dtype=src.dtype)


def conversions(src, out):
    """Scalars of other types are converted to the base type, as Numba-CUDA converts them:
    float64 rounded to float32, floats truncated toward zero to integers, bools to 0 or 1."""
    put4(out, 0, cuda.float4(src[0], src[1], src[2], src[3]))
    put2(out, 4, cuda.int2(src[0], src[1]))
    put3(out, 6, cuda.uchar3(src[2] > 0, 7, True))


def conversions_reference(src):
    f32 = src[:4].astype(np.float32).astype(np.float64)
    i32 = np.trunc(src[:2]).astype(np.int32).astype(np.float64)
    return np.concatenate([f32, i32, [float(src[2] > 0), 7.0, 1.0]])


# ---- vector arrays ------------------------------------------------------------------------


def grid_stride_copy(src, dst):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < src.shape[0]:
        dst[i] = src[i]
        i += step


def copy_2d(src, dst):
    i, j = cuda.grid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j]


def views_and_iteration(src, out):
    """Vectors read through views (a strided slice, a reversed view) and by iteration."""
    acc = 0.0
    for v in src[1::2]:
        acc += v.x + v.w
    out[0] = acc
    out[1] = src[::-1][0].y


def views_and_iteration_reference(src):
    acc = 0.0
    for v in src[1::2]:
        acc += float(np.float32(v["x"]) + np.float32(v["w"]))
    return np.array([acc, src[-1]["y"]])


def reverse_lanes_kernel(base, n):
    """dst[i] = src[i] with its lanes in reverse order (each lane's position matters)."""
    V = constructor(base, n)

    def one(src, dst):
        i = cuda.grid(1)
        if i < src.shape[0]:
            dst[i] = V(src[i].x)

    def two(src, dst):
        i = cuda.grid(1)
        if i < src.shape[0]:
            v = src[i]
            dst[i] = V(v.y, v.x)

    def three(src, dst):
        i = cuda.grid(1)
        if i < src.shape[0]:
            v = src[i]
            dst[i] = V(v.z, v.y, v.x)

    def four(src, dst):
        i = cuda.grid(1)
        if i < src.shape[0]:
            v = src[i]
            dst[i] = V(v.w, v.z, v.y, v.x)

    return {1: one, 2: two, 3: three, 4: four}[n]


def reverse_lanes_reference(src):
    out = src.copy()
    lanes = src.dtype.names
    for name, source in zip(lanes, reversed(lanes)):
        out[name] = src[source]
    return out


# ---- device functions and arguments --------------------------------------------------------


@cuda.jit(device=True)
def _scaled(v, k):
    return cuda.float32x4(v.x * k, v.y * k, v.z * k, v.w * k)


@cuda.jit(device=True)
def _dot3(a, b):
    return a.x * b.x + a.y * b.y + a.z * b.z


def device_functions(src, k, out, dots):
    """Vectors as device function arguments and results, and held across a branch."""
    i = cuda.grid(1)
    if i < src.shape[0]:
        v = src[i]
        if i % 2 == 0:
            v = _scaled(v, k)
        out[i] = v
        dots[i] = _dot3(cuda.double3(v.x, v.y, v.z), cuda.double3(1.0, 2.0, 3.0))


def device_functions_reference(src, k):
    out = src.copy()
    even = np.arange(len(src)) % 2 == 0
    for lane in "xyzw":
        out[lane][even] = (src[lane][even] * np.float32(k)).astype(np.float32)
    f64 = {lane: out[lane].astype(np.float64) for lane in "xyz"}
    dots = f64["x"] * 1.0 + f64["y"] * 2.0 + f64["z"] * 3.0
    return out, dots


def vector_argument(v, w, out):
    """Vectors passed by value to a kernel (eager signature: float4, int2)."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = cuda.float4(v.w + i, v.z, v.y + w.x, v.x * w.y)


def vector_argument_reference(v, w, n):
    out = np.zeros(n, vector_types["float32x4"].numpy_dtype())
    out["x"] = (np.float32(v["w"]) + np.arange(n)).astype(np.float32)
    out["y"] = v["z"]
    out["z"] = np.float32(np.float64(v["y"]) + np.float64(w["x"]))
    out["w"] = np.float32(np.float64(v["x"]) * np.float64(w["y"]))
    return out


def scale_xyz(v, k):
    """A vector operator for CUDA C++ callers (cuda.compile with the C ABI)."""
    return cuda.float4(v.x * k, v.y * k, v.z * k, v.w)


SCALE_XYZ_CALLER = """
extern "C" __device__ float4 scale_xyz(float4 v, float k);
extern "C" __global__ void call_scale_xyz(float4* p, float k) { p[0] = scale_xyz(p[0], k); }
"""


__all__ = ["BASE_TYPES", "TYPE_NAMES"]


# ---- scalar arrays viewed as vectors ------------------------------------------------------
# ``viewed_kernel(name)(a, out, doubled)``: a holds scalars of the base type, a 1-d or 2-d
# (C) array whose last axis a whole number of vectors fills; the kernel views it as vectors,
# writes each vector's lanes to out (a flat copy of a) and stores each vector, lanes in
# reverse order, into a view of doubled, whose strides and item size it also reports.


def viewed_kernel(name):
    vty = vector_types[name]
    make = constructor(str(vty.base_type), vty.count)
    put = (None, None, put2, put3, put4)[vty.count]
    count = vty.count

    @cuda.jit
    def kernel(a, out, reversed_, shape):
        v = a.view(make)
        w = reversed_.view(make)
        flat = v.reshape(v.size)
        flat_w = w.reshape(w.size)
        for i in range(flat.size):
            x = flat[i]
            if count == 1:
                out[i] = x.x
                flat_w[i] = make(x.x)
            elif count == 2:
                put(out, 2 * i, x)
                flat_w[i] = make(x.y, x.x)
            elif count == 3:
                put(out, 3 * i, x)
                flat_w[i] = make(x.z, x.y, x.x)
            else:
                put(out, 4 * i, x)
                flat_w[i] = make(x.w, x.z, x.y, x.x)
        shape[0] = v.shape[v.ndim - 1]
        shape[1] = v.strides[v.ndim - 1]
        shape[2] = v.itemsize
        shape[3] = v.strides[0]

    return kernel


def viewed_reference(a, count):
    """(out, reversed_) the kernel makes of a: its values, and each vector's lanes reversed."""
    groups = a.reshape(-1, count)
    return a.ravel().copy(), groups[:, ::-1].reshape(a.shape).copy()


# ---- shared and local arrays of vectors ---------------------------------------------------
# ``memory_kernel(base, n)(src, dst)``: src and dst hold MEMORY_THREADS vectors' lanes, n
# scalars of the base type each; thread i stores its vector into a shared array, and after a
# barrier reads vector MEMORY_THREADS - 1 - i back through a local array, writing its lanes
# reversed: memory_reference gives dst.

MEMORY_THREADS = 32


def memory_kernel(base, n):
    V = constructor(base, n)
    last = MEMORY_THREADS - 1

    def kernel(src, dst):
        shared = cuda.shared.array(MEMORY_THREADS, dtype=V)
        held = cuda.local.array(2, V)
        i = cuda.threadIdx.x
        j = n * i
        if n == 1:
            shared[i] = V(src[j])
        elif n == 2:
            shared[i] = V(src[j], src[j + 1])
        elif n == 3:
            shared[i] = V(src[j], src[j + 1], src[j + 2])
        else:
            shared[i] = V(src[j], src[j + 1], src[j + 2], src[j + 3])
        cuda.syncthreads()
        held[i % 2] = shared[last - i]
        v = held[i % 2]
        if n == 1:
            dst[j] = v.x
        elif n == 2:
            dst[j], dst[j + 1] = v.y, v.x
        elif n == 3:
            dst[j], dst[j + 1], dst[j + 2] = v.z, v.y, v.x
        else:
            dst[j], dst[j + 1], dst[j + 2], dst[j + 3] = v.w, v.z, v.y, v.x

    kernel.__name__ = f"memory_{base}x{n}"
    return kernel


def memory_reference(src, n):
    return src.reshape(MEMORY_THREADS, n)[::-1, ::-1].ravel().copy()
