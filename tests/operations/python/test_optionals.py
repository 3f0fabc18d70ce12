"""Values that may be None (operations/python/optionals.py): device functions and ``numba.jit``
functions returning a value or None, the result checked with ``is None``/``is not None`` and
then used in arithmetic, as an array index and as an atomic's index or value; device functions
whose argument defaults to None, called with and without it and with a value that may be
None; a variable None on one branch; None's truth (false, as in Python). Kernels run on the simulator (and on the GPU in the gpu
tier) against NumPy on random inputs; a None converted to a value ends its thread, or with
debug=True raises TypeError naming the line; the PTX on both code generators."""

import numba
import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

from ...support import checked_ptx


@cuda.jit(device=True)
def find(row, value):
    for k in range(row.size):
        if row[k] == value:
            return k
    return None


@numba.jit
def half_if_even(n):
    if n % 2 == 0:
        return n // 2
    return None


@cuda.jit(device=True)
def scaled(a, b=None):
    if b is None:
        return a
    return a * b


@cuda.jit
def searching(rows, wanted, position, shifted, hits, counts):
    i = cuda.grid(1)
    if i < rows.shape[0]:
        r = find(rows[i], wanted[i])
        if r is not None:
            position[i] = r + 1  # arithmetic on the value
            hits[i, r] = 1  # an array index
            cuda.atomic.add(counts, r, 1)  # an atomic's index
        else:
            position[i] = -1
        h = half_if_even(wanted[i])
        if h is None:
            shifted[i] = -1000
        else:
            shifted[i] = h * 3 - 1
            cuda.atomic.add(counts, rows.shape[1], h)  # an atomic's value


def _searching_reference(rows, wanted):
    n, width = rows.shape
    position, shifted = np.full(n, -1), np.full(n, -1000)
    hits, counts = np.zeros((n, width), np.int64), np.zeros(width + 1, np.int64)
    for i in range(n):
        found = np.flatnonzero(rows[i] == wanted[i])
        if found.size:
            r = found[0]
            position[i], hits[i, r] = r + 1, 1
            counts[r] += 1
        if wanted[i] % 2 == 0:
            shifted[i] = wanted[i] // 2 * 3 - 1
            counts[width] += wanted[i] // 2
    return position, shifted, hits, counts


def test_values_that_may_be_none_are_checked_then_used(simulator_or_gpu, rng):
    rows = rng.integers(0, 12, (200, 6))
    wanted = rng.integers(0, 12, 200)
    position, shifted = np.zeros(200, np.int64), np.zeros(200, np.int64)
    hits, counts = np.zeros((200, 6), np.int64), np.zeros(7, np.int64)
    searching[7, 32](rows, wanted, position, shifted, hits, counts)
    for got, expected in zip((position, shifted, hits, counts), _searching_reference(rows, wanted)):
        np.testing.assert_array_equal(got, expected)


@cuda.jit
def defaults(x, rows, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = scaled(x[i])  # b left out: the None branch is dropped while typing
        out[i, 1] = scaled(x[i], 3.0)
        out[i, 2] = scaled(x[i], None)
        out[i, 3] = scaled(x[i], find(rows[i], 2))  # an Optional(int64): decided at run time
        v = None
        if x[i] > 0:
            v = x[i]
        out[i, 4] = -1.0 if v is None else v  # None on one branch only


def test_arguments_that_default_to_none(simulator_or_gpu, rng):
    x = rng.uniform(-2, 2, 100)
    rows = rng.integers(0, 5, (100, 4))
    out = np.zeros((100, 5))
    defaults[4, 32](x, rows, out)
    first = [np.flatnonzero(r == 2)[0] if (r == 2).any() else None for r in rows]
    expected = np.stack(
        [x, 3.0 * x, x, [a if k is None else a * k for a, k in zip(x, first)], np.where(x > 0, x, -1.0)], axis=1
    )
    np.testing.assert_array_equal(out, expected)


NOTHING = None


@cuda.jit(device=True)
def scaled_unless_none(x, by=None):
    if by:  # None is false, as in Python
        return x * 3.0
    return -x


@cuda.jit
def truths(x, out):
    i = cuda.grid(1)
    if i < x.size:
        if NOTHING:
            out[i, 0] = 100.0  # never: the global is None
        else:
            out[i, 0] = x[i]
        out[i, 1] = scaled_unless_none(x[i])
        out[i, 2] = scaled_unless_none(x[i], 1.5)
        out[i, 3] = 1.0 if bool(NOTHING) or not NOTHING else 0.0


def test_none_is_false(simulator_or_gpu, rng):
    x = rng.standard_normal(40)
    out = np.full((40, 4), np.nan)
    truths[2, 32](x, out)
    np.testing.assert_array_equal(out, np.stack([x, -x, 3.0 * x, np.ones(40)], axis=1))


@cuda.jit
def running_best(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        best = None  # None until a value qualifies: an Optional carried around the loop
        for j in range(x.shape[1]):
            v = x[i, j]
            if v > 0.5 and (best is None or v > best):
                best = v
        out[i] = -1.0 if best is None else best


def test_a_value_that_may_be_none_carried_around_a_loop(simulator_or_gpu, rng):
    x = rng.random((80, 5))
    out = np.zeros(80)
    running_best[3, 32](x, out)
    np.testing.assert_array_equal(out, np.where((x > 0.5).any(axis=1), x.max(axis=1), -1.0))


@cuda.jit(device=True)
def chosen(a, flag):
    if flag:
        return a
    return None


@cuda.jit(device=True)
def pair(x):
    if x > 0:
        return (x, 2 * x)
    return None


@cuda.jit(device=True)
def filled(n):
    if n > 0:
        return np.full(n, 2.5)  # made on the device heap (NRT)
    return None


@cuda.jit
def holders(x, out):
    i = cuda.grid(1)
    if i < x.size:
        r = chosen(out, x[i] > 0)
        if r is not None:
            r[i, 0] = r.shape[1]  # an array that may be None: its attributes, its elements
        p = pair(x[i])
        if p is not None:
            out[i, 1] = p[1]  # a tuple that may be None: a member
        f = filled(np.int64(x[i]))
        if f is not None:
            out[i, 2] = f.sum()


def test_arrays_and_tuples_that_may_be_none(simulator_or_gpu, rng):
    x = rng.uniform(-3, 4, 64)
    out = np.zeros((64, 3))
    holders[2, 32](x, out)
    n = np.trunc(x)
    expected = np.stack([np.where(x > 0, 3.0, 0.0), np.where(x > 0, 2 * x, 0.0), np.where(n > 0, 2.5 * n, 0.0)], 1)
    np.testing.assert_array_equal(out, expected)


def _unchecked(debug):
    @cuda.jit(debug=debug, opt=not debug)
    def unchecked(rows, wanted, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = find(rows[i], wanted[i]) * 10

    return unchecked


def test_a_none_used_as_a_value_ends_its_thread(simulator_or_gpu):
    rows = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    out = np.full(3, -7)
    _unchecked(False)[1, 3](rows, np.array([2, 0, 9]), out)
    np.testing.assert_array_equal(out, [10, -7, 20])  # the second thread found nothing


def test_with_debug_a_none_used_as_a_value_raises_type_error_at_its_line(simulator_or_gpu):
    rows = np.array([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError, match=r"None where a value of type int64 is needed") as raised:
        _unchecked(True)[1, 2](rows, np.array([2, 0]), np.zeros(2, np.int64))
        cuda.synchronize()
    assert "test_optionals.py" in str(raised.value)


@pytest.mark.parametrize(
    "kernel, sig",
    [
        (searching, "void(int64[:, :], int64[:], int64[:], int64[:], int64[:, :], int64[:])"),
        (defaults, "void(float32[:], int32[:, :], float64[:, :])"),
        (_unchecked(True), "void(int64[:, :], int64[:], int64[:])"),
        (truths, "void(float64[:], float64[:, :])"),
    ],
)
def test_optionals_assemble(kernel, sig, backend):
    checked_ptx(kernel, sig, backend, (9, 0))


def test_a_function_returning_a_value_or_none_returns_an_optional():
    sig = cuda.jit(device=True)(find.py_func)
    _, result = cuda.compile_ptx(sig.py_func, (types.int32[:], types.int32), device=True, cc=(9, 0))
    assert result == types.Optional(types.int64)
