"""Arrays of values given in the code (operations/numpy/arrayliterals.py): ``np.linspace`` and
``np.array``/``np.asarray`` of numbers, (nested) tuples of numbers and arrays.

The generated code runs on the host (tests/nrt_harness.py, against a checking stand-in of
the device runtime that must balance) on random values of several dtypes and layouts,
compared with NumPy: linspace's values (its ends exactly), a tuple's promoted dtype and
conversions, copies and the array itself; a tuple's array made once in the kernel's stack;
result types against NumPy's; what is refused; the PTX on both code generators."""

import numpy as np
import pytest
from numba import typeof
from numba.core import errors, types
from numba.core.errors import TypingError

from cumlir import compiler, cuda

from ... import nrt_harness, support

EPS = float(np.finfo(np.float64).eps)


def _run(kernel, *args):
    runtime = kernel(*args)
    runtime.check_balanced()
    return runtime


# ---- np.linspace ------------------------------------------------------------------------------


def _linspace(out, sizes, bounds, num, endpoint):
    start, stop = bounds[0], bounds[1]
    made = (np.linspace(start, stop, num, endpoint), np.linspace(start, stop, num=num), np.linspace(start, stop))
    for k in range(3):
        r = made[k]
        sizes[k] = r.size
        for i in range(r.size):
            out[k, i] = r[i]


def _compare_linspace(out, sizes, expected):
    np.testing.assert_array_equal(sizes, [r.size for r in expected])
    for row, r in zip(out, expected):
        got = row[: r.size]
        # i * step + start: contracted into one fma on the device, a rounding less than NumPy
        scale = np.abs(r).max(initial=1.0)
        np.testing.assert_allclose(got, r, rtol=0, atol=4 * EPS * scale)
        np.testing.assert_array_equal(got[:1], r[:1])  # the first is start
        np.testing.assert_array_equal(row[r.size :], support.poisoned(row.size - r.size, row.dtype))


def test_linspace_matches_numpy(rng):
    argtypes = (types.float64[:, ::1], types.int64[::1], types.float64[::1], types.int64, types.int64)
    kernel = nrt_harness.Kernel(_linspace, argtypes)
    cases = [
        ((0.0, 1.0), 7),
        ((-3, 11.5), 13),
        ((2.5, 2.5), 4),
        ((1.0, -1.0), 1),
        ((0.0, 1.0), 0),
        ((-1e300, 1e300), 5),
    ]
    cases += [(tuple(rng.uniform(-100, 100, 2)), int(rng.integers(0, 60))) for _ in range(12)]
    for (start, stop), num in cases:
        for endpoint in (1, 0):
            out, sizes = np.full((3, 64), np.nan), support.poisoned(3, "int64")
            _run(kernel, out, sizes, np.array([start, stop]), num, endpoint)
            expected = [
                np.linspace(start, stop, num, bool(endpoint)),
                np.linspace(start, stop, num=num),
                np.linspace(start, stop),
            ]
            _compare_linspace(out, sizes, expected)
            if num > 1:  # with the endpoint, the last is stop itself
                assert out[1, num - 1] == stop and out[2, 49] == stop
                if endpoint:
                    assert out[0, num - 1] == stop


def _linspace_of_integers(out, a, b):
    r = np.linspace(a[0], b[0], out.size)  # int8 and float32 bounds: float64 values
    out[...] = r


def test_linspace_of_integer_and_float32_bounds_is_float64(rng):
    a = rng.integers(-100, 100, 1).astype(np.int8)
    b = rng.uniform(-100, 100, 1).astype(np.float32)
    out = support.poisoned(9, "float64")
    _run(nrt_harness.Kernel(_linspace_of_integers, (typeof(out), typeof(a), typeof(b))), out, a, b)
    # computed in float64 from the bounds (docs/language.md; NumPy would make float32 bounds' float32)
    np.testing.assert_allclose(out, np.linspace(float(a[0]), float(b[0]), 9), rtol=0, atol=4 * EPS * 100)
    assert out[0] == a[0] and out[-1] == b[0]


# ---- np.array / np.asarray of numbers and tuples ------------------------------------------------


def _from_tuples(one, two, zero, converted, x, y, n):
    one[...] = np.array((x[0], y[0], x[1]))
    two[...] = np.asarray(((x[0], n), (y[1], x[1]), (n, y[0])))
    zero[...] = np.array(y[2])
    converted[...] = np.array((x[2], y[2], n), dtype=np.complex128)


def _small(dtype, n, rng):
    """Values every conversion here keeps exact: small whole numbers, halves for floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    values = rng.integers(0 if dtype.kind == "u" else -50, 50, n).astype(np.float64)
    if dtype.kind in "fc":
        values += rng.choice([0.0, 0.5], n)
    if dtype.kind == "c":
        values = values + 1j * rng.integers(-5, 5, n)
    return values.astype(dtype)


PAIRS = [
    ("int8", "uint8"),
    ("int64", "uint64"),
    ("float32", "int16"),
    ("bool", "bool"),
    ("bool", "float64"),
    ("float32", "complex64"),
    ("uint32", "float32"),
]


@pytest.mark.parametrize("left, right", PAIRS, ids=lambda v: str(v))
def test_arrays_of_tuples_have_numpys_promoted_dtype_and_values(left, right, rng):
    x, y = _small(left, 3, rng), _small(right, 3, rng)
    n = int(rng.integers(0, 50))
    host_n = np.int64(n)  # typed int64, as the kernel's argument is
    expected = [
        np.array((x[0], y[0], x[1])),
        np.asarray(((x[0], host_n), (y[1], x[1]), (host_n, y[0]))),
        np.array(y[2]),
        np.array((x[2], y[2], host_n), dtype=np.complex128),
    ]
    outputs = [support.poisoned(e.size, e.dtype).reshape(e.shape) for e in expected]
    argtypes = tuple(typeof(a) for a in (*outputs, x, y)) + (types.int64,)
    runtime = _run(nrt_harness.Kernel(_from_tuples, argtypes), *outputs, x, y, n)
    assert runtime.stats["alloc"] == 0  # shapes known when compiling, made once: the kernel's stack
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def _converted(ints, bools, halves, x):
    ints[...] = np.array((x[0], x[1], -x[2]), dtype=np.int16)  # floats truncated
    bools[...] = np.asarray((x[0], 0.0, x[3]), dtype=bool)
    halves[...] = np.array(((x[0], x[1]), (x[2], x[3])), np.float32)


def test_a_dtype_asked_for_converts_the_members_as_numpy(rng):
    x = rng.uniform(-100, 100, 4)
    x[3] = np.nan  # NaN is true
    outputs = [support.poisoned(3, "int16"), support.poisoned(3, "bool"), np.full((2, 2), np.nan, np.float32)]
    _run(nrt_harness.Kernel(_converted, tuple(typeof(a) for a in (*outputs, x))), *outputs, x)
    np.testing.assert_array_equal(outputs[0], np.array((x[0], x[1], -x[2]), dtype=np.int16))
    np.testing.assert_array_equal(outputs[1], np.asarray((x[0], 0.0, x[3]), dtype=bool))
    np.testing.assert_array_equal(outputs[2], np.array(((x[0], x[1]), (x[2], x[3])), np.float32))


@cuda.jit(device=True)
def _pair(x):
    return np.array((x, 2.0 * x))


def _where_tuple_arrays_live(out, x):
    once = np.array((x[0], 1.5))
    out[0] = once[1]
    for k in range(3):
        each = np.array((x[k], k))  # in a loop: from the heap, one each
        out[1] += each[0] + each[1]
    out[2] = _pair(x[1])[1]  # a device function's array may be returned: from the heap


def test_tuple_arrays_in_loops_and_device_functions_come_from_the_heap(rng):
    x = rng.standard_normal(3)
    out = np.zeros(3)
    runtime = _run(nrt_harness.Kernel(_where_tuple_arrays_live, (typeof(out), typeof(x))), out, x)
    assert runtime.stats["alloc"] == 3 + 1
    np.testing.assert_array_equal(out, [1.5, x.sum() + 3, 2.0 * x[1]])
    with pytest.raises(errors.LoweringError, match="np.array in device code needs NRT"):
        cuda.compile_ptx(_where_tuple_arrays_live, (typeof(out), typeof(x)), cc=(9, 0), nrt=False)


def test_a_tuple_array_made_once_needs_no_runtime():
    def once(out, x):
        a = np.array(((x[0], 1), (2, x[1])))
        out[0] = a[1, 0] + a[0, 0]

    ptx, _ = cuda.compile_ptx(once, (types.float64[::1], types.float64[::1]), cc=(9, 0), nrt=False)
    assert "NRT_" not in ptx
    support.ptxas(ptx)


# ---- np.array / np.asarray of arrays --------------------------------------------------------------


def _from_arrays(copied, converted, strides, a, k):
    same = np.asarray(a)
    same[0, 0] = k  # the array itself: the write reaches a
    also_same = np.asarray(a, dtype=np.float64)  # the dtype it has: itself too
    also_same[1, 0] = k + 1
    c = np.array(a)
    c[0, 1] = k + 2  # a copy: a keeps its element
    copied[...] = c
    i = np.asarray(a, dtype=np.int16)
    i[1, 1] = k + 3  # a converted copy
    converted[...] = i
    f = np.array(a, np.float32)
    strides[0], strides[1] = c.strides
    strides[2], strides[3] = i.strides
    strides[4], strides[5] = f.strides


def _layouts(a):
    big = np.zeros((2 * a.shape[0], 3 * a.shape[1]), a.dtype)
    big[::2, 1::3] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a), "strided": big[::2, 1::3]}


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_arrays_of_arrays_are_copies_or_the_array_itself_as_numpy_makes_them(layout, rng):
    a = _layouts(rng.uniform(-100, 100, (3, 4)))[layout]
    k = int(rng.integers(-100, 100))
    outputs = [support.poisoned(a.size, "float64").reshape(a.shape), support.poisoned(a.size, "int16").reshape(a.shape)]
    strides = support.poisoned(6, "int64")
    expected_outputs = [o.copy() for o in outputs] + [strides.copy()]
    expected_a = a.copy(order="K")
    _from_arrays(*expected_outputs, expected_a, k)  # NumPy runs the same function
    kernel = nrt_harness.Kernel(_from_arrays, tuple(typeof(v) for v in (*outputs, strides, a)) + (types.int64,))
    runtime = _run(kernel, *outputs, strides, a, k)
    assert runtime.stats["alloc"] == 3  # the copy and the two converted ones
    for got, want in zip([*outputs, strides, a], [*expected_outputs, expected_a]):
        np.testing.assert_array_equal(got, want)


# ---- typing: NumPy's result types -----------------------------------------------------------------


def _typed(source, argtypes):
    namespace = {"np": np}
    exec(f"def f({', '.join(f'a{k}' for k in range(len(argtypes)))}):\n    r = {source}\n", namespace)
    return compiler.type_function(namespace["f"], argtypes).typemap["r"]


F2, A2 = np.zeros((2, 3), np.float32, order="F"), np.zeros((4, 6), np.float32)[::2, ::3]

RESULTS = [
    ("np.linspace(a0, a1)", (types.int8, types.uint32), lambda: np.linspace(np.int8(1), np.uint32(2))),
    ("np.linspace(a0, 2.5)", (types.float64,), lambda: np.linspace(1.0, 2.5)),
    ("np.linspace(0, 1, a0, a1)", (types.uint8, types.boolean), lambda: np.linspace(0, 1, np.uint8(3), True)),
    ("np.array((a0, a1))", (types.int8, types.uint8), lambda: np.array((np.int8(1), np.uint8(1)))),
    ("np.array((a0, a1))", (types.int64, types.uint64), lambda: np.array((np.int64(1), np.uint64(1)))),
    ("np.array((a0, a1, 1j))", (types.int64, types.float32), lambda: np.array((np.int64(1), np.float32(1), 1j))),
    ("np.array((a0, 1))", (types.float32,), lambda: np.array((np.float32(1), 1))),
    ("np.array((1, 2.0, True))", (), lambda: np.array((1, 2.0, True))),
    ("np.array(a0)", (types.complex64,), lambda: np.array(np.complex64(1))),
    (
        "np.array(((a0, 1), (2, a1)))",
        (types.float32, types.int16),
        lambda: np.array(((np.float32(1), 1), (2, np.int16(1)))),
    ),
    (
        "np.array(a0, dtype=np.int8)",
        (types.UniTuple(types.float64, 3),),
        lambda: np.array((1.0, 2.0, 3.0), dtype=np.int8),
    ),
    (
        "np.asarray(a0)",
        (types.UniTuple(types.UniTuple(types.int32, 2), 3),),
        lambda: np.asarray(((np.int32(1),) * 2,) * 3),
    ),
    ("np.asarray(((1, 2), (3, 4)), dtype=np.uint8)", (), lambda: np.asarray(((1, 2), (3, 4)), dtype=np.uint8)),
    ("np.array(a0)", (typeof(F2),), lambda: np.array(F2)),
    ("np.array(a0)", (typeof(A2),), lambda: np.array(A2)),
    ("np.array(object=a0, dtype=np.int64)", (typeof(F2),), lambda: np.array(F2, dtype=np.int64)),
    ("np.asarray(a0, np.float64)", (typeof(F2),), lambda: np.asarray(F2, np.float64)),
    ("np.asarray(a0, np.float64)", (typeof(A2),), lambda: np.asarray(A2, np.float64)),
]


@pytest.mark.parametrize("source, argtypes, host", RESULTS, ids=[r[0] for r in RESULTS])
def test_result_types_are_numpys(source, argtypes, host):
    result, expected = _typed(source, argtypes), host()
    assert isinstance(result, types.Array), result
    assert support.dtype_of(result.dtype) == expected.dtype, source
    layout = "F" if expected.ndim > 1 and expected.flags.f_contiguous and not expected.flags.c_contiguous else "C"
    assert (result.ndim, result.layout) == (expected.ndim, layout), source


def test_asarray_of_an_array_of_the_same_dtype_is_typed_as_the_array_itself():
    for argtype in (typeof(A2), typeof(F2), types.int8[:, :, ::1]):
        assert _typed("np.asarray(a0)", (argtype,)) == argtype
    assert _typed("np.asarray(a0, np.float32)", (typeof(A2),)) == typeof(A2)


@pytest.mark.parametrize(
    "source, argtypes, match",
    [
        ("np.linspace(0, 1j)", (), "np.linspace: stop must be a real number, got complex128"),
        ("np.linspace(a0, 1)", (types.UniTuple(types.int64, 2),), "np.linspace: start must be a real number"),
        ("np.linspace(0, 1, a0)", (types.float64,), "np.linspace: num must be an integer, got float64"),
        ("np.linspace(0, 1, endpoint=1.5)", (), "np.linspace: endpoint must be a bool, got float64"),
        ("np.linspace(0, 1, retstep=True)", (), "np.linspace: got an unexpected keyword argument 'retstep'"),
        ("np.array(())", (), "np.array in device code takes an array, a number or a non-empty tuple"),
        ("np.array(((1, 2), (3,)))", (), "np.array: the rows of .* must be tuples of numbers of one length"),
        ("np.array((((1,),),))", (), "np.array: the rows of"),
        ("np.asarray((1, (2, 3)))", (), r"np.asarray: .* mixes numbers and tuples"),
        ("np.array((1j, 2), dtype=np.float64)", (), "np.array: complex values into dtype float64"),
        ("np.asarray(a0, dtype=np.int8)", (types.complex64[:],), "np.asarray: complex values into dtype int8"),
        ("np.array(a0)", (types.NPDatetime("s")[:],), r"np.array of an array of datetime64\[s\] is not supported"),
        ("np.array(a0, copy=False)", (types.float64[:],), "np.array: got an unexpected keyword argument 'copy'"),
        ("np.array((1, 2), np.datetime64)", (), "np.array: the dtype must be a number or bool type"),
    ],
)
def test_bad_arguments_are_typing_errors_naming_the_function(source, argtypes, match):
    with pytest.raises(TypingError, match=match):
        _typed(source, argtypes)


def test_members_numpy_has_no_dtype_for_are_refused():
    from cumlir.types import bfloat16

    with pytest.raises(TypingError, match="np.array: NumPy has no dtype for a member of"):
        _typed("np.array((a0, 1.0))", (bfloat16,))


# ---- PTX ----------------------------------------------------------------------------------------


def _every_literal(out, x, n):
    a = np.linspace(x[0], x[1], n)
    b = np.array((x[0], n, 1.5))
    c = np.asarray(((x[0], 1), (2, x[1])), dtype=np.float16)  # float16: compiled here, not run on the host
    d = np.array(x)
    e = np.asarray(x, dtype=np.int32)
    out[0] = a[0] + b[2] + c[1, 0] + d[1] + e[0] + np.array(n)[()]


def test_every_literal_assembles(backend):
    argtypes = (types.float64[::1], types.float64[:], types.int64)
    ptx, _ = cuda.compile_ptx(_every_literal, argtypes, cc=(9, 0), nrt=True, backend=backend)
    assert "NRT_MemInfo_alloc_aligned" in ptx  # linspace and the copies: from the heap
    support.ptxas(ptx, relocatable=True)  # the runtime is linked later
