"""Device code that makes arrays with the device runtime (NRT), shared by the CPU tests
(tests/nrt_harness.py runs the generated code on the host against a checking stand-in of
the runtime) and the GPU tests.

Each case is a device function ``case(out, x, n)``: it reads the float64 vector ``x`` (n
elements), allocates, and writes what it found into the float64 vector ``out`` (OUT
elements). The same Python function run by NumPy on the host is the reference. ``single``
runs a case once (the CPU harness: no thread indices); ``per_thread`` runs it in every
thread on that thread's rows, so that many threads allocate and free at once.
"""

import functools

import numpy as np

from cumlir import cuda

OUT = 64
N = 6

# CUDA C++ allocating through the runtime and handing the MemInfo's reference to its caller
SQUARES_CU = r"""
#include <nrt.cuh>
extern "C" __device__ int make_squares(void **result, int n)
{
    NRT_MemInfo *mi = NRT_MemInfo_alloc_aligned(n * sizeof(double), 8);
    double *d = (double *)NRT_MemInfo_data(mi);
    for (int i = 0; i < n; i++)
        d[i] = (double)i * i;
    *result = mi;  /* the reference goes to the caller */
    return 0;
}
"""


def squares_function(nrt_marked=True):
    """make_squares(n) -> voidptr (the MemInfo), declared with its CUDA C++ as a link item."""
    from cumlir.linkable import CUSource

    item = CUSource(SQUARES_CU, name="squares.cu", nrt=nrt_marked)
    return cuda.declare_device("make_squares", "voidptr(int32)", link=[item])


# ---- device functions that return arrays ----------------------------------------------------


@cuda.jit(device=True)
def make_full(n, value):
    return np.full(n, value)


@cuda.jit(device=True)
def scaled(a, s):
    b = np.empty_like(a)
    for i in range(a.size):
        b[i] = a[i] * s
    return b


@cuda.jit(device=True)
def same(a):
    return a


@cuda.jit(device=True)
def tail(a):
    return a[1:]


@cuda.jit(device=True)
def pair(n):
    return np.zeros(n), np.arange(n)


@cuda.jit(device=True)
def nested(n):
    return scaled(make_full(n, 2.0), 3.0)


@cuda.jit(device=True)
def total(a):
    s = 0.0
    for v in a:
        s += v
    return s


@cuda.jit(device=True)
def early(a, stop):
    t = np.zeros(a.size)
    for i in range(a.size):
        if a[i] > stop:
            return t
        t[i] = a[i]
    return np.ones(1)


# ---- the cases ---------------------------------------------------------------------------------


def empty_filled(out, x, n):
    a = np.empty(n)
    for i in range(n):
        a[i] = 2.0 * x[i]
    for i in range(n):
        out[i] = a[i]


def constructors(out, x, n):
    z = np.zeros(n)
    o = np.ones((2, n))
    f = np.full(n, 3.5)
    g = np.full((3,), 4, np.int32)
    for i in range(n):
        out[i] = z[i] + o[1, i] + f[i] + x[i]
    out[n] = g[0] + g[2]
    out[n + 1] = o.shape[0] * 10 + o.shape[1]


def like(out, x, n):
    e = np.empty_like(x)
    z = np.zeros_like(x)
    o = np.ones_like(x, np.float32)
    f = np.full_like(x, 2.5)
    for i in range(n):
        e[i] = x[i] + 1.0
        out[i] = e[i] + z[i] + o[i] + f[i]


def ranges(out, x, n):
    a = np.arange(n)
    b = np.arange(1.0, 2.0, 0.25)
    c = np.arange(n, 0, -2)
    d = np.arange(3, dtype=np.float32)
    k = 0
    for arr in (a, c):
        for v in arr:
            out[k] = v
            k += 1
    for v in b:
        out[k] = v
        k += 1
    out[k] = d[2] + a.size + c.size * 100 + b.size * 1000


def loop_allocations(out, x, n):
    acc = 0.0
    for k in range(5):
        t = np.empty(n)
        for i in range(n):
            t[i] = x[i] * k
        acc += t[n - 1]
    out[0] = acc


def owned_or_borrowed(out, x, n):
    if x[0] > 0.0:
        a = np.zeros(n)
    else:
        a = x
    for i in range(n):
        out[i] = a[i] + 1.0


def reassigned(out, x, n):
    a = np.zeros(n)
    out[0] = a[0]
    a = np.ones(n)
    out[1] = a[0]
    a = a[1:]
    out[2] = a.size


def views_outlive_the_array(out, x, n):
    v = np.arange(2 * n)[1:]
    w = v[::2]
    for i in range(w.size):
        out[i] = w[i]


def tuples_of_arrays(out, x, n):
    t = (np.zeros(n), np.full(n, 5.0))
    u = t[1]
    a, b = t
    out[0] = u[0] + a[0] + b[n - 1]


def iteration(out, x, n):
    acc = 0.0
    for row in np.ones((3, n)):
        acc += row[0]
    for i, v in enumerate(np.arange(n)):
        acc += i * v
    out[0] = acc


def copies(out, x, n):
    c = x.copy()
    c[0] = 99.0
    for i in range(n):
        out[i] = c[i] + x[i]


def returned_from_device_functions(out, x, n):
    a = make_full(n, 1.5)
    b = scaled(x, 2.0)
    c = same(b)
    d = tail(a)
    z, r = pair(n)
    e = nested(n)
    out[0] = total(a) + total(b) + total(c) + total(d)
    out[1] = total(z) + total(r) + total(e)
    out[2] = total(scaled(make_full(n, 1.0), 4.0))  # temporaries only
    out[3] = total(same(x)) + total(tail(x))
    out[4] = total(early(x, 0.5)) + total(early(x, 100.0))


def layouts(out, x, n):
    f = np.zeros((2, n)).T
    e = np.empty_like(f)
    for i in range(n):
        for j in range(2):
            e[i, j] = i * 10 + j
    k = 0
    for i in range(n):
        for j in range(2):
            out[k] = e[i, j]
            k += 1
    if n > 1:  # a (1, 2) array is C- and F-contiguous: NumPy picks C strides there
        out[k] = e.strides[0] // 8 + e.strides[1] // 8 * 100


def expressions(out, x, n):
    """Array expressions: every operator and ufunc without an output makes a temporary."""
    v = x[:n]
    y = np.sqrt(np.abs(v)) + 2.0 * v
    z = y - v[0]
    z += 1.0
    w = (-z) * (z > 0.5)
    m = np.maximum(w, v) / 4.0
    g = np.ones((2, n)) + m  # broadcast over a new leading axis
    for i in range(n):
        out[i] = m[i]
        out[n + i] = g[1, i] * (v[i] >= 0.0)
    out[2 * n] = g.shape[0] * 10 + g.shape[1]


def methods_of_temporaries(out, x, n):
    """A method called on an array no variable holds: the bound method keeps it alive."""
    v = x[:n]
    c = (v + 1.0).copy()
    t = (v * 2.0).reshape(1, n).T.copy()
    for i in range(n):
        out[i] = c[i]
        out[n + i] = t[i, 0]


CASES = [
    empty_filled,
    constructors,
    like,
    ranges,
    loop_allocations,
    owned_or_borrowed,
    reassigned,
    views_outlive_the_array,
    tuples_of_arrays,
    iteration,
    copies,
    returned_from_device_functions,
    layouts,
    expressions,
    methods_of_temporaries,
]

# dtypes np.full / np.arange / np.zeros make on the device
DTYPES = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "bool",
]


@functools.cache
def dtype_case(dtype):
    """np.zeros / np.ones / np.full / np.arange of one dtype, read back as float64."""
    dt = np.dtype(dtype)
    is_complex = dt.kind == "c"
    # NumPy has no arange of bools beyond two elements: those count with zeros instead
    ranged = dt.kind != "b"

    def case(out, x, n):
        z = np.zeros(n, dt)
        o = np.ones((n,), dt)
        f = np.full(n, 3, dt)
        a = np.arange(n, dtype=dt) if ranged else np.zeros(n, dt)
        for i in range(n):
            # each array on its own: sums of bools differ between NumPy and Python
            if is_complex:
                out[i], out[n + i], out[2 * n + i], out[3 * n + i] = z[i].real, o[i].real, f[i].real, a[i].real
                out[4 * n + i] = a[i].imag + f[i].imag
            else:
                out[i], out[n + i], out[2 * n + i], out[3 * n + i] = z[i], o[i], f[i], a[i]

    case.__name__ = f"dtype_{dtype}"
    return case


HELPERS = ("make_full", "scaled", "same", "tail", "pair", "nested", "total", "early")


def on_host(fn):
    """*fn* as plain Python, calling the host versions of the device functions above."""
    import types

    names = {}
    host = {**fn.__globals__, **names}
    for name in HELPERS:
        helper = globals()[name]
        names[name] = types.FunctionType(helper.py_func.__code__, host, name)
    host.update(names)
    return types.FunctionType(fn.__code__, host, fn.__name__, fn.__defaults__, fn.__closure__)


def reference(case, x, n, out=None):
    """What the case leaves in *out* (OUT float64s, zeros if not given), computed by NumPy on
    the host."""
    out = np.zeros(OUT) if out is None else out.copy()
    on_host(case)(out, x.copy(), n)
    return out


@functools.cache
def device(case):
    return cuda.jit(device=True)(case)


@functools.cache
def single(case):
    """A kernel running the case once, on the whole of out and x."""
    body = device(case)

    def kernel(out, x, n):
        body(out, x, n)

    kernel.__name__ = f"single_{case.__name__}"
    return kernel


@functools.cache
def per_thread(case):
    """A kernel running the case in every thread i < out.shape[0], on rows out[i] and x[i]."""
    body = device(case)

    def kernel(out, x, n):
        i = cuda.grid(1)
        if i < out.shape[0]:
            body(out[i], x[i], n)

    kernel.__name__ = f"per_thread_{case.__name__}"
    return kernel
