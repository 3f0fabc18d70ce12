"""Iteration (operations/python/iterators.py): ``range`` in its three forms over every integer
type (bounds compared as signed, as numba does; counts exact at the ends of int64),
``enumerate``, ``zip``, and iteration over tuples and arrays (strided, reversed, 2-d by rows,
empty), their code run on the host (tests/nrt_harness.py) against Python's own iteration;
typing; PTX on both code generators, the iterators' state kept in registers."""

import functools

import numba
import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError
from numba.core.registry import cpu_target

from cumlir import cuda
from cumlir.compiler import type_function

from ... import nrt_harness, support


@functools.cache
def _kernel(pyfunc, *argtypes):
    return nrt_harness.Kernel(pyfunc, argtypes)


def _array_type(a):
    return numba.typeof(a)


# ---- range ---------------------------------------------------------------------------------------


def ranges(out, counts, bounds):
    """Each row of bounds (start, stop, step) iterated: its values written one after another,
    and how many there were."""
    k = 0
    for j in range(bounds.shape[0]):
        n = 0
        for i in range(bounds[j, 0], bounds[j, 1], bounds[j, 2]):
            if k < out.size:
                out[k] = i
            k += 1
            n += 1
        counts[j] = n


def _expected_ranges(bounds):
    values, counts = [], []
    for start, stop, step in bounds.tolist():
        r = range(start, stop, step)
        counts.append(len(r))
        values += list(r)
    return values, counts


def _run_ranges(bounds, limit):
    out = support.poisoned(limit, bounds.dtype)
    counts = support.poisoned(bounds.shape[0], np.int64)
    _kernel(ranges, _array_type(out), _array_type(counts), _array_type(bounds))(out, counts, bounds)
    return out, counts


def test_range_with_a_step_iterates_as_python(rng):
    steps = rng.integers(1, 8, 300) * rng.choice([-1, 1], 300)
    bounds = np.stack([rng.integers(-60, 60, 300), rng.integers(-60, 60, 300), steps], axis=1)
    values, counts = _expected_ranges(bounds)
    out, got = _run_ranges(bounds, len(values))
    np.testing.assert_array_equal(got, counts)
    np.testing.assert_array_equal(out, values)


def test_range_counts_are_exact_across_the_whole_int64_range():
    # the distance from start to stop overflows int64 here: counted as an unsigned magnitude
    low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    bounds = np.array(
        [
            [low, high, 2**62],
            [high, low, -(2**62)],
            [low, high, high],
            [high, low, low],  # a step of -2**63
            [low + 1, high, 2**63 - 1],
            [-5, high, 2**61],
            [high - 2, high, 1],
            [low + 2, low, -1],
            [low, low + 3, 1],
            [0, 1, high],
            [0, -1, low],
        ],
        np.int64,
    )
    values, counts = _expected_ranges(bounds)
    out, got = _run_ranges(bounds, len(values))
    np.testing.assert_array_equal(got, counts)
    np.testing.assert_array_equal(out, values)


def range_forms(out, n, m):
    """range(n), range(m, n) and range(n, m, -1) of one integer type, and the values' type."""
    k = 0
    for i in range(n[0]):
        out[k] = i
        k += 1
    for i in range(m[0], n[0]):
        out[k] = i
        k += 1
    for i in range(n[0], m[0], -1):  # a negative literal step counts down, unsigned types too
        out[k] = i
        k += 1
    out[k] = k


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint32", "uint64", "bool"])
def test_range_of_every_integer_type(dtype):
    ty = support.numba_type(dtype)
    n, m = (np.array([7], dtype), np.array([2], dtype)) if dtype != "bool" else (np.array([True]), np.array([False]))
    out = support.poisoned(40, np.int64)
    _kernel(range_forms, types.int64[::1], ty[::1], ty[::1])(out, n, m)
    a, b = int(n[0]), int(m[0])
    expected = [*range(a), *range(b, a), *range(a, b, -1)]
    np.testing.assert_array_equal(out[: len(expected) + 1], [*expected, len(expected)])


def test_unsigned_range_bounds_compare_as_signed():
    # numba's rule, whatever the range's type: 2**64 - 3 .. 2**64 - 1 is -3 .. -1 (so two
    # values, as in Python), and 0 .. 2**63 + 1 is 0 .. a negative stop (none)
    def kernel(out, counts, a):
        k = 0
        for j in range(a.shape[0]):
            for i in range(a[j, 0], a[j, 1]):
                out[k] = i
                k += 1
            counts[j] = k

    a = np.array([[2**64 - 3, 2**64 - 1], [0, 2**63 + 1], [2**63, 2**63 + 2], [5, 2]], np.uint64)
    out, counts = support.poisoned(8, np.uint64), support.poisoned(4, np.int64)
    _kernel(kernel, types.uint64[::1], types.int64[::1], types.uint64[:, ::1])(out, counts, a)
    assert counts.tolist() == [2, 2, 4, 4]
    assert out[:4].tolist() == [2**64 - 3, 2**64 - 2, 2**63, 2**63 + 1]


@pytest.mark.parametrize(
    "args",
    [
        (types.int32,),
        (types.uint64,),
        (types.int32, types.int64),
        (types.uint64, types.int64, types.int64),
        (types.int8, types.uint8),
        (types.uint32, types.uint32),
        (types.boolean, types.int16),
    ],
)
def test_the_loop_variable_has_numbas_type(args):
    names = ", ".join(f"x{k}" for k in range(len(args)))
    scope = {}
    exec(f"def f({names}):\n    s = 0\n    for i in range({names}):\n        s += i\n    return s\n", scope)
    context = cpu_target.typing_context
    context.refresh()
    theirs = context.resolve_function_type(context.resolve_value_type(range), args, {}).return_type.dtype
    assert type_function(scope["f"], args).typemap["i"] == theirs


@pytest.mark.xfail(
    reason="range() with a zero step iterates nothing and the thread goes on; numba raises "
    "ValueError('range() arg 3 must not be zero'), which ends the thread as every raise does",
    strict=True,
)
def test_a_zero_step_ends_the_thread_as_a_raise():
    def kernel(out, bounds):
        for i in range(bounds[0], bounds[1], bounds[2]):
            out[0] += i
        out[1] = 1  # after the error: not reached

    out = np.zeros(2, np.int64)
    _kernel(kernel, types.int64[::1], types.int64[::1])(out, np.array([0, 10, 0], np.int64))
    assert out[1] == 0


# ---- enumerate, zip, tuples, arrays -----------------------------------------------------------------


def sequences(out, a, b, start):
    """Writes rows of out, each the values one form of iteration gives, then their count."""
    k = 0
    for i, x in enumerate(a):
        out[0, k] = i * 1000 + x
        k += 1
    out[0, out.shape[1] - 1] = k
    k = 0
    for i, x in enumerate(b, start[0]):
        out[1, k] = i * 1000 + x
        k += 1
    out[1, out.shape[1] - 1] = k
    k = 0
    for x, y in zip(a, b):  # stops at the shorter
        out[2, k] = x * 1000 + y
        k += 1
    out[2, out.shape[1] - 1] = k
    k = 0
    for i, (x, y, z) in enumerate(zip(range(start[0], 100), b, a[::-1])):
        out[3, k] = ((i * 1000 + x) * 1000 + y) * 1000 + z
        k += 1
    out[3, out.shape[1] - 1] = k
    k = 0
    for x in (a[0], b[0], start[0], 7):  # a tuple of int64
        out[4, k] = x
        k += 1
    for i, x in enumerate((a[1], a[0])):
        out[4, k] = i * 1000 + x
        k += 1
    for x, y in zip((1, 2, 3), b[::2]):
        out[4, k] = x * 1000 + y
        k += 1
    out[4, out.shape[1] - 1] = k
    k = 0
    for x in a[::3]:
        out[5, k] = x
        k += 1
    for x in b[::-1]:
        out[5, k] = x
        k += 1
    for x in a[:0]:  # empty
        out[5, k] = x
        k += 1
    for (x,) in zip(b[:2]):
        out[5, k] = x
        k += 1
    out[5, out.shape[1] - 1] = k


def _python_sequences(a, b, start, width):
    a, b, start = a.tolist(), b.tolist(), int(start[0])
    rows = [
        [i * 1000 + x for i, x in enumerate(a)],
        [i * 1000 + x for i, x in enumerate(b, start)],
        [x * 1000 + y for x, y in zip(a, b)],
        [((i * 1000 + x) * 1000 + y) * 1000 + z for i, (x, y, z) in enumerate(zip(range(start, 100), b, a[::-1]))],
        [a[0], b[0], start, 7]
        + [i * 1000 + x for i, x in enumerate((a[1], a[0]))]
        + [x * 1000 + y for x, y in zip((1, 2, 3), b[::2])],
        a[::3] + b[::-1] + [x for (x,) in zip(b[:2])],
    ]
    out = np.full((len(rows), width), 0x5A, np.int64)
    for k, row in enumerate(rows):
        out[k, : len(row)] = row
        out[k, width - 1] = len(row)
    return out


@pytest.mark.parametrize("lengths", [(9, 5), (4, 11), (6, 6), (2, 1)])
def test_enumerate_zip_tuples_and_arrays_iterate_as_python(lengths, rng):
    a, b = (rng.integers(0, 1000, n) for n in lengths)
    start = np.array([rng.integers(-20, 20)])
    width = 40
    out = np.full((6, width), 0x5A, np.int64)
    _kernel(sequences, types.int64[:, ::1], types.int64[::1], types.int64[::1], types.int64[::1])(out, a, b, start)
    np.testing.assert_array_equal(out, _python_sequences(a, b, start, width))


def rows(out, m):
    k = 0
    for row in m:  # a 2-d array yields its rows
        s = 0.0
        for j, x in enumerate(row):
            s += x * (j + 1)
        out[k] = s
        k += 1
    out[out.size - 1] = k


@pytest.mark.parametrize("layout", ["C", "F", "strided", "empty"])
def test_a_2d_array_iterates_over_its_rows(layout, rng):
    m = rng.integers(-50, 50, (7, 5)).astype(np.float64)
    m = {"C": m, "F": np.asfortranarray(m), "strided": m[::-2, 1::2], "empty": m[:0]}[layout]
    out = support.poisoned(m.shape[0] + 1, np.float64)
    _kernel(rows, types.float64[::1], numba.typeof(m))(out, m)
    expected = [sum(x * (j + 1) for j, x in enumerate(row)) for row in m.tolist()]
    np.testing.assert_array_equal(out, [*expected, m.shape[0]])


def test_a_tuple_of_mixed_types_is_not_iterated():
    # only homogeneous tuples are iterated; numba refuses the others while typing
    def f(x, y):
        s = 0.0
        for v in (x, y):
            s += v
        return s

    with pytest.raises(TypingError):
        type_function(f, (types.int64, types.complex128))


# ---- PTX -------------------------------------------------------------------------------------------


def test_iteration_compiles_and_keeps_its_state_in_registers(backend):
    sig = "void(int64[:, ::1], int64[::1], int64[::1], int64[::1])"
    ptx, _ = cuda.compile_ptx(sequences, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    # the iterators' state is allocated in the entry block: no local memory for it
    assert ".local" not in ptx and "__local_depot" not in ptx
    ptx, _ = cuda.compile_ptx(ranges, "void(int64[::1], int64[::1], int64[:, ::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    assert ".local" not in ptx
