"""Arrays made in device code (operations/numpy/arraycreation.py): ``np.empty``, ``np.zeros``,
``np.ones``, ``np.full``, their ``*_like`` forms, ``np.arange`` and ``arr.copy()``.

The generated code runs on the host (tests/nrt_harness.py, against a checking stand-in of
the device runtime that must balance) on random shapes, fill values and bounds of several
dtypes and layouts, compared with NumPy; arrays of a compile-time shape made once live in
the kernel's stack (no runtime call), the others come from the heap, and a negative extent
asks the runtime for more than any heap holds; result types against NumPy's; what is
refused, at typing or (``nrt=False``) at its line; the PTX on both code generators."""

import functools
import re

import numpy as np
import pytest
from numba import typeof
from numba.core import errors, types
from numba.core.errors import TypingError

from cumlir import compiler, cuda
from cumlir.operations.numpy.arraycreation import STACK_BYTES
from cumlir.options import Options

from ... import nrt_harness, support

# the host's JIT has no float16 conversions (compiler-rt routines): float16 is compiled to PTX only
HOST_DTYPES = ["bool", "int8", "uint16", "int32", "uint64", "int64", "float32", "float64", "complex64", "complex128"]
# a negative extent asks for -1 bytes, read by the runtime as the largest unsigned size
NEGATIVE_REQUEST = f"allocation of {2**64 - 1} bytes"


def _values(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return support.random_values(dtype.name if dtype.kind != "b" else "bool", int(np.prod(shape)), rng).reshape(shape)


def _poisoned(shape, dtype):
    return support.poisoned(int(np.prod(shape)), dtype).reshape(shape)


def _run(kernel, *args):
    """Run the host kernel once; its runtime must balance (every MemInfo freed)."""
    runtime = kernel(*args)
    runtime.check_balanced()
    return runtime


# ---- np.empty, np.zeros, np.ones, np.full of run-time shapes ----------------------------------


@functools.cache
def _constructors(dtype):
    dt = np.dtype(dtype)

    def constructors(zeros, ones, full, shapes, value, n, m):
        zeros[...] = np.zeros((n, m), dt)
        ones[...] = np.ones((n, m), dtype=dt)
        full[...] = np.full((n, m), value[0])  # the dtype of the fill value
        e = np.empty((m, n), dt)
        f = np.empty(n)
        shapes[0], shapes[1] = e.shape
        shapes[2], shapes[3] = e.strides
        shapes[4], shapes[5] = f.shape[0], f.strides[0]

    return constructors


@pytest.mark.parametrize("dtype", HOST_DTYPES)
def test_constructors_of_run_time_shapes_match_numpy(dtype, rng):
    value = _values(dtype, 1, rng)
    args = None
    for n, m in ((3, 4), (1, 1), (0, 5), (7, 2)):
        zeros, ones, full = _poisoned((n, m), dtype), _poisoned((n, m), dtype), _poisoned((n, m), dtype)
        shapes = support.poisoned(6, "int64")
        args = (zeros, ones, full, shapes, value, n, m)
        if n == 3:
            kernel = nrt_harness.Kernel(_constructors(dtype), tuple(typeof(a) for a in args[:5]) + (types.int64,) * 2)
        runtime = _run(kernel, *args)
        assert runtime.stats["alloc"] == 5  # run-time shapes: from the heap
        np.testing.assert_array_equal(zeros, np.zeros((n, m), dtype))
        np.testing.assert_array_equal(ones, np.ones((n, m), dtype))
        np.testing.assert_array_equal(full, np.full((n, m), value[0]))
        e, f = np.empty((m, n), dtype), np.empty(n)
        np.testing.assert_array_equal(shapes[[0, 1, 4]], [*e.shape, f.shape[0]])
        if n > 0:  # NumPy gives empty arrays strides of 0
            np.testing.assert_array_equal(shapes[[2, 3, 5]], [*e.strides, f.strides[0]])


def _fill_conversions(ints, floats, bools, complexes, x, y):
    ints[...] = np.full(ints.shape[0], 2.75, np.int32)  # converted as assignment converts: truncated
    floats[...] = np.full(floats.shape[0], True, np.float64)
    bools[...] = np.full(bools.shape[0], x[0], dtype=bool)  # a Python type as the dtype
    complexes[...] = np.full(complexes.shape[0], y[0], complex)
    ints[0] = np.full_like(ints, -7.5)[1]


def test_fill_values_are_converted_to_the_dtype_asked_for(rng):
    x = np.array([rng.choice([0.0, -0.0, 0.5, np.nan, -3.0])])
    y = rng.integers(-50, 50, 1).astype(np.int16)
    outputs = [support.poisoned(4, d) for d in ("int32", "float64", "bool", "complex128")]
    kernel = nrt_harness.Kernel(_fill_conversions, tuple(typeof(a) for a in (*outputs, x, y)))
    _run(kernel, *outputs, x, y)
    np.testing.assert_array_equal(outputs[0], np.r_[np.full_like(outputs[0], -7.5)[1], np.full(3, 2.75, np.int32)])
    np.testing.assert_array_equal(outputs[1], np.full(4, True, np.float64))
    np.testing.assert_array_equal(outputs[2], np.full(4, x[0], dtype=bool))
    np.testing.assert_array_equal(outputs[3], np.full(4, y[0], complex))


# ---- the _like forms: the input's shape, F order kept ------------------------------------------


def _like(zeros, ones, full, full_int, strides, x, value):
    z = np.zeros_like(x)
    o = np.ones_like(x, np.float32)
    f = np.full_like(x, value[0])
    i = np.full_like(x, value[0], dtype=np.int16)
    e = np.empty_like(x)
    zeros[...] = z
    ones[...] = o
    full[...] = f
    full_int[...] = i
    strides[0, 0], strides[0, 1] = z.strides
    strides[1, 0], strides[1, 1] = o.strides
    strides[2, 0], strides[2, 1] = f.strides
    strides[3, 0], strides[3, 1] = i.strides
    strides[4, 0], strides[4, 1] = e.strides


def _layouts(a):
    """*a* C-ordered, F-ordered and as a strided view of a C array."""
    big = np.zeros((2 * a.shape[0], 2 * a.shape[1]), a.dtype)
    big[::2, 1::2] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a), "strided": big[::2, 1::2]}


@pytest.mark.parametrize("dtype", ["int8", "complex64"])
def test_like_forms_match_numpy_and_keep_f_order(dtype, rng):
    value = rng.uniform(-100, 100, 1)  # converted to the input's dtype, or to int16 (truncated)
    for name, x in _layouts(_values(dtype, (3, 5), rng)).items():
        outputs = [_poisoned(x.shape, d) for d in (dtype, "float32", dtype, "int16")]
        strides = _poisoned((5, 2), "int64")
        argtypes = tuple(typeof(a) for a in (*outputs, strides, x, value))
        _run(nrt_harness.Kernel(_like, argtypes), *outputs, strides, x, value)
        expected = [
            np.zeros_like(x),
            np.ones_like(x, np.float32),
            np.full_like(x, value[0]),
            np.full_like(x, value[0], dtype=np.int16),
            np.empty_like(x),
        ]
        for got, want in zip(outputs, expected):
            np.testing.assert_array_equal(got, want, err_msg=name)
        # NumPy's order "K": an F array's are F, a strided view of a C array's are C
        np.testing.assert_array_equal(strides, [w.strides for w in expected], err_msg=name)


# ---- arr.copy() -------------------------------------------------------------------------------


def _copy(out, strides, x):
    c = x.copy()
    c[0, 0] = 0  # a copy: x keeps its element
    out[...] = c
    strides[0], strides[1] = c.strides


@pytest.mark.parametrize("dtype", ["bool", "complex128"])
def test_copies_are_c_ordered_and_independent_of_their_array(dtype, rng):
    a = _values(dtype, (4, 6), rng)
    reversed_view = a[::-1, ::-2]  # negative strides
    for name, x in {**_layouts(a), "reversed": reversed_view}.items():
        before = x.copy()
        out, strides = _poisoned(x.shape, dtype), support.poisoned(2, "int64")
        runtime = _run(nrt_harness.Kernel(_copy, tuple(typeof(v) for v in (out, strides, x))), out, strides, x)
        assert runtime.stats["alloc"] == 1
        expected = x.copy()
        expected[0, 0] = 0
        np.testing.assert_array_equal(out, expected, err_msg=name)
        np.testing.assert_array_equal(x, before, err_msg=name)
        np.testing.assert_array_equal(strides, expected.strides, err_msg=name)


# ---- np.arange --------------------------------------------------------------------------------


def _ranges_int(out, sizes, start, stop, step):
    made = (np.arange(stop), np.arange(start, stop), np.arange(start, stop, step))
    for k in range(3):
        r = made[k]
        sizes[k] = r.size
        for i in range(min(r.size, out.shape[1])):
            out[k, i] = r[i]


def _ranges_float(out, sizes, bounds):
    start, stop, step = bounds[0], bounds[1], bounds[2]
    made = (np.arange(stop), np.arange(start, stop), np.arange(start, stop, step))
    for k in range(3):
        r = made[k]
        sizes[k] = r.size
        for i in range(min(r.size, out.shape[1])):
            out[k, i] = r[i]


def _compare_ranges(out, sizes, expected, exact):
    np.testing.assert_array_equal(sizes, [r.size for r in expected])
    for row, r in zip(out, expected):
        if exact:
            np.testing.assert_array_equal(row[: r.size], r)
        else:  # NumPy steps by (start + step) - start, rounded: a few ulps of the bounds
            scale = np.abs(r).max(initial=1.0)
            np.testing.assert_allclose(row[: r.size], r, rtol=0, atol=8 * np.finfo(np.float64).eps * scale)
        poison = support.poisoned(row.size - r.size, row.dtype)
        np.testing.assert_array_equal(row[r.size :], poison)  # nothing written past the end


def test_integer_aranges_match_numpy(rng):
    argtypes = (types.int64[:, ::1], types.int64[::1], types.int64, types.int64, types.int64)
    kernel = nrt_harness.Kernel(_ranges_int, argtypes)
    for _ in range(40):
        start, stop = (int(v) for v in rng.integers(-30, 30, 2))
        step = int(rng.choice([-7, -3, -1, 1, 2, 5]))
        out, sizes = _poisoned((3, 64), "int64"), support.poisoned(3, "int64")
        runtime = _run(kernel, out, sizes, start, stop, step)
        assert runtime.stats["alloc"] == 3
        expected = [np.arange(stop), np.arange(start, stop), np.arange(start, stop, step)]
        _compare_ranges(out, sizes, expected, exact=True)


def test_float_aranges_match_numpy(rng):
    kernel = nrt_harness.Kernel(_ranges_float, (types.float64[:, ::1], types.int64[::1], types.float64[::1]))
    cases = [rng.uniform(-20, 20, 3) for _ in range(40)] + [np.array([0.0, 1.0, 0.1]), np.array([2.5, -1.0, -0.5])]
    for bounds in cases:
        if abs(bounds[2]) < 0.2:
            bounds[2] = np.copysign(0.2, bounds[2])
        out, sizes = _poisoned((3, 128), "float64"), support.poisoned(3, "int64")
        _run(kernel, out, sizes, bounds)
        start, stop, step = bounds
        expected = [np.arange(stop), np.arange(start, stop), np.arange(start, stop, step)]
        _compare_ranges(out, sizes, expected, exact=False)


def _arange_dtypes(ints, floats, x):
    ints[...] = np.arange(x[0], x[0] + ints.size)  # int8 bounds: an int64 array
    floats[...] = np.arange(3, dtype=np.float32) * 0.5 + np.arange(x[0], x[0] + 3.0)


def test_arange_result_dtypes_follow_the_bounds_or_the_dtype_asked_for(rng):
    x = rng.integers(-100, 100, 1).astype(np.int8)
    ints, floats = support.poisoned(5, "int64"), support.poisoned(3, "float64")
    argtypes = (typeof(ints), typeof(floats), typeof(x))
    _run(nrt_harness.Kernel(_arange_dtypes, argtypes), ints, floats, x)
    np.testing.assert_array_equal(ints, np.arange(x[0], x[0] + 5))
    np.testing.assert_array_equal(floats, np.arange(3, dtype=np.float32) * 0.5 + np.arange(x[0], x[0] + 3.0))


# ---- negative extents and a zero step -----------------------------------------------------------


def _negative_extents(out, n, kind):
    if kind == 0:
        out[0] = np.empty(n).size
    elif kind == 1:
        out[0] = np.zeros((2, n), np.int32).size
    elif kind == 2:
        out[0] = np.arange(0, 10, n + 1).size  # a zero step: NumPy raises
    else:
        out[0] = np.full(n, 2.5).size


@functools.cache
def _negative_extents_kernel():
    return nrt_harness.Kernel(_negative_extents, (types.int64[::1], types.int64, types.int64))


@pytest.mark.parametrize("kind", [0, 1, 2, 3], ids=["empty", "zeros", "arange_step_0", "full"])
def test_a_negative_extent_asks_the_runtime_for_more_than_any_heap_holds(kind):
    kernel = _negative_extents_kernel()
    out = support.poisoned(1, "int64")
    runtime = kernel(out, -1, kind)
    assert runtime.errors == [NEGATIVE_REQUEST]  # the device runtime reports it and ends the kernel
    assert not runtime.live  # nothing leaks either way
    out = support.poisoned(1, "int64")
    _run(kernel, out, 2, kind)  # the same code with a valid extent
    assert out[0] == {0: 2, 1: 4, 2: 4, 3: 2}[kind]


# ---- arrays in the kernel's stack -------------------------------------------------------------

_ITEMS = STACK_BYTES // 8  # float64s filling the stack's limit exactly


def _stack_kernel():
    namespace = {"np": np}
    source = f"""
def in_the_stack(out, n):
    a = np.zeros(8)
    b = np.ones((2, 3), np.int32)
    c = np.full((4,), n)
    d = np.empty(3)
    e = np.zeros((2, 0, 3))
    limit = np.zeros({_ITEMS})  # exactly STACK_BYTES
    d[0] = n
    limit[-1] = 2 * n
    out[0] = a.sum() + b.sum() + c[3] + d[0] + e.size + limit[{_ITEMS} - 1]
    out[1] = b.shape[0] * 10 + b.shape[1] + b.strides[0] * 1000
"""
    exec(source, namespace)
    return namespace["in_the_stack"]


def test_arrays_of_a_compile_time_shape_made_once_live_in_the_stack(rng):
    kernel = _stack_kernel()
    n = int(rng.integers(1, 100))
    out = support.poisoned(2, "float64")
    runtime = _run(nrt_harness.Kernel(kernel, (types.float64[::1], types.int64)), out, n)
    assert runtime.stats["alloc"] == 0 and runtime.stats["decref"] == 0
    np.testing.assert_array_equal(out, [6 + n + n + 2 * n, 23 + 3 * 4 * 1000])
    # no runtime at all: with NRT off too
    ptx, _ = cuda.compile_ptx(kernel, (types.float64[::1], types.int64), cc=(9, 0), nrt=False)
    assert "NRT_" not in ptx
    support.ptxas(ptx)


@cuda.jit(device=True)
def _made_in_a_device_function(n):
    t = np.zeros(4)  # a device function's arrays may be returned: from the heap
    t[0] = n
    return t[0]


def _heap_kernel():
    namespace = {"np": np, "helper": _made_in_a_device_function}
    source = f"""
def on_the_heap(out, n):
    over = np.zeros({_ITEMS + 1})  # one element over STACK_BYTES
    over[-1] = n
    out[0] = over[{_ITEMS}]
    for k in range(3):
        t = np.ones(4)  # in a loop: each iteration's array would reuse one slot
        out[1] += t[k]
    out[2] = helper(n)
"""
    exec(source, namespace)
    return namespace["on_the_heap"]


def test_arrays_too_large_made_in_loops_or_in_device_functions_come_from_the_heap():
    out = np.zeros(3)
    runtime = _run(nrt_harness.Kernel(_heap_kernel(), (types.float64[::1], types.int64)), out, 5)
    assert runtime.stats["alloc"] == 1 + 3 + 1
    np.testing.assert_array_equal(out, [5, 3, 5])
    with pytest.raises(errors.LoweringError, match="np.zeros in device code needs NRT"):
        cuda.compile_ptx(_heap_kernel(), (types.float64[::1], types.int64), cc=(9, 0), nrt=False)


# ---- typing: NumPy's result types -------------------------------------------------------------


def _typed(source, argtypes):
    namespace = {"np": np}
    exec(f"def f({', '.join(f'a{k}' for k in range(len(argtypes)))}):\n    r = {source}\n", namespace)
    return compiler.type_function(namespace["f"], argtypes).typemap["r"]


def _layout(a):
    return "F" if a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous else "C"


C2, F2, A2 = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32, order="F"), np.zeros((4, 6), np.float32)[::2]

# (source, argument types, NumPy's call on values of those types)
RESULTS = [
    ("np.empty(a0)", (types.int32,), lambda: np.empty(np.int32(2))),
    ("np.empty((a0, 3), np.int8)", (types.uint8,), lambda: np.empty((np.uint8(2), 3), np.int8)),
    ("np.empty(a0)", (types.UniTuple(types.int64, 3),), lambda: np.empty((1, 2, 3))),
    ("np.empty(())", (), lambda: np.empty(())),
    ("np.zeros(a0, dtype=float)", (types.int64,), lambda: np.zeros(2, dtype=float)),
    ("np.zeros(a0, np.float16)", (types.int64,), lambda: np.zeros(2, np.float16)),
    ("np.ones(a0, int)", (types.int64,), lambda: np.ones(2, int)),
    ("np.ones(a0, complex)", (types.int64,), lambda: np.ones(2, complex)),
    ("np.ones(shape=a0, dtype=bool)", (types.int64,), lambda: np.ones(2, bool)),
    ("np.ones(a0, 'uint16')", (types.int64,), lambda: np.ones(2, "uint16")),
    ("np.full(a0, 3)", (types.int64,), lambda: np.full(2, 3)),
    ("np.full(a0, a1)", (types.int64, types.float32), lambda: np.full(2, np.float32(1))),
    ("np.full(a0, True)", (types.int64,), lambda: np.full(2, True)),
    ("np.full((a0, a0), 2.5, np.complex64)", (types.int64,), lambda: np.full((2, 2), 2.5, np.complex64)),
    ("np.full(a0, a1, dtype=np.uint8)", (types.int64, types.float64), lambda: np.full(2, 1.0, dtype=np.uint8)),
    ("np.empty_like(a0)", (typeof(F2),), lambda: np.empty_like(F2)),
    ("np.empty_like(a0)", (typeof(A2),), lambda: np.empty_like(A2)),
    ("np.zeros_like(a0, np.int8)", (typeof(F2),), lambda: np.zeros_like(F2, np.int8)),
    ("np.ones_like(a0, dtype=float)", (typeof(C2),), lambda: np.ones_like(C2, dtype=float)),
    ("np.full_like(a0, 7)", (typeof(A2),), lambda: np.full_like(A2, 7)),
    ("np.full_like(a0, 7, dtype=np.uint64)", (typeof(F2),), lambda: np.full_like(F2, 7, dtype=np.uint64)),
    ("np.arange(a0)", (types.int32,), lambda: np.arange(np.int32(3))),
    ("np.arange(a0, a1)", (types.int8, types.float32), lambda: np.arange(np.int8(1), np.float32(3))),
    ("np.arange(a0, 5, 2)", (types.int16,), lambda: np.arange(np.int16(1), 5, 2)),
    ("np.arange(3)", (), lambda: np.arange(3)),
    ("np.arange(0.5)", (), lambda: np.arange(0.5)),
    ("np.arange(1, 3, dtype=np.float32)", (), lambda: np.arange(1, 3, dtype=np.float32)),
    ("a0.copy()", (typeof(F2),), lambda: F2.copy()),
    ("a0.copy()", (typeof(A2),), lambda: A2.copy()),
]


@pytest.mark.parametrize("source, argtypes, host", RESULTS, ids=[r[0] for r in RESULTS])
def test_result_types_are_numpys(source, argtypes, host):
    result, expected = _typed(source, argtypes), host()
    assert isinstance(result, types.Array), result
    assert support.dtype_of(result.dtype) == expected.dtype, source
    assert (result.ndim, result.layout) == (expected.ndim, _layout(expected)), source


@pytest.mark.xfail(
    reason="np.arange of unsigned bounds: the typer's max() of int64 and an unsigned type raises "
    "Python's TypeError ('>' not supported between instances of 'Integer' and 'Integer')",
    strict=True,
)
@pytest.mark.parametrize("bound", ["uint32", "uint64"])
def test_arange_of_unsigned_bounds_is_typed_as_numpys(bound):
    result = _typed("np.arange(a0)", (support.numba_type(bound),))
    assert support.dtype_of(result.dtype) == np.arange(np.dtype(bound).type(3)).dtype


# ---- what is refused ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, match",
    [
        ("a = np.empty(n, record)", "dtype must be a number or bool"),
        ("a = np.empty(1.5)", "shape must be an integer or a tuple of integers"),
        ("a = np.zeros_like(n)", "needs an array"),
        ("a = np.arange(1j)", "integer or float bounds"),
        ("a = np.empty(n, np.float64, 'C', 3)", "np.empty: too many positional arguments"),
        ("a = np.empty(n, np.float64, 3)", "np.empty: order must be a constant string"),
    ],
)
def test_bad_constructor_arguments_are_typing_errors(source, match):
    """(moved from tests/test_nrt.py)"""
    from numba.core import errors

    from cumlir import compiler

    namespace = {"np": np, "record": np.dtype([("x", np.int32)])}
    exec(f"def k(out, n):\n    {source}\n    out[0] = 0\n", namespace)
    with pytest.raises(errors.TypingError, match=match):
        compiler.type_function(namespace["k"], (types.float64[::1], types.int64))


@pytest.mark.parametrize(
    "source, argtypes, match",
    [
        ("np.full(a0)", (types.int64,), "np.full: missing a required argument: 'fill_value'"),
        ("np.empty(a0, order='K')", (types.int64,), "np.empty: order must be one of 'C', 'F', got 'K'"),
        ("np.empty(a0, like=a0)", (types.int64,), "np.empty: got an unexpected keyword argument 'like'"),
        ("np.empty((a0, 1.5))", (types.int64,), r"np.empty: the shape must be .* got Tuple\(int64, float64\)"),
        ("np.ones(a0, np.datetime64)", (types.int64,), "np.ones: the dtype must be a number or bool type"),
        ("np.full_like(a0, 1, 'U3')", (types.float64[:],), "np.full_like: the dtype must be a number or bool"),
        ("np.ones_like(a0)", (types.float64,), "np.ones_like needs an array as its first argument, got float64"),
        ("np.arange()", (), "np.arange: missing a required argument: 'start'"),
        ("np.arange(a0, 2j)", (types.int64,), r"np.arange takes integer or float bounds, got \(int64, complex128\)"),
    ],
)
def test_more_bad_arguments_are_typing_errors_naming_the_function(source, argtypes, match):
    with pytest.raises(TypingError, match=match):
        _typed(source, argtypes)


@pytest.mark.xfail(
    reason="np.full with a tuple as its fill value is typed (an array of UniTuple) and then fails "
    "while lowering with NumbaNotImplementedError instead of a TypingError",
    strict=True,
)
def test_a_tuple_fill_value_is_a_typing_error():
    def k(out, n):
        a = np.full(n, (1, 2))
        out[0] = a.size

    with pytest.raises(TypingError, match="np.full"):
        cuda.compile_ptx(k, (types.float64[::1], types.int64), cc=(9, 0), nrt=True)


@pytest.mark.xfail(
    reason="np.zeros_like/np.ones_like of a datetime64 array are typed (the input's dtype is not "
    "checked) and then fail while lowering ('cannot convert a value of type int64 to datetime64[D]')",
    strict=True,
)
def test_zeros_like_of_a_datetime_array_is_numpys_or_a_typing_error():
    def k(out, x):
        out[...] = np.zeros_like(x)

    argtypes = (types.NPDatetime("D")[::1],) * 2
    try:
        cuda.compile_ptx(k, argtypes, cc=(9, 0), nrt=True)
    except TypingError:
        return
    out, x = np.array(["2021-01-01"], "M8[D]"), np.array(["2020-01-01"], "M8[D]")
    _run(nrt_harness.Kernel(k, argtypes), out.view("i8"), x.view("i8"))
    np.testing.assert_array_equal(out, np.zeros_like(x))


@pytest.fixture
def no_nrt_environment(monkeypatch):
    from cumlir.options import NRT_VARIABLES

    for name in NRT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _lowering_error(pyfunc, argtypes, match, **options):
    from numba.core import errors

    from cumlir import compiler
    from cumlir.options import Options

    with pytest.raises(errors.NumbaError, match=match) as info:
        compiler.kernel(pyfunc, argtypes, (9, 0), Options(**options), until="mlir")
    return str(info.value)


def test_refusal_names_the_function_and_line(no_nrt_environment):
    """(moved from tests/test_nrt.py)"""

    def allocating_kernel(out, n):
        a = np.arange(n)
        out[0] = a[0]

    message = _lowering_error(
        allocating_kernel, (types.float64[::1], types.int64), "np.arange in device code needs NRT", nrt=False
    )
    assert "allocating_kernel" in message and "a = np.arange(n)" in message


@pytest.mark.parametrize(
    "source, what",
    [
        ("np.empty(n)", "np.empty"),
        ("np.zeros((n, 2), np.int8)", "np.zeros"),
        ("np.ones(n)", "np.ones"),
        ("np.full(n, 2.5)", "np.full"),
        ("np.empty_like(out)", "np.empty"),
        ("np.full_like(out, 1)", "np.full"),
        ("np.arange(0.5, n)", "np.arange"),
        ("out.copy()", "arr.copy()"),
    ],
)
def test_with_nrt_off_heap_arrays_are_refused_at_their_line(source, what, no_nrt_environment):
    namespace = {"np": np}
    exec(f"def made(out, n):\n    a = {source}\n    out[0] = a.size\n", namespace)
    argtypes = (types.float64[::1], types.int64)
    message = _lowering_error(namespace["made"], argtypes, re.escape(f"{what} in device code needs NRT"), nrt=False)
    assert "(in function made)" in message and 'File "<string>", line 2' in message
    # with NRT left automatic the runtime is switched on for it
    c = compiler.kernel(namespace["made"], argtypes, (9, 0), Options(), until="mlir")
    assert "NRT_MemInfo_alloc_aligned" in str(c.module)


# ---- PTX ----------------------------------------------------------------------------------------


def _every_constructor(out, x, n):
    a = np.empty(n, np.float16)  # float16: compiled here, not run on the host
    a[0] = 1.5
    b = np.zeros((n, 2), np.complex64)
    c = np.ones(4, np.uint8)  # in the stack
    d = np.full_like(x, 2.5)
    e = np.zeros_like(x, np.int16)
    f = np.arange(x[0, 0], x[1, 0], 0.5)
    g = x.copy()
    out[0] = a[0] + b[0, 1].real + c[3] + d[0, 0] + e[1, 1] + f[0] + g[0, 0]


def test_every_constructor_assembles(backend):
    argtypes = (types.float64[::1], types.float64[::1, :], types.int64)
    ptx, _ = cuda.compile_ptx(_every_constructor, argtypes, cc=(9, 0), nrt=True, backend=backend)
    assert "NRT_MemInfo_alloc_aligned" in ptx
    support.ptxas(ptx, relocatable=True)  # the runtime is linked later
