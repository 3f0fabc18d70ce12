"""NumPy functions combining arrays element by element (operations/numpy/arrayfunctions.py):
``np.where(condition, x, y)``, ``np.clip`` / ``a.clip`` and the inner product of two 1-d
arrays (``np.dot``, ``a.dot``, ``a @ b``).

The generated code runs on the host (tests/nrt_harness.py, against a checking stand-in of
the device runtime that must balance) on random operands of several dtypes, layouts and
shapes that broadcast, outputs poisoned, compared with NumPy (NaN conditions and bounds
among them); results typed as NumPy 2 types them; what is refused by name, at typing or
(``nrt=False``) at its line; ``debug=True``'s check of the lengths of a dot product; the PTX
on both code generators."""

import textwrap

import numpy as np
import pytest
from numba import typeof
from numba.core import errors, types
from numba.core.errors import TypingError

from cumlir import compiler, cuda
from cumlir.types import bfloat16

from ... import nrt_harness, support
from ...cases import array_method_kernels as am

# a scalar of these types stands for the Python number (NumPy 2's weak promotion)
PYTHON_STAND_INS = ("int64", "float64", "complex128", "bool")


def _host_scalar(value):
    """*value* (a NumPy scalar) as NumPy should see the scalar the kernel was given."""
    return value.item() if value.dtype.name in PYTHON_STAND_INS else value


def _poisoned_like(expected):
    expected = np.asarray(expected)
    return support.poisoned(expected.size, expected.dtype).reshape(expected.shape)


def _run(kernel, *args):
    runtime = kernel(*args)
    runtime.check_balanced()
    return runtime


def _argtypes(*values):
    return tuple(typeof(v) if isinstance(v, np.ndarray) else types.int64 for v in values)


def _values(dtype, shape, rng, nans=False):
    a = am.values(dtype, shape, rng)
    if nans and a.dtype.kind in "fc":
        a.ravel()[rng.choice(a.size, max(1, a.size // 5), replace=False)] = np.nan
    return a


def _layouts(a):
    """*a* C-ordered, F-ordered and as a strided view."""
    big = np.zeros((2 * a.shape[0], 3 * a.shape[1]), a.dtype)
    big[::2, 2::3] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a), "strided": big[::2, 2::3]}


# ---- np.where ---------------------------------------------------------------------------------


def _where(out, c, x, y):
    out[...] = np.where(c, x, y)


def _where_scalar_y(out, c, x, k):
    out[...] = np.where(c, x, k)  # k: an int64, NumPy 2's Python int


def _where_scalar_condition(out, c, x, y):
    out[...] = np.where(c[0] != 0, x, y)


def _where_scalars(out, x, y):
    for i in range(out.size):
        out[i] = np.where(x[i] > y[i], x[i], y[i])  # scalars alone: a scalar


WHERE_PAIRS = [
    ("int8", "uint16"),
    ("bool", "float64"),
    ("uint64", "int64"),
    ("complex64", "float32"),
    ("int32", "int32"),
]


@pytest.mark.parametrize("left, right", WHERE_PAIRS, ids=lambda v: str(v))
def test_where_broadcasts_and_promotes_as_numpy(left, right, rng):
    c = am.values("bool", (4, 5), rng)
    x, y = _values(left, (4, 5), rng, nans=True), _values(right, (5,), rng, nans=True)
    expected = np.where(c, x, y)
    out = _poisoned_like(expected)
    _run(nrt_harness.Kernel(_where, _argtypes(out, c, x, y)), out, c, x, y)
    np.testing.assert_array_equal(out, expected)
    # a condition of another dtype (NaN and -0.0 among its values), axes of extent 1, a scalar
    cond = np.array([np.nan, 0.0, -0.0, 2.0, -1.5])
    x3 = _values(left, (3, 1, 5), rng)
    k = int(rng.integers(-50, 50)) if np.dtype(left).kind != "u" else int(rng.integers(0, 50))
    expected = np.where(cond, x3, k)
    out = _poisoned_like(expected)
    _run(nrt_harness.Kernel(_where_scalar_y, _argtypes(out, cond, x3, k)), out, cond, x3, k)
    np.testing.assert_array_equal(out, expected)
    # a scalar condition chooses a whole operand, broadcast
    x1, y2 = _values(left, (1, 5), rng), _values(right, (3, 1), rng)
    kernel = None
    for flag in (0, 1):
        condition = np.array([flag])
        expected = np.where(flag != 0, x1, y2)
        out = _poisoned_like(expected)
        kernel = kernel or nrt_harness.Kernel(_where_scalar_condition, _argtypes(out, condition, x1, y2))
        _run(kernel, out, condition, x1, y2)
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("layout", ["F", "strided"])
def test_where_and_clip_read_operands_of_every_layout(layout, rng):
    c = am.values("bool", (4, 5), rng)
    x = _layouts(_values("float64", (4, 5), rng, nans=True))[layout]
    y = _values("int8", (5,), rng)
    expected = np.where(c, x, y)
    out = _poisoned_like(expected)
    _run(nrt_harness.Kernel(_where, _argtypes(out, c, x, y)), out, c, x, y)
    np.testing.assert_array_equal(out, expected)
    lo, hi = _values("float32", (5,), rng, nans=True), _values("float64", (1,), rng)
    expected = [np.clip(x, lo, hi[0]), np.clip(x, lo, None), np.clip(x, None, hi[0]), np.clip(x, lo, hi[0])]
    outputs = [_poisoned_like(e) for e in expected]
    _run(nrt_harness.Kernel(_clip, _argtypes(*outputs, x, lo, hi)), *outputs, x, lo, hi)
    for got, want in zip(outputs, expected):
        np.testing.assert_array_equal(got, want)


def test_where_of_scalars_is_a_scalar_of_the_unified_type(rng):
    x, y = am.values("int32", (20,), rng), am.values("float32", (20,), rng)
    out = support.poisoned(20, "float64")  # numba unifies int32 and float32 to float64, as NumPy
    assert np.where(True, x[0], y[0]).dtype == out.dtype
    runtime = _run(nrt_harness.Kernel(_where_scalars, _argtypes(out, x, y)), out, x, y)
    assert runtime.stats["alloc"] == 0
    np.testing.assert_array_equal(out, np.where(x > y, x, y))


def _strides_of_where(out, c, x):
    r = np.where(c, x, 1.5)
    out[0], out[1] = r.strides


def test_where_of_f_arrays_is_f_ordered(rng):
    c, x = am.values("bool", (3, 4), rng), np.asfortranarray(am.values("float64", (3, 4), rng))
    f = np.asfortranarray(c)
    # every array operand F: an F array, as NumPy makes it
    out = support.poisoned(2, "int64")
    _run(nrt_harness.Kernel(_strides_of_where, _argtypes(out, f, x)), out, f, x)
    np.testing.assert_array_equal(out, np.where(f, x, 1.5).strides)
    # any other: C (NumPy's own choice follows the operands' strides)
    out = support.poisoned(2, "int64")
    _run(nrt_harness.Kernel(_strides_of_where, _argtypes(out, c, x)), out, c, x)
    np.testing.assert_array_equal(out, np.empty((3, 4)).strides)


# ---- np.clip / a.clip -------------------------------------------------------------------------


def _clip(both, low, high, method, a, lo, hi):
    both[...] = np.clip(a, lo, hi[0])
    low[...] = np.clip(a, a_min=lo, a_max=None)
    high[...] = a.clip(None, hi[0])
    method[...] = a.clip(max=hi[0], min=lo)


def _clip_scalars(out, a, lo, hi):
    for i in range(out.size):
        out[i] = np.clip(a[i], lo[i], hi[0])  # scalars alone: a scalar


CLIP_DTYPES = [("float64", "float64", "float64"), ("float32", "float32", "float64"), ("int16", "int8", "int64")]
CLIP_DTYPES += [("int32", "float32", "int32"), ("uint8", "uint8", "uint8"), ("bool", "bool", "bool")]


@pytest.mark.parametrize("dtypes", CLIP_DTYPES, ids=lambda v: "-".join(v))
def test_clip_matches_numpy_nan_propagating(dtypes, rng):
    a_dtype, lo_dtype, hi_dtype = dtypes
    a = _values(a_dtype, (4, 5), rng, nans=True)
    lo = _values(lo_dtype, (5,), rng, nans=True)  # a NaN bound gives NaN, as NumPy's maximum does
    hi = _values(hi_dtype, (1,), rng)
    h = _host_scalar(hi[0])
    expected = [np.clip(a, lo, h), np.clip(a, lo, None), np.clip(a, None, h), np.clip(a, lo, h)]
    outputs = [_poisoned_like(e) for e in expected]
    _run(nrt_harness.Kernel(_clip, _argtypes(*outputs, a, lo, hi)), *outputs, a, lo, hi)
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    flat = a[0]
    expected = np.clip(flat, lo, h)
    out = _poisoned_like(expected)
    runtime = _run(nrt_harness.Kernel(_clip_scalars, _argtypes(out, flat, lo, hi)), out, flat, lo, hi)
    assert runtime.stats["alloc"] == 0
    np.testing.assert_array_equal(out, expected)


def _clip_wide(out, a):
    out[...] = np.clip(a, -5, 300)


def _clip_by(out, a, lo, hi):
    out[...] = np.clip(a, lo, hi)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16"])
def test_clip_by_python_ints_beyond_the_dtype_leaves_values_within_them(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min + 1, 0, 1, 44, info.max - 1, info.max], dtype)
    out = support.poisoned(a.size, dtype)
    _run(nrt_harness.Kernel(_clip_wide, _argtypes(out, a)), out, a)
    np.testing.assert_array_equal(out, np.clip(a, -5, 300))


@pytest.mark.parametrize(
    "dtype, lo, hi", [("uint8", -(2**40), 100), ("int8", -1000, 2**62), ("uint32", -1, 7), ("int16", 5, 2**20)]
)
def test_clip_by_integer_bounds_beyond_the_dtype(dtype, lo, hi):
    info = np.iinfo(dtype)
    a = np.array([info.min, 0, 3, 9, 200 % (info.max + 1), info.max], dtype)
    out = support.poisoned(a.size, dtype)
    argtypes = (*_argtypes(out, a), types.int64, types.int64)
    _run(nrt_harness.Kernel(_clip_by, argtypes), out, a, lo, hi)
    np.testing.assert_array_equal(out, np.clip(a, max(lo, info.min), min(hi, info.max)))


# ---- np.dot, a.dot, a @ b ----------------------------------------------------------------------

DOT_PAIRS = [
    ("int8", "uint8"),
    ("int64", "int64"),
    ("uint64", "uint32"),
    ("bool", "bool"),
    ("bool", "int16"),
    ("float32", "float32"),
    ("float64", "int32"),
    ("complex64", "complex64"),
    ("complex128", "float32"),
]


@pytest.mark.parametrize("left, right", DOT_PAIRS, ids=lambda v: str(v))
def test_dot_products_match_numpy(left, right, rng):
    a = am.values(left, (9,), rng, -5, 5, integral=True)  # whole numbers: exact sums in every float type
    b = am.values(right, (9,), rng, -5, 5, integral=True)
    # contiguous operands for half the pairs, views of layout A (a negative stride) for the others
    x, y = (a, b) if DOT_PAIRS.index((left, right)) % 2 else (a[::-1], np.repeat(b, 2)[::2])
    out = support.poisoned(4, np.dot(a, b).dtype)
    runtime = _run(nrt_harness.Kernel(am.dot_1d, _argtypes(out, x, y)), out, x, y)
    assert runtime.stats["alloc"] == 0
    expected = [np.dot(x, y), x.dot(y), x @ y, np.dot(x[:8:2], y[1::2])]
    np.testing.assert_array_equal(out, np.array(expected, out.dtype))


def _dot(out, a, b):
    out[0] = np.dot(a, b)


def test_dot_sums_products_in_the_widest_type_rounding_once():
    # float32 sums one after another would lose the 1 next to 1e8; the float64 sum keeps it
    a = np.array([1e8, 1.0, -1e8, 0.5], np.float32)
    b = np.ones(4, np.float32)
    out = support.poisoned(1, "float32")
    _run(nrt_harness.Kernel(_dot, _argtypes(out, a, b)), out, a, b)
    assert out[0] == np.float32(1.5)
    c = (a + 1j * a).astype(np.complex64)
    out = support.poisoned(1, "complex64")
    _run(nrt_harness.Kernel(_dot, _argtypes(out, c, b)), out, c, b)
    assert out[0] == np.complex64(1.5 + 1.5j)


def test_complex_dot_products_are_not_conjugated(rng):
    a = (rng.standard_normal(30) + 1j * rng.standard_normal(30)).astype(np.complex128)
    b = (rng.standard_normal(30) + 1j * rng.standard_normal(30)).astype(np.complex128)
    out = support.poisoned(1, "complex128")
    _run(nrt_harness.Kernel(_dot, _argtypes(out, a, b)), out, a, b)
    np.testing.assert_allclose(out[0], np.dot(a, b), rtol=1e-13)
    assert not np.isclose(out[0], np.vdot(a, b))


def test_dot_of_arrays_of_different_lengths_uses_the_shorter_without_debug(rng):
    # views whose memory goes on: elements past an array's end would change the sum
    a, b = rng.standard_normal(20)[:7], rng.standard_normal(20)[:11]
    kernel = nrt_harness.Kernel(_dot, _argtypes(np.zeros(1), a, b))
    for x, y in ((a, b), (b, a), (a[:0], b)):
        out = support.poisoned(1, "float64")
        _run(kernel, out, x, y)
        n = min(x.size, y.size)
        np.testing.assert_allclose(out[0], np.dot(x[:n], y[:n]), rtol=1e-13)


@pytest.mark.parametrize("dtype", ["uint64", "int64", "uint8", "int16"])
def test_integer_dot_products_wrap_as_numpys(dtype):
    """(moved from tests/operations/numpy/test_arraymethods.py)"""
    from ... import nrt_harness

    def k(out, a, b):
        out[0] = np.dot(a, b)

    info = np.iinfo(dtype)
    a = np.array([info.max, info.min + 3, info.max // 3, 7], dtype)
    b = np.array([info.max - 1, 3, 5, info.min], dtype)
    out = np.zeros(1, dtype)
    nrt_harness.Kernel(k, (typeof(out), typeof(a), typeof(b)))(out, a, b).check_balanced()
    assert out[0] == np.dot(a, b)


def test_dot_with_debug_raises_on_lengths_that_differ():
    """(moved from tests/operations/numpy/test_arraymethods.py)"""
    from cumlir import compiler
    from cumlir.options import Options

    argtypes = (types.float64[::1], types.float32[:], types.float64[:])
    c = compiler.kernel(am.dot_1d, argtypes, (9, 0), Options(debug=True, nrt=True), until="codegen")
    messages = [s.args for s in c.raise_sites if s.exc_class is ValueError]
    assert messages and all("not aligned" in m[0] for m in messages)
    support.ptxas(c.code.decode() if isinstance(c.code, bytes) else c.code)


def test_matrix_products_with_the_operator_are_refused_by_name():
    """In a fresh process: once numba's linear algebra (numba.np.linalg) is imported, its
    typing of 2-d ``@`` comes first, and compiling fails on its implementation instead.
    (moved from tests/operations/numpy/test_arraymethods.py)"""
    code = textwrap.dedent(
        """
        from numba.core import types
        from numba.core.errors import TypingError
        from cumlir import cuda

        def k(a, b):
            x = a @ b

        try:
            cuda.compile_ptx(k, (types.float64[:, :], types.float64[:, :]), cc=(9, 0), nrt=True)
        except TypingError as e:
            print(e)
        """
    )
    assert "a @ b of a 2-d and a 2-d array" in support.python_output(code)


# ---- typing: NumPy's result types -------------------------------------------------------------


def _typed(source, argtypes):
    namespace = {"np": np}
    exec(f"def f({', '.join(f'a{k}' for k in range(len(argtypes)))}):\n    r = {source}\n", namespace)
    return compiler.type_function(namespace["f"], argtypes).typemap["r"]


def _host_value(numba_type):
    """A NumPy value standing for an argument of *numba_type* (a scalar typed int64, float64,
    complex128 or bool as the Python number)."""
    if isinstance(numba_type, types.Array):
        return np.ones((2,) * numba_type.ndim, support.dtype_of(numba_type.dtype))
    return _host_scalar(np.ones((), support.dtype_of(numba_type))[()])


RESULTS = [
    ("np.where(a0, a1, a2)", (types.bool_[:], types.int8[:], types.uint16[:]), np.where),
    ("np.where(a0, a1, 0)", (types.bool_[:, :], types.float32[:]), lambda c, x: np.where(c, x, 0)),
    ("np.where(a0, a1, a2)", (types.float64[:], types.uint64[:], types.int64), np.where),
    ("np.where(a0, a1, a2)", (types.int8[:], types.float32, types.complex64[:, :]), np.where),
    ("np.where(a0, a1, a2)", (types.bool_, types.float16[:], types.int32), np.where),
    ("np.clip(a0, 0, 1)", (types.float32[:],), lambda a: np.clip(a, 0, 1)),
    ("np.clip(a0, 0.5, 2.5)", (types.int32[:],), lambda a: np.clip(a, 0.5, 2.5)),
    ("np.clip(a0, a1, 3)", (types.uint8[:], types.int16[:]), lambda a, lo: np.clip(a, lo, 3)),
    ("np.clip(a0, a1, a2)", (types.int8[:], types.float32, types.float64), np.clip),
    ("np.clip(a0, a1, None)", (types.uint32[:, :], types.uint64[:]), lambda a, lo: np.clip(a, lo, None)),
    ("a0.clip(max=a1)", (types.float16[:], types.float32[:]), lambda a, hi: a.clip(max=hi)),
    ("np.clip(a0, a1, a2)", (types.float32, types.int8, types.int64), np.clip),
    ("np.dot(a0, a1)", (types.int8[:], types.uint8[:]), np.dot),
    ("np.dot(a0, a1)", (types.bool_[:], types.int16[:]), np.dot),
    ("a0.dot(a1)", (types.uint64[:], types.int64[:]), lambda a, b: a.dot(b)),
    ("a0 @ a1", (types.float32[:], types.complex64[:]), lambda a, b: a @ b),
    ("np.dot(a0, a1)", (types.float16[:], types.float16[::1]), np.dot),
]


@pytest.mark.parametrize("source, argtypes, host", RESULTS, ids=[r[0] for r in RESULTS])
def test_result_types_are_numpys(source, argtypes, host):
    result = _typed(source, argtypes)
    expected = np.asarray(host(*(_host_value(t) for t in argtypes)))
    if isinstance(result, types.Array):
        assert result.ndim == expected.ndim, source
        result = result.dtype
    else:
        assert expected.ndim == 0, source  # scalars alone (and dot products) give a scalar
    assert support.dtype_of(result) == expected.dtype, source


def test_result_layouts():
    assert _typed("np.where(a0, a1, a2)", (types.bool_, types.float64[:, :, :], types.float64[:])).ndim == 3
    assert _typed("np.where(a0, a1, a2)", (types.bool_, types.float64, types.int64)) == types.float64
    assert _typed("np.where(a0, a1, a2)", (types.bool_[::1, :], types.float32[::1, :], types.int8)).layout == "F"
    assert _typed("np.where(a0, a1, 1)", (types.bool_[::1, :], types.float32[:, :])).layout == "C"
    assert _typed("np.clip(a0, 0, 1)", (types.float32[::1, :],)).layout == "F"
    assert _typed("np.clip(a0, a1, 1)", (types.float32[::1, :], types.float32[::1])).layout == "C"
    assert _typed("np.clip(a0, 0, 1)", (types.float32[:, :, ::1],)) == types.float32[:, :, ::1]


@pytest.mark.parametrize(
    "source, argtypes, match",
    [
        ("np.where(a0)", (types.bool_[:],), r"np.where\(condition\) with one argument"),
        ("np.where(a0, a1)", (types.bool_[:], types.float64[:]), r"np.where takes \(condition, x, y\), got 2"),
        ("np.where(a0, x=a1, y=a1)", (types.bool_[:], types.float64[:]), "np.where takes its arguments by position"),
        ("np.where(a0, a1, a2)", (types.UniTuple(types.int64, 2), types.float64[:], types.float64), "condition"),
        ("np.where(a0, a1, a1)", (types.bool_[:], types.Array(bfloat16, 1, "C")), "np.where of bfloat16"),
        ("np.clip(a0, None, None)", (types.float64[:],), "np.clip: give a_min, a_max or both"),
        ("a0.clip()", (types.float64[:],), "array.clip: give a_min, a_max or both"),
        ("np.clip(a0, 0, 1, a0)", (types.float64[:],), "np.clip: out= is not supported"),
        ("a0.clip(0, 1, out=a0)", (types.float64[:],), "array.clip: out= is not supported"),
        ("np.clip(a0, 0, 1)", (types.complex64[:],), "np.clip of complex numbers"),
        (
            "np.clip(a0, a1, 1)",
            (types.float64[:], types.UniTuple(types.int64, 2)),
            "np.clip: the bound must be a number",
        ),
        ("np.clip(a0, lo=0)", (types.float64[:],), "np.clip: got an unexpected keyword argument 'lo'"),
        ("np.dot(a0, a1)", (types.float64[:, :], types.float64[:]), "np.dot of a 2-d and a 1-d array"),
        ("np.dot(a0, a1)", (types.float64[:], types.float64), "np.dot takes two 1-d arrays"),
        ("a0.dot(a1)", (types.float64[:], types.float64), "array.dot takes two 1-d arrays"),
        ("np.dot(a0, a0, a1)", (types.float64[:], types.float64[:]), "np.dot: out= is not supported"),
        ("a0 @ a1", (types.float64[:], types.float64[:, :]), "a @ b of a 1-d and a 2-d array"),
    ],
)
def test_bad_inputs_are_typing_errors_naming_the_function(source, argtypes, match):
    with pytest.raises(TypingError, match=match):
        _typed(source, argtypes)


# ---- NRT: new arrays need it, scalars and dot products do not ----------------------------------


def _new_arrays(out, c, x):
    out[0] = np.where(c, x, 0.0)[0]
    out[1] = np.clip(x, 0.0, 1.0)[0]


def _no_arrays(out, c, x):
    out[0] = np.where(c[0], x[0], 0.0)
    out[1] = np.clip(x[0], 0.0, 1.0)
    out[2] = np.dot(x, x) + x.dot(x) + x @ x


def test_new_arrays_need_nrt_and_scalars_and_dot_products_do_not():
    argtypes = (types.float64[::1], types.bool_[::1], types.float64[::1])
    with pytest.raises(errors.LoweringError, match="np.where in device code needs NRT"):
        cuda.compile_ptx(_new_arrays, argtypes, cc=(9, 0), nrt=False)
    ptx, _ = cuda.compile_ptx(_no_arrays, argtypes, cc=(9, 0), nrt=False)
    assert "NRT_" not in ptx
    support.ptxas(ptx)


def test_every_function_assembles(backend):
    def every_function(out, c, x, y):
        out[0] = np.where(c, x, y)[1] + np.clip(x, y, 2.5)[0] + x.clip(min=0.5)[1] + np.dot(x, y)

    argtypes = (types.float64[::1], types.bool_[::1], types.float16[::1], types.int8[:])
    ptx, _ = cuda.compile_ptx(every_function, argtypes, cc=(9, 0), nrt=True, backend=backend)
    assert "NRT_MemInfo_alloc_aligned" in ptx
    support.ptxas(ptx, relocatable=True)  # the runtime is linked later


def test_numbas_host_blas_overloads_do_not_type_device_code():
    # numba's CPU target registers its BLAS/LAPACK overloads (a @ b, np.linalg.*) when first
    # needed; typing in device code must not change once they are there
    import numba
    import numba.np.linalg  # noqa: F401

    host = numba.njit(lambda a, b: a @ b)
    a, m = np.arange(3.0), np.arange(6.0).reshape(3, 2)
    with pytest.raises(TypingError, match="a @ b of a 1-d and a 2-d array"):
        _typed("a0 @ a1", (types.float64[:], types.float64[:, :]))
    with pytest.raises(TypingError, match="numpy.linalg.inv is not supported in device code"):
        _typed("np.linalg.inv(a1)", (types.float64[:], types.float64[:, :]))
    assert _typed("a0 @ a1", (types.float64[:], types.float64[:])) == types.float64
    try:
        np.testing.assert_allclose(host(a, m), a @ m)
    except Exception as error:  # numba's CPU matmul needs SciPy's BLAS
        assert "scipy" in str(error).lower()
