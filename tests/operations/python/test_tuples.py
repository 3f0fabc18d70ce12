"""Tuples and namedtuples in kernels (operations/python/tuples.py): indexing by a constant
(negatives counting from the end) and by a run-time integer (signed indices wrapping,
unsigned ones not), constant slices, ``+`` and ``tuple(t)``, ``len``, ``in``, comparisons (==, !=, <, <=, >, >=, Python's
lexicographic rules), namedtuple construction, fields and indexing, and
tuples of arrays and complex numbers (members an LLVM struct cannot hold). The generated
code runs on the host (tests/nrt_harness.py) against Python's own tuples, on random values
of several dtypes; typing errors for what numba refuses; the PTX on both code generators."""

import collections

import numpy as np
import pytest
from numba import literal_unroll, typeof
from numba.core import types
from numba.core.errors import TypingError

from cumlir import compiler, cuda

from ... import nrt_harness, support

Point = collections.namedtuple("Point", ["x", "y", "z"])

# ---- the kernels ------------------------------------------------------------------------------


def _indexing(out, fixed, found, a, indices, items):
    t = (a[0], a[1], a[2], a[3], a[4])
    for k in range(indices.size):
        out[k] = t[indices[k]]  # a run-time index: a chain of selects
    fixed[0] = t[0]  # constant indices: the member itself
    fixed[1] = t[3]
    fixed[2] = t[-1]
    fixed[3] = t[-5]
    for k in range(items.size):
        found[k] = items[k] in t


def _compared(out, a, b):
    # pairs and a triple against a pair, each compared by all six operators
    k = 0
    for i in range(a.size - 2):
        t, u = (a[i], a[i + 1]), (b[i], b[i + 1])
        longer = (a[i], a[i + 1], a[i + 2])
        out[k + 0] = t == u
        out[k + 1] = t != u
        out[k + 2] = t < u
        out[k + 3] = t <= u
        out[k + 4] = t > u
        out[k + 5] = t >= u
        out[k + 6] = longer == u
        out[k + 7] = longer < u
        out[k + 8] = longer >= u
        out[k + 9] = (a[i], 2) <= (b[i], 1.5)  # members of other types
        k += 10


def _compared_in_python(a, b):
    out = []
    for i in range(a.size - 2):
        t, u = (a[i], a[i + 1]), (b[i], b[i + 1])
        longer = (a[i], a[i + 1], a[i + 2])
        out += [t == u, t != u, t < u, t <= u, t > u, t >= u, longer == u, longer < u, longer >= u]
        out.append((a[i], 2) <= (b[i], 1.5))
    return out


def _lengths(out, a):
    out[0] = len((a[0],))
    out[1] = len((a[0], 1, (2.5, a[1])))  # a nested tuple counts once
    out[2] = len((a, a[1:], a[0]))  # arrays among the members
    out[3] = len(Point(1, 2.0, a[0]))


def _namedtuples(out, a, n):
    p = Point(a[0], n, a[1] * 2.0)
    q = Point(p.z, p.x, n + 1)  # fields read back into a new namedtuple
    out[0] = p.x
    out[1] = p.y
    out[2] = p.z
    out[3] = q[0]  # indexing a namedtuple by a constant
    out[4] = q[-1]
    x, y, z = q  # unpacking
    out[5] = x + y + z
    out[6] = _sum_of_point(q)


@cuda.jit(device=True)
def _sum_of_point(p):
    return p.x + p.y + p.z


def _tuples_of_arrays(out, a, b, z, i):
    t = (a, b, a[1:])  # arrays: a memref per member, picked by selects too
    r = t[i]
    out[0] = r[0]
    c = (z[0], z[1], z[2])  # complex members
    w = c[i]
    out[1] = w.real
    out[2] = w.imag
    out[3] = z[1] in c
    out[4] = (z[0] + 1.0) in c
    nested = ((1, 2), (3, 4))
    out[5] = nested[i % 2][1]


def _sliced(out, a, n):
    t = (a[0], n, a[1], a[2] > 0.0)
    u = t[1:] + tuple(t[:2]) + t[::-1] + t[-1:-3:-1] + t[5:]
    k = 0
    for v in literal_unroll(u):
        out[k] = v
        k += 1


# ---- the generated code run on the host -------------------------------------------------------

DTYPES = ["bool", "int8", "uint16", "int32", "uint64", "float32", "float64", "complex64", "complex128"]


def _values(dtype, n, rng):
    if np.dtype(dtype).kind == "c":
        return (support.random_values("float64", n, rng) + 1j * support.random_values("float64", n, rng)).astype(dtype)
    return support.random_values(dtype, n, rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_members_picked_by_constant_and_run_time_indices_are_pythons(dtype, rng):
    a = _values(dtype, 5, rng)
    # items to look for: members of the tuple and values that are not (NaN is never found)
    items = np.concatenate([a[rng.permutation(5)[:3]], _values(dtype, 3, rng)])
    if a.dtype.kind in "fc":
        items[-1] = np.nan
        a[2] = np.nan
    for index_dtype in ("int64", "uint8"):
        low = -5 if np.dtype(index_dtype).kind == "i" else 0
        indices = rng.integers(low, 5, 40).astype(index_dtype)
        out, fixed = support.poisoned(40, dtype), support.poisoned(4, dtype)
        found = support.poisoned(items.size, "bool")
        found[:] = ~np.isin(items, a)  # the opposite of what is expected, so that a kernel writing nothing fails
        argtypes = tuple(typeof(v) for v in (out, fixed, found, a, indices, items))
        nrt_harness.Kernel(_indexing, argtypes)(out, fixed, found, a, indices, items).check_balanced()
        t = tuple(a)
        np.testing.assert_array_equal(out, [t[i] for i in indices.tolist()])
        np.testing.assert_array_equal(fixed, [t[0], t[3], t[-1], t[-5]])
        # Python's `in` compares with == (distinct NaN objects are not equal)
        np.testing.assert_array_equal(found, [item.item() in tuple(a.tolist()) for item in items])


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32", "float64"])
def test_tuples_compare_as_pythons(dtype, rng):
    n = 40
    a = support.random_values(dtype, n, rng)
    b = a.copy()
    change = rng.random(n) < 0.4  # many equal first members, so the second decides
    b[change] = support.random_values(dtype, int(change.sum()), rng)
    if a.dtype.kind == "f":
        a[5], b[9] = np.nan, np.nan  # a NaN member differs from everything, itself included
    out = support.poisoned(10 * (n - 2), "bool")
    nrt_harness.Kernel(_compared, (typeof(out), typeof(a), typeof(b)))(out, a, b).check_balanced()
    # Python's comparisons of the same values (NumPy scalars, as the kernel's members are)
    np.testing.assert_array_equal(out, _compared_in_python(a, b))


def test_constant_slices_concatenation_and_tuple_of_a_tuple_are_pythons(rng):
    a = rng.standard_normal(3)
    n = int(rng.integers(-100, 100))
    out = support.poisoned(11, "float64")
    nrt_harness.Kernel(_sliced, (typeof(out), typeof(a), types.int64))(out, a, n).check_balanced()
    t = (a[0], n, a[1], a[2] > 0.0)
    u = t[1:] + tuple(t[:2]) + t[::-1] + t[-1:-3:-1] + t[5:]
    np.testing.assert_array_equal(out, np.array(u, dtype=np.float64))


def test_len_counts_the_members():
    a = np.arange(4.0)
    out = support.poisoned(4, "int64")
    nrt_harness.Kernel(_lengths, (typeof(out), typeof(a)))(out, a).check_balanced()
    np.testing.assert_array_equal(out, [1, 3, 3, len(Point(1, 2.0, 0.0))])


def test_namedtuples_are_built_read_unpacked_and_passed(rng):
    a = rng.standard_normal(2)
    n = int(rng.integers(-100, 100))
    out = support.poisoned(7, "float64")
    nrt_harness.Kernel(_namedtuples, (typeof(out), typeof(a), types.int64))(out, a, n).check_balanced()
    p = Point(a[0], n, a[1] * 2.0)
    q = Point(p.z, p.x, n + 1)
    np.testing.assert_array_equal(out, [p.x, p.y, p.z, q[0], q[-1], sum(q), q.x + q.y + q.z])


def test_tuples_of_arrays_and_complex_numbers_are_indexed_at_run_time(rng):
    a, b = rng.standard_normal(3), rng.standard_normal(1)
    z = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    argtypes = (types.float64[::1], typeof(a), typeof(b), typeof(z), types.int64)
    kernel = nrt_harness.Kernel(_tuples_of_arrays, argtypes)
    for i in (0, 1, 2, -1, -2, -3):
        out = support.poisoned(6, "float64")
        kernel(out, a, b, z, i).check_balanced()
        r, w = (a, b, a[1:])[i], tuple(z)[i]
        expected = [r[0], w.real, w.imag, z[1] in tuple(z), (z[0] + 1.0) in tuple(z), ((1, 2), (3, 4))[i % 2][1]]
        np.testing.assert_array_equal(out, expected, err_msg=f"index {i}")


# ---- tuples with complex members: held as separate values (moved from tests/test_tuple_members.py)


@cuda.jit(device=True)
def _pair_and_product(x, z):
    return (x, z * x, (z.conjugate(), x + 1.0))


def _kernel(a, z, out_real, out_complex):
    x, product, (conjugate, successor) = _pair_and_product(a[0], z[0])
    out_real[0] = x + successor
    out_complex[0] = product
    out_complex[1] = conjugate


@pytest.mark.parametrize("real, complex_", [(np.float64, np.complex128), (np.float32, np.complex64)])
def test_a_device_function_returns_complex_members_of_nested_tuples(real, complex_):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(1).astype(real)
    z = (rng.standard_normal(1) + 1j * rng.standard_normal(1)).astype(complex_)
    out_real = np.full(1, np.nan, real)
    out_complex = np.full(2, np.nan, complex_)
    argtypes = tuple(typeof(v) for v in (a, z, out_real, out_complex))
    nrt_harness.Kernel(_kernel, argtypes)(a, z, out_real, out_complex)
    assert out_real[0] == real(a[0] + (a[0] + real(1.0)))
    np.testing.assert_allclose(out_complex, [z[0] * a[0], np.conj(z[0])], rtol=4 * np.finfo(real).eps)
    ptx, _ = cuda.compile_ptx(_kernel, argtypes, cc=(9, 0))
    support.ptxas(ptx)


# ---- typing -----------------------------------------------------------------------------------


def _constant_out_of_range(out, a):
    t = (a[0], a[1])
    out[0] = t[2]


def _run_time_index_of_mixed_members(out, a, i):
    t = (a[0], 1)
    out[0] = t[i]


def test_a_constant_index_out_of_range_is_a_typing_error():
    with pytest.raises(TypingError, match="tuple index out of range"):
        compiler.type_function(_constant_out_of_range, (types.float64[::1], types.float64[::1]))


def test_a_run_time_index_into_members_of_different_types_is_a_typing_error():
    # which member a run-time index picks is known only when it runs: the result has no one type
    with pytest.raises(TypingError, match="getitem"):
        compiler.type_function(_run_time_index_of_mixed_members, (types.float64[::1], types.float64[::1], types.int64))


def test_results_are_typed_as_the_members():
    def f(a, i):
        t = (a[0], a[1])
        p = Point(1, a[0], (2, 3))
        return t[i], t[-1], len(t), a[0] in t, p.z, p[0]

    result = compiler.type_function(f, (types.float32[:], types.uint8)).return_type
    assert list(result) == [
        types.float32,
        types.float32,
        types.intp,
        types.boolean,
        types.UniTuple(types.int64, 2),
        types.int64,
    ]


# ---- an index outside the tuple, launched ----------------------------------------------------


def _picked(out, a, indices):
    i = cuda.grid(1)
    if i < indices.size:
        t = (a[0], a[1], a[2])
        out[i] = t[indices[i]]


EMPTIES = ((), (), ())


def _empty_picked(out, indices):
    i = cuda.grid(1)
    if i < indices.size:
        out[i] = len(EMPTIES[indices[i]])  # members without a value: nothing to select among


@pytest.mark.parametrize("index_dtype", ["int64", "int8", "uint32"])
def test_a_run_time_index_outside_the_tuple_raises_index_error(index_dtype, simulator_or_gpu, rng):
    a = rng.standard_normal(3)
    low = -3 if np.dtype(index_dtype).kind == "i" else 0
    inside = rng.integers(low, 3, 50).astype(index_dtype)
    out = support.poisoned(50, "float64")
    kernel = cuda.jit(debug=True, opt=False)(_picked)
    kernel[2, 32](out, a, inside)
    np.testing.assert_array_equal(out, a[inside.astype(np.int64)])
    for bad in (3, -4 if low else 200):
        outside = inside.copy()
        outside[17] = bad
        with pytest.raises(IndexError, match=r"tuple index out of range.*thread 17.*test_tuples\.py:\d+"):
            kernel[2, 32](out, a, outside)


def test_an_index_outside_a_tuple_of_empty_tuples_raises_index_error(simulator_or_gpu):
    kernel = cuda.jit(debug=True, opt=False)(_empty_picked)
    out = support.poisoned(4, "int64")
    kernel[1, 4](out, np.array([0, 2, -1, -3]))
    np.testing.assert_array_equal(out, [0, 0, 0, 0])
    with pytest.raises(IndexError, match=r"tuple index out of range"):
        kernel[1, 4](out, np.array([0, 1, 3, 2]))


@pytest.mark.gpu
def test_without_debug_an_index_outside_the_tuple_ends_the_thread(rng):
    # as every raise in device code without debug=True: the thread ends, the others run on
    a = rng.standard_normal(3)
    indices = np.array([0, 5, 2, -4, -1, 1 << 40])
    out = support.poisoned(6, "float64")
    cuda.jit(_picked)[1, 6](out, a, indices)
    expected = support.poisoned(6, "float64")
    expected[[0, 2, 4]] = a[[0, 2, -1]]
    np.testing.assert_array_equal(out, expected)


# ---- PTX --------------------------------------------------------------------------------------


def test_tuple_operations_assemble(backend):
    argtypes = (types.float64[::1], types.float64[::1], types.boolean[::1], types.float64[::1], types.int32[::1])
    ptx, _ = cuda.compile_ptx(_indexing, (*argtypes, types.float64[::1]), cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    argtypes = (types.float64[::1], types.float64[::1], types.float64[::1], types.complex128[::1], types.int64)
    ptx, _ = cuda.compile_ptx(_tuples_of_arrays, argtypes, cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    ptx, _ = cuda.compile_ptx(
        _compared, (types.boolean[::1], types.int32[::1], types.int32[::1]), cc=(9, 0), backend=backend
    )
    support.ptxas(ptx)
