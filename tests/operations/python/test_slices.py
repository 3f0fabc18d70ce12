"""Slice objects (operations/python/slices.py): ``slice(...)`` of one, two or three bounds, any of
them None, of any integer type, and slice constants (globals and literal subscripts), indexing
arrays of lengths known only at run time, passed to and returned from device functions. The
generated code runs on the host (tests/nrt_harness.py) on random bounds, extreme ones among
them, against CPython's own slicing; the PTX of both code generators is checked by ptxas."""

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

from ... import nrt_harness, support

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
N = 12  # the array sliced
FORMS = 8  # the rows _forms writes


@cuda.jit(device=True)
def _put(out, row, view):
    """Row *row* of out: the view's length, then its elements."""
    out[row, 0] = len(view)
    for i in range(len(view)):
        out[row, i + 1] = view[i]


def _forms(a, start, stop, step, out):
    _put(out, 0, a[slice(start, stop, step)])
    _put(out, 1, a[slice(start, stop)])
    _put(out, 2, a[slice(stop)])
    _put(out, 3, a[slice(None, stop, step)])
    _put(out, 4, a[slice(start, None, step)])
    _put(out, 5, a[slice(None, None, step)])
    _put(out, 6, a[slice(start, None)])
    _put(out, 7, a[slice(None, stop)])


def _python_forms(start, stop, step):
    return [
        slice(start, stop, step),
        slice(start, stop),
        slice(stop),
        slice(None, stop, step),
        slice(start, None, step),
        slice(None, None, step),
        slice(start, None),
        slice(None, stop),
    ]


def _rows(values, slices, width):
    """What _put writes for each slice of *values*, CPython's slicing of a list."""
    rows = support.poisoned(len(slices) * width, np.int64).reshape(len(slices), width)
    for row, s in zip(rows, slices):
        selected = values.tolist()[s]
        row[0] = len(selected)
        row[1 : 1 + len(selected)] = selected
    return rows


SIG = (types.int64[::1], types.int64, types.int64, types.int64, types.int64[:, ::1])


@pytest.fixture(scope="module")
def forms():
    return nrt_harness.Kernel(_forms, SIG)


def _bounds(rng):
    """Random (start, stop, step): bounds within and beyond the array on both sides, the
    extremes of int64, steps of both signs (never 0)."""
    edges = [0, -1, N, -N, N + 1, -N - 1, INT64_MIN, INT64_MAX, INT64_MIN + 1]
    steps = [1, -1, 2, -2, N, -N, N + 1, INT64_MAX, INT64_MIN + 1, INT64_MIN]
    triples = [(int(rng.choice(edges)), int(rng.choice(edges)), int(rng.choice(steps))) for _ in range(40)]
    for _ in range(160):
        start, stop = (int(v) for v in rng.integers(-2 * N, 2 * N, 2))
        step = int(rng.choice([-1, 1])) * int(rng.integers(1, N + 2))
        triples.append((start, stop, step))
    return triples


def test_slices_select_as_cpython_does(rng, forms):
    for start, stop, step in _bounds(rng):
        values = rng.permutation(N).astype(np.int64) + 100
        out = support.poisoned(FORMS * (N + 1), np.int64).reshape(FORMS, N + 1)
        forms(values, start, stop, step, out).check_balanced()
        expected = _rows(values, _python_forms(start, stop, step), N + 1)
        support.assert_matches(out.ravel(), expected.ravel(), f"slice({start}, {stop}, {step})")


def test_a_zero_step_selects_nothing(forms):
    # CPython raises ValueError; a kernel cannot, and selects no element (_support/slicing.py)
    values = np.arange(N, dtype=np.int64)
    out = support.poisoned(FORMS * (N + 1), np.int64).reshape(FORMS, N + 1)
    forms(values, 2, 9, 0, out).check_balanced()
    for row in (0, 3, 4, 5):  # the forms with a step
        assert out[row, 0] == 0 and (out[row, 1:] == support.poisoned(1, np.int64)[0]).all(), out[row]


REVERSED = slice(None, None, -1)
ODD = slice(1, None, 2)
BACK_IN_THREES = slice(-2, None, -3)
FIRST_THREE = slice(None, 3)
DOWN = slice(8, 2, -2)
NONE_AT_ALL = slice(5, 5)
CONSTANTS = [REVERSED, ODD, BACK_IN_THREES, FIRST_THREE, DOWN, NONE_AT_ALL, slice(2, -1, 3), slice(None, None, -2)]


def _constants(a, out):
    _put(out, 0, a[REVERSED])
    _put(out, 1, a[ODD])
    _put(out, 2, a[BACK_IN_THREES])
    _put(out, 3, a[FIRST_THREE])
    _put(out, 4, a[DOWN])
    _put(out, 5, a[NONE_AT_ALL])
    _put(out, 6, a[2:-1:3])
    _put(out, 7, a[::-2])


def test_slice_constants_resolve_against_the_length_at_run_time(rng):
    kernel = nrt_harness.Kernel(_constants, (types.int64[::1], types.int64[:, ::1]))
    for length in (0, 1, 2, 3, 5, 8, N):
        values = rng.permutation(length).astype(np.int64) + 100
        out = support.poisoned(len(CONSTANTS) * (N + 1), np.int64).reshape(len(CONSTANTS), N + 1)
        kernel(values, out).check_balanced()
        support.assert_matches(out.ravel(), _rows(values, CONSTANTS, N + 1).ravel(), f"length {length}")


def _narrow(a, start, stop, step, out):
    _put(out, 0, a[slice(np.int8(start), np.uint16(stop), np.int32(step))])
    _put(out, 1, a[slice(np.uint8(start), None, np.int16(step))])
    _put(out, 2, a[slice(np.uint64(stop))])


def test_bounds_of_any_integer_type(rng):
    kernel = nrt_harness.Kernel(_narrow, SIG)
    for _ in range(30):
        start, stop = (int(v) for v in rng.integers(-2 * N, 2 * N, 2))
        step = int(rng.choice([-1, 1])) * int(rng.integers(1, N + 2))
        values = rng.permutation(N).astype(np.int64) + 100
        out = support.poisoned(3 * (N + 1), np.int64).reshape(3, N + 1)
        kernel(values, start, stop, step, out).check_balanced()
        # each bound is first converted to its type, as NumPy's scalars wrap
        int8, uint16, uint8 = (int(np.array(v).astype(t)) for v, t in ((start, np.int8), (stop, np.uint16), (start, np.uint8)))  # fmt: skip
        uint64 = int(np.array(stop).astype(np.uint64))
        slices = [
            slice(int8, uint16, step),
            slice(uint8, None, step),
            slice(uint64 - 2**64 if uint64 >= 2**63 else uint64),
        ]
        support.assert_matches(out.ravel(), _rows(values, slices, N + 1).ravel(), f"({start}, {stop}, {step})")


@cuda.jit(device=True)
def _made(start, step):
    return slice(start, None, step)


@cuda.jit(device=True)
def _length(a, s):
    return len(a[s])


def _through_calls(a, start, stop, step, out):
    s = _made(start, step)
    _put(out, 0, a[s])
    out[1, 0] = _length(a, slice(start, stop, step))
    out[1, 1] = _length(a, s)
    pair = (slice(stop), s)
    _put(out, 2, a[pair[1]])


def test_slices_pass_to_and_from_device_functions(rng):
    kernel = nrt_harness.Kernel(_through_calls, SIG)
    for _ in range(20):
        start, stop = (int(v) for v in rng.integers(-2 * N, 2 * N, 2))
        step = int(rng.choice([-1, 1])) * int(rng.integers(1, N + 2))
        values = rng.permutation(N).astype(np.int64) + 100
        out = support.poisoned(3 * (N + 1), np.int64).reshape(3, N + 1)
        kernel(values, start, stop, step, out).check_balanced()
        python = values.tolist()
        expected = _rows(values, [slice(start, None, step)] * 3, N + 1)
        expected[1] = support.poisoned(N + 1, np.int64)
        expected[1, :2] = [len(python[start:stop:step]), len(python[start::step])]
        support.assert_matches(out.ravel(), expected.ravel(), f"({start}, {stop}, {step})")


def _two_axes(a, rows, columns, out):
    view = a[slice(rows[0], rows[1], rows[2]), slice(columns[0], columns[1], columns[2])]
    out[0] = view.shape[0]
    out[1] = view.shape[1]
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            out[2 + i * view.shape[1] + j] = view[i, j]


def test_a_slice_per_axis(rng):
    kernel = nrt_harness.Kernel(_two_axes, (types.int64[:, ::1], types.int64[::1], types.int64[::1], types.int64[::1]))
    a = rng.permutation(6 * 7).astype(np.int64).reshape(6, 7)
    for _ in range(20):
        rows, columns = (
            np.array([*rng.integers(-9, 9, 2), rng.choice([-1, 1]) * rng.integers(1, 4)], np.int64) for _ in range(2)
        )
        out = support.poisoned(2 + a.size, np.int64)
        kernel(a, rows, columns, out).check_balanced()
        view = a[slice(*rows.tolist()), slice(*columns.tolist())]
        expected = support.poisoned(2 + a.size, np.int64)
        expected[:2] = view.shape
        expected[2 : 2 + view.size] = view.ravel()
        support.assert_matches(out, expected, f"{rows}, {columns}")


def _made_and_constant(a, start, stop, step, out):
    out[0, 0] = a[slice(start, stop, step)][0]
    out[0, 1] = a[slice(None, None, step)][0]
    out[0, 2] = a[BACK_IN_THREES][0]


def test_slices_assemble_on_both_code_generators(backend):
    ptx, _ = cuda.compile_ptx(_made_and_constant, SIG, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")


def _attributes(a, start, stop, step, out):
    s = slice(start, stop, step)
    out[0, 0] = s.start
    out[0, 1] = s.stop
    out[0, 2] = s.step


@pytest.mark.parametrize("bounds", [(-3, 40, 2), (7, -1, -4), (0, 0, 1)])
def test_a_slices_bounds_are_its_attributes(bounds):
    kernel = nrt_harness.Kernel(_attributes, SIG)
    out = support.poisoned(3, np.int64).reshape(1, 3)
    kernel(np.arange(N, dtype=np.int64), *bounds, out).check_balanced()
    support.assert_matches(out[0], np.array(bounds))


def _indices(a, start, stop, step, out):
    first, last, by = slice(start, stop, step).indices(len(a))
    out[0, 0] = first
    out[0, 1] = last
    out[0, 2] = by


@pytest.mark.parametrize(
    "bounds", [(-3, 40, -2), (-3, 40, 2), (-40, 5, 1), (20, -20, -3), (5, 5, 1), (-1, -13, -1), (2, 3, 7)]
)
def test_indices_resolve_as_cpython(bounds):
    kernel = nrt_harness.Kernel(_indices, SIG)
    out = support.poisoned(3, np.int64).reshape(1, 3)
    kernel(np.arange(N, dtype=np.int64), *bounds, out).check_balanced()
    support.assert_matches(out[0], np.array(slice(*bounds).indices(N)))


def _open_indices(a, start, stop, step, out):
    forwards, backwards = slice(None, None, step), slice(None, None, -step)
    out[0, 0], out[0, 1], out[0, 2] = forwards.indices(len(a))
    out[1, 0], out[1, 1], out[1, 2] = backwards.indices(len(a))
    out[2, 0], out[2, 1], out[2, 2] = slice(start, None).indices(len(a))


@pytest.mark.parametrize("step", [1, 3])
def test_missing_bounds_resolve_as_cpython(step):
    kernel = nrt_harness.Kernel(_open_indices, SIG)
    out = support.poisoned(9, np.int64).reshape(3, 3)
    kernel(np.arange(N, dtype=np.int64), -4, 0, step, out).check_balanced()
    expected = [slice(None, None, step).indices(N), slice(None, None, -step).indices(N), slice(-4, None).indices(N)]
    support.assert_matches(out, np.array(expected))


def test_a_zero_step_in_indices_raises_with_debug():
    from cumlir import compiler
    from cumlir.options import Options

    plain = compiler.kernel(_indices, SIG, (9, 0), Options(), until="codegen")
    assert not plain.raise_sites
    c = compiler.kernel(_indices, SIG, (9, 0), Options(debug=True), until="codegen")
    values = [s.args for s in c.raise_sites if s.exc_class is ValueError]
    assert values == [("slice step cannot be zero",)]  # and debug's bounds checks (IndexError)
    support.ptxas(c.code)
