"""Kernels on records (structured dtypes), shared by the CPU (PTX) and GPU tests."""

import numpy as np

from cumlir import cuda

# every scalar field type numba allows, packed: most fields sit at unaligned offsets
ALL_FIELDS = [
    ("b", np.bool_),
    ("i1", np.int8),
    ("u1", np.uint8),
    ("i2", np.int16),
    ("u2", np.uint16),
    ("i4", np.int32),
    ("u4", np.uint32),
    ("i8", np.int64),
    ("u8", np.uint64),
    ("f2", np.float16),
    ("f4", np.float32),
    ("f8", np.float64),
    ("c8", np.complex64),
    ("c16", np.complex128),
]
ALL_PACKED = np.dtype([("pad", np.int8)] + ALL_FIELDS, align=False)
ALL_ALIGNED = np.dtype([("pad", np.int8)] + ALL_FIELDS, align=True)

POINT_PACKED = np.dtype([("x", np.float32), ("y", np.int16), ("z", np.float64)], align=False)
POINT_ALIGNED = np.dtype([("x", np.float32), ("y", np.int16), ("z", np.float64)], align=True)

INNER = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
OUTER = np.dtype([("tag", np.int16), ("inner", INNER), ("w", np.float32)], align=True)
OUTER_PACKED = np.dtype(
    [("tag", np.int8), ("inner", np.dtype([("a", np.int32), ("b", np.float64)])), ("w", np.float32)]
)

WITH_ARRAY = np.dtype([("n", np.int32), ("v", np.float32, (3,)), ("m", np.int64, (2, 2))], align=True)
# packed, 48 bytes: in an array every record and both sub-arrays sit at multiples of their elements
WITH_ARRAY_PACKED = np.dtype([("n", np.int32), ("v", np.float32, (3,)), ("m", np.int64, (2, 2))], align=False)


def copy_all_fields(src, dst):
    """Each scalar field through .attr on read and ['name'] on write (bool negated, numbers + 1)."""
    i = cuda.grid(1)
    if i < src.shape[0]:
        r = src[i]
        d = dst[i]
        d["b"] = not r.b
        d["i1"] = r.i1 + 1
        d["u1"] = r.u1 + 1
        d["i2"] = r.i2 + 1
        d["u2"] = r.u2 + 1
        d["i4"] = r.i4 + 1
        d["u4"] = r.u4 + 1
        d["i8"] = r.i8 + 1
        d["u8"] = r.u8 ^ r.u1  # uint64 + int64 would be a float64 in Numba
        d["f2"] = r.f2 + r.f2
        d["f4"] = r.f4 + 1
        d["f8"] = r.f8 + 1
        d["c8"] = r.c8 * 2
        d["c16"] = r.c16 * 2
        d.pad = r.pad


def point_update(points, out):
    """Reads by name and attribute; writes through a record reference and by attribute."""
    i = cuda.grid(1)
    if i < points.shape[0]:
        out[i] = points[i].x + points[i]["z"] * points[i].y
        r = points[i]
        r.y += 1
        points[i].x = r.z


def record_copy(src, dst):
    """dst[i] = src[n - 1 - i]: whole records."""
    i = cuda.grid(1)
    n = src.shape[0]
    if i < n:
        dst[i] = src[n - 1 - i]


def swap_pairs(a):
    """Copies between elements of one array through a temporary field value."""
    i = cuda.grid(1)
    if 2 * i + 1 < a.shape[0]:
        x = a[2 * i].x
        a[2 * i].x = a[2 * i + 1].x
        a[2 * i + 1].x = x


def points_2d(points, out):
    i, j = cuda.grid(2)
    if i < points.shape[0] and j < points.shape[1]:
        out[i, j] = points[i, j].z - points[i, j].x
        points[i, j].y = i * 10 + j


def nested(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].inner.a + a[i].inner.b * a[i].w + a[i].tag
        inner = a[i].inner
        inner.a = i
        a[i].inner.b = -a[i].inner.b


def nested_copy(a, b):
    """Copies a nested record field as a whole."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        b[i].inner = a[i].inner


def sub_arrays(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = r.v[0] + r.v[1] + r.v[2] + r.m[1, 0]
        r.v[1] = r.n
        r.m[0, 1] = i


def whole_sub_arrays(a, b, rows, grid, s):
    """Sub-array fields assigned whole: from another record's field, from a row of an array
    (of another dtype: converted), from a 2-d array, broadcast from a 1-element row, and a
    scalar into every element, by attribute and by name."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        if i % 4 == 0:
            a[i].v = b[i].v
            a[i]["m"] = b[i].m
        elif i % 4 == 1:
            a[i]["v"] = rows[i]
            a[i].m = grid[i]
        elif i % 4 == 2:
            a[i].v = rows[i, :1]
            a[i]["m"] = rows[i, 1:3]
        else:
            a[i]["v"] = s
            a[i].m = i


def record_argument(r, out):
    """A record scalar argument: read, and written back to the host's record."""
    out[0] = r.x + r.z
    r.y = 7
    r.x = r.x * 2


@cuda.jit(device=True)
def norm1(r):
    return abs(r.x) + abs(r.z)


@cuda.jit(device=True)
def bump(r, k):
    r.y += k
    return r


def through_device_function(points, out):
    i = cuda.grid(1)
    if i < points.shape[0]:
        out[i] = norm1(points[i])
        s = bump(points[i], 3)
        s.x = 1.5


def iterate_records(points, out):
    total = 0.0
    for p in points:
        total += p.z
    out[0] = total


def field_views(points, out):
    """Whole-field views of a record array."""
    zs = points.z
    xs = points.x
    i = cuda.grid(1)
    if i < zs.shape[0]:
        out[i] = zs[i] * 2
        xs[i] = i


def sliced_and_reshaped(points, out):
    """Views of a record array: a slice with a step, and a reshape."""
    every_other = points[1::2]
    grid = points.reshape((2, -1))
    i = cuda.grid(1)
    if i < every_other.shape[0]:
        out[i] = every_other[i].z + grid[1, i].x
