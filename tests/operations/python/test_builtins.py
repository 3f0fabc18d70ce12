"""Python's builtins on numbers (operations/python/builtins.py): ``abs``, ``min``/``max``,
``int``, ``round``, ``divmod`` and ``pow`` (with ``float ** int``), their code run on the
host (tests/nrt_harness.py) on boundary and random values against Python's own answers
(wrapped to numba's result type, with numba-cuda's error model: integer division by zero
gives 0), the typing against numba's, typing errors, and PTX on both code generators.
test_builtins_gpu.py covers float16, which the host cannot run."""

import functools
import math

import numba
import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError
from numba.core.registry import cpu_target

from cumlir import cuda
from cumlir.compiler import type_function
from cumlir.typing.context import typing_context
from cumlir.typing.target import target_override

from ... import nrt_harness, support


def _cumlir_type(source, *argtypes):
    names = ", ".join("xyz"[: len(argtypes)])
    scope = {}
    exec(f"def f({names}):\n    return {source}\n", scope)
    return type_function(scope["f"], argtypes).return_type


def _cumlir_resolve(fn, *argtypes):
    """cumlir's typing of fn(*argtypes), straight from its typing context (what compiling a
    call asks it), or None where it has none."""
    context = typing_context()
    with target_override():
        try:
            return context.resolve_function_type(context.resolve_value_type(fn), argtypes, {}).return_type
        except TypingError:
            return None


def _numba_type(fn, *argtypes):
    """numba's own typing of the call (its CPU target's context)."""
    context = cpu_target.typing_context
    context.refresh()
    return context.resolve_function_type(context.resolve_value_type(fn), argtypes, {}).return_type


def _values(name, rng, n=200):
    return np.concatenate([support.boundary_values(name), support.random_values(name, n, rng)])


def _pairs(left, right, rng, n=300):
    """Every pair of boundary values, then random pairs."""
    a, b = support.boundary_values(left), support.boundary_values(right)
    a2 = np.concatenate([np.repeat(a, len(b)), support.random_values(left, n, rng)])
    b2 = np.concatenate([np.tile(b, len(a)), support.random_values(right, n, rng)])
    return a2, b2


def _wrap(value, dtype):
    """A Python integer as the integer type *dtype* holds it (two's complement)."""
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    return value - (1 << bits) if dtype.kind == "i" and value >= 1 << (bits - 1) else value


def _as_python(values, dtype):
    """The values converted to *dtype* (as numba converts operands), as Python numbers."""
    with np.errstate(all="ignore"):
        return values.astype(dtype).tolist()


def _assert_same(got, expected, label, zero_signs=True):
    """Equal, NaN to NaN (and for floats, zeros of the same sign unless not *zero_signs*)."""
    got, expected = np.asarray(got), np.asarray(expected, dtype=got.dtype)
    same = got == expected
    if got.dtype.kind == "f":
        if zero_signs:
            same &= np.signbit(got) == np.signbit(expected)
        same |= np.isnan(got) & np.isnan(expected)
    bad = np.flatnonzero(~same)
    assert not len(bad), f"{label}: {len(bad)} differ: " + ", ".join(
        f"[{k}] got {got[k]!r} expected {expected[k]!r}" for k in bad[:5]
    )


@functools.cache
def _kernel(pyfunc, *argtypes):
    return nrt_harness.Kernel(pyfunc, argtypes)


def _array_type(dtype):
    return types.Array(numba.from_dtype(np.dtype(dtype)), 1, "C")


# ---- abs ---------------------------------------------------------------------------------------


def absolute(out, a):
    for i in range(a.size):
        out[i] = abs(a[i])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64", "bool", "float32", "float64"])
def test_abs(dtype, rng):
    a = _values(dtype, rng)
    result = support.dtype_of(_cumlir_type("abs(x)", support.numba_type(dtype)))
    out = support.poisoned(a.size, result)
    _kernel(absolute, _array_type(result), _array_type(a.dtype))(out, a)
    if result.kind == "f":
        # the sign cleared, -0.0 and NaN included
        np.testing.assert_array_equal(out, np.abs(a))
        assert not np.signbit(out).any()
    else:
        # abs of the most negative value wraps to itself in its type, as in numba
        _assert_same(out, [_wrap(abs(int(v)), result) for v in a.tolist()], f"abs({dtype})")


# ---- min and max ---------------------------------------------------------------------------------


def min_max(out, a, b, c):
    for i in range(a.size):
        out[0, i] = max(a[i], b[i])
        out[1, i] = min(a[i], b[i])
        out[2, i] = max(a[i], b[i], c[i])
        out[3, i] = min(a[i], b[i], c[i])
        out[4, i] = max((a[i], b[i], c[i]))
        out[5, i] = min((b[i], a[i], c[i]))


MIN_MAX_PAIRS = [
    ("int64", "int64"),
    ("int32", "uint32"),
    ("int64", "uint64"),
    ("uint64", "uint64"),
    ("bool", "int8"),
    ("float64", "float64"),
    ("float32", "float32"),
    ("float32", "float64"),
    ("int64", "float64"),
]


@pytest.mark.parametrize("left, right", MIN_MAX_PAIRS)
def test_min_and_max(left, right, rng):
    a, b = _pairs(left, right, rng)
    c = np.roll(b, 7)
    result = support.dtype_of(_cumlir_type("max(x, y)", support.numba_type(left), support.numba_type(right)))
    out = support.poisoned(6 * a.size, result).reshape(6, a.size)
    _kernel(min_max, types.Array(numba.from_dtype(result), 2, "C"), *(_array_type(v.dtype) for v in (a, b, c)))(
        out, a, b, c
    )
    x, y, z = (_as_python(v, result) for v in (a, b, c))
    if {left, right} <= {"float32", "float64"}:
        # two float32/float64 operands: C's fmax/fmin (a NaN is ignored unless both are; which
        # zero of -0.0 and 0.0 is left open)
        _assert_same(out[0], np.fmax(np.array(x, result), np.array(y, result)), "max(a, b)", zero_signs=False)
        _assert_same(out[1], np.fmin(np.array(x, result), np.array(y, result)), "min(a, b)", zero_signs=False)
    else:
        # Python's rule: the first value is kept unless a later one compares strictly better
        _assert_same(out[0], [max(p, q) for p, q in zip(x, y)], "max(a, b)")
        _assert_same(out[1], [min(p, q) for p, q in zip(x, y)], "min(a, b)")
    # three values or a tuple: Python's rule whatever the types (NaN first is kept)
    _assert_same(out[2], [max(p, q, r) for p, q, r in zip(x, y, z)], "max(a, b, c)")
    _assert_same(out[3], [min(p, q, r) for p, q, r in zip(x, y, z)], "min(a, b, c)")
    _assert_same(out[4], [max((p, q, r)) for p, q, r in zip(x, y, z)], "max(tuple)")
    _assert_same(out[5], [min((q, p, r)) for p, q, r in zip(x, y, z)], "min(tuple)")


REAL_TYPES = [
    types.boolean,
    types.int8,
    types.uint8,
    types.int32,
    types.uint32,
    types.int64,
    types.uint64,
    types.float32,
    types.float64,
]


def test_min_max_typing_is_numbas():
    # numba types max and min of numbers as the unification of their types (its overloads
    # compile, slowly: a few combinations are asked of numba itself, the rest of its rule)
    numba_context = cpu_target.typing_context
    for args in [
        (types.int32, types.uint32),
        (types.int64, types.uint64),
        (types.boolean, types.int8),
        (types.float32, types.int64),
    ]:
        assert _cumlir_resolve(max, *args) == _numba_type(max, *args) == numba_context.unify_types(*args), args
        assert _cumlir_resolve(min, types.Tuple(args)) == _numba_type(min, types.Tuple(args)), args
    for fn in (max, min):
        for left in REAL_TYPES:
            for right in REAL_TYPES:
                for args in ((left, right), (left, right, types.int16), (types.Tuple([left, right]),)):
                    members = args[0].types if len(args) == 1 else args
                    assert _cumlir_resolve(fn, *args) == numba_context.unify_types(*members), args
    assert _cumlir_type("max(x, y)", types.int32, types.uint32) == types.int64  # and so compiled


@pytest.mark.parametrize("source", ["max()", "max(x, y, key=None)", "min(x, y, default=0)"])
def test_min_max_calls_python_would_refuse_are_typing_errors(source):
    with pytest.raises(TypingError, match="No implementation of function Function\\(<built-in function m"):
        _cumlir_type(source, types.int64, types.int64)


@pytest.mark.xfail(
    reason="max/min of complex numbers passes typing (numba's own template) and fails in lowering with "
    "'cannot convert a value of type StarArgUniTuple(complex128 x 2) to complex128' instead of a "
    "typing error saying complex numbers are not ordered",
    strict=True,
)
def test_max_of_complex_numbers_is_a_typing_error():
    def kernel(out, a):
        out[0] = max(a[0], a[1])

    with pytest.raises(TypingError, match="complex"):
        cuda.compile_ptx(kernel, "void(complex128[::1], complex128[::1])", cc=(9, 0))


# ---- int() ---------------------------------------------------------------------------------------


def to_int(out, a):
    for i in range(a.size):
        out[i] = int(a[i])


@pytest.mark.parametrize("dtype", ["float32", "float64", "bool"])
def test_int_truncates_toward_zero(dtype, rng):
    a = _values(dtype, rng, 400)
    if a.dtype.kind == "f":
        a = np.concatenate([a, np.array([0.5, -0.5, 0.999, -0.999, 2.0**62, -(2.0**63)], a.dtype)])
        with np.errstate(invalid="ignore"):
            a = a[np.isfinite(a) & (np.abs(a.astype(np.float64)) <= 2.0**63)]  # defined where it fits int64
    assert _cumlir_type("int(x)", support.numba_type(dtype)) == types.int64  # numba's intp
    out = support.poisoned(a.size, np.int64)
    _kernel(to_int, types.int64[::1], _array_type(a.dtype))(out, a)
    _assert_same(out, [int(v) for v in a.tolist()], f"int({dtype})")


@pytest.mark.xfail(
    reason="int() of an integer is typed intp (int64), where numba and Numba-CUDA keep the integer's "
    "type: int(x) of the uint64 2**64 - 1 is -1, not 2**64 - 1 as in Python",
    strict=True,
)
def test_int_of_an_integer_keeps_its_value():
    def kernel(out, a):
        out[0] = int(a[0]) > 0
        out[1] = int(a[0]) // 2

    out = np.zeros(2, np.uint64)
    _kernel(kernel, types.uint64[::1], types.uint64[::1])(out, np.array([2**64 - 1], np.uint64))
    assert out.tolist() == [1, (2**64 - 1) // 2]


# ---- round() -------------------------------------------------------------------------------------


def round_both(out, digits, a, n):
    for i in range(a.size):
        out[i] = round(a[i])
        digits[i] = round(a[i], n[i])


def _round_reference(x, n):
    """round(x, n) as numba computes it (CPython's classic algorithm, in float64 for float32
    too, as Numba-CUDA): x scaled by 10**n, rounded half to even (np.rint), scaled back; x itself
    where the scaling overflows. For 0 <= n <= 22 and n < 0, where 10**n is what NumPy's
    np.round scales by."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        overflows = np.isfinite(x) & ~np.isfinite(x * 10.0 ** np.maximum(n, 0))
        rounded = np.array([np.round(v, k) for v, k in zip(x.tolist(), np.asarray(n).tolist())])
    return np.where(overflows, x, rounded)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round(dtype, rng):
    ties = (np.arange(-40, 40) + 0.5).astype(dtype)  # halves: to even
    a = np.concatenate([_values(dtype, rng, 1500), ties, rng.integers(-99999, 99999, 500) / 1000 + 0.0005]).astype(
        dtype
    )
    large = np.array([1.2345, 0.1, -123.456, 7.0], dtype)  # more than 22 digits: two scalings
    biggest = float(np.finfo(dtype).max)
    a = np.concatenate([a, np.array([2.675, biggest, -biggest / 3, 1e30], dtype), large])
    n = np.concatenate([rng.integers(-8, 23, a.size - 8), [2, 300, 290, 280], [30, 25, 23, 40]]).astype(np.int64)
    nearest, digits = np.full(a.size, 0x5A, np.int64), support.poisoned(a.size, dtype)
    _kernel(round_both, types.int64[::1], _array_type(dtype), _array_type(dtype), types.int64[::1])(
        nearest, digits, a, n
    )
    fits = np.isfinite(a) & (np.abs(a.astype(np.float64)) < 2.0**62)
    _assert_same(nearest[fits], [round(v) for v in a[fits].tolist()], "round(x)")  # Python's, half to even
    # a value whose scaling overflows (the largest float to 300 digits) comes back unchanged
    _assert_same(digits[:-4], _round_reference(a[:-4], n[:-4]).astype(dtype), "round(x, n)")
    # past 22 digits these values are whole at that scale: themselves, but for the roundings of
    # the two scalings
    np.testing.assert_allclose(digits[-4:], large, rtol=2 * np.finfo(dtype).eps, atol=0)


def test_round_of_integers(rng):
    def kernel(out, digits, a, n):
        for i in range(a.size):
            out[i] = round(a[i])
            digits[i] = round(a[i], n[i])

    a = _values("int32", rng)
    n = rng.integers(-4, 3, a.size)
    out, digits = support.poisoned(a.size, np.int64), support.poisoned(a.size, np.float64)
    _kernel(kernel, types.int64[::1], types.float64[::1], types.int32[::1], types.int64[::1])(out, digits, a, n)
    _assert_same(out, a.astype(np.int64), "round(int)")
    _assert_same(digits, _round_reference(a, n), "round(int, n)")


# ---- divmod ---------------------------------------------------------------------------------------


def divmods(q, r, a, b):
    for i in range(a.size):
        q[i], r[i] = divmod(a[i], b[i])


DIVMOD_PAIRS = [
    ("int64", "int64"),
    ("int32", "uint32"),
    ("uint64", "uint64"),
    ("int8", "int8"),
    ("bool", "bool"),
    ("int16", "uint8"),
]


@pytest.mark.parametrize("left, right", DIVMOD_PAIRS)
def test_integer_divmod_floors_as_python(left, right, rng):
    a, b = _pairs(left, right, rng)
    sig = support.result_signature(divmod, left, right)
    assert sig.return_type == _numba_type(divmod, support.numba_type(left), support.numba_type(right))
    result = support.dtype_of(sig.return_type.dtype)
    q, r = support.poisoned(a.size, result), support.poisoned(a.size, result)
    _kernel(divmods, *(_array_type(result),) * 2, _array_type(a.dtype), _array_type(b.dtype))(q, r, a, b)
    minimum = -(1 << (8 * result.itemsize - 1)) if result.kind == "i" else 0
    expected = []
    for x, y in zip(_as_python(a, result), _as_python(b, result)):
        if y == 0 or (x == minimum and y == -1 and result.kind == "i"):
            expected.append((0, 0))  # numba-cuda's error model: no exception, 0
        else:
            expected.append(divmod(x, y))
    _assert_same(q, [_wrap(e[0], result) for e in expected], f"divmod({left}, {right})[0]")
    _assert_same(r, [_wrap(e[1], result) for e in expected], f"divmod({left}, {right})[1]")


@pytest.mark.parametrize("left, right", [("float64", "float64"), ("float32", "float32"), ("float32", "int64")])
def test_float_divmod_is_pythons(left, right, rng):
    a, b = _pairs(left, right, rng)
    result = support.dtype_of(support.result_signature(divmod, left, right).return_type.dtype)
    q, r = support.poisoned(a.size, result), support.poisoned(a.size, result)
    _kernel(divmods, *(_array_type(result),) * 2, _array_type(a.dtype), _array_type(b.dtype))(q, r, a, b)
    x, y = np.array(_as_python(a, result)), np.array(_as_python(b, result))
    nonzero = y != 0
    if result == np.float64:
        # CPython's float divmod, to the last bit, signed zeros, infinities and NaN included
        expected = [divmod(p, s) for p, s in zip(x[nonzero].tolist(), y[nonzero].tolist())]
        _assert_same(q[nonzero], [e[0] for e in expected], "quotient")
        _assert_same(r[nonzero], [e[1] for e in expected], "remainder")
    else:
        # float32: the same algorithm in float32: the remainder is Python's rounded (fmod is
        # exact), the quotient too but where it is an integer beyond 2**24, within an ulp
        expected = np.array([divmod(p, s) for p, s in zip(x[nonzero].tolist(), y[nonzero].tolist())])
        _assert_same(r[nonzero], expected[:, 1].astype(result), "remainder")
        with np.errstate(over="ignore"):
            quotient = expected[:, 0].astype(result)
        small = ~(np.abs(quotient) > 2**24)
        _assert_same(q[nonzero][small], quotient[small], "quotient")
        np.testing.assert_allclose(q[nonzero][~small], quotient[~small], rtol=np.finfo(result).eps, atol=0)
    # a zero divisor: the quotient a / b (an infinity, NaN for 0 / 0), the remainder NaN
    with np.errstate(all="ignore"):
        _assert_same(q[~nonzero], (x[~nonzero] / y[~nonzero]).astype(result), "quotient by zero")
    assert np.isnan(r[~nonzero]).all()


# ---- pow and float ** int --------------------------------------------------------------------------


def powers(out, p, a, n):
    for i in range(a.size):
        out[i] = a[i] ** n[i]
        p[i] = pow(a[i], n[i])


def _integer_power(x, n, dtype):
    """x ** n in the integer type: wrapped, and for a negative n numba's values (1 and -1
    stay exact, 0 gives the type's minimum, the rest 0)."""
    if n < 0:
        minimum = -(1 << (8 * dtype.itemsize - 1)) if dtype.kind == "i" else 0
        return {1: 1, -1: -1 if n % 2 else 1, 0: minimum}.get(x, 0)
    return _wrap(pow(x, n, 1 << (8 * dtype.itemsize)), dtype)


@pytest.mark.parametrize(
    "left, right", [("int64", "int64"), ("int32", "int32"), ("uint64", "uint64"), ("int64", "uint8")]
)
def test_integer_powers_wrap(left, right, rng):
    a = _values(left, rng, 300)
    n = (rng.integers(-5, 70, a.size) if right[0] == "i" else rng.integers(0, 70, a.size)).astype(right)
    result = support.dtype_of(_cumlir_type("x ** y", support.numba_type(left), support.numba_type(right)))
    out, p = support.poisoned(a.size, result), support.poisoned(a.size, result)
    _kernel(powers, _array_type(result), _array_type(result), _array_type(left), _array_type(right))(out, p, a, n)
    expected = [
        _wrap(_integer_power(x, k, result), result) for x, k in zip(_as_python(a, result), _as_python(n, result))
    ]
    _assert_same(out, expected, f"{left} ** {right}")
    _assert_same(p, expected, f"pow({left}, {right})")


@pytest.mark.parametrize(
    "left, right", [("float64", "int64"), ("float32", "int64"), ("float64", "int32"), ("float32", "uint8")]
)
def test_float_to_an_integer_power(left, right, rng):
    # repeated squaring in the base's type: within about |n| roundings of the exact power
    a = np.concatenate([rng.standard_normal(600) * 2, [2.0, -2.0, 3.0, 0.5, -1.0, 10.0]]).astype(left)
    n = np.concatenate([rng.integers(-60 if right[0] == "i" else 0, 60, 600), [10, 11, 7, 20, 63, 5]]).astype(right)
    out, p = support.poisoned(a.size, left), support.poisoned(a.size, left)
    _kernel(powers, _array_type(left), _array_type(left), _array_type(left), _array_type(right))(out, p, a, n)
    with np.errstate(all="ignore"):
        exact = np.array([float(x) ** int(k) if x or k >= 0 else math.inf for x, k in zip(a.tolist(), n.tolist())])
        expected = exact.astype(left)
    # x ** -n is 1 / x ** n: where x ** n overflows the type, 0 (below the smallest normal
    # value, the exact power is in the type's subnormals, which that loses)
    with np.errstate(over="ignore"):
        lost = (n.astype(np.int64) < 0) & np.isinf((np.abs(a.astype(np.float64)) ** -n.astype(np.float64)).astype(left))
    assert (out[lost] == 0).all()
    eps = np.finfo(left).eps
    bound = np.maximum(np.abs(n.astype(np.float64)), 1) * eps * np.abs(expected.astype(np.float64))
    with np.errstate(invalid="ignore"):
        ok = (out == expected) | (np.abs(out.astype(np.float64) - expected) <= bound) | lost
    assert ok.all(), [(a[k], n[k], out[k], expected[k]) for k in np.flatnonzero(~ok)[:5]]
    _assert_same(p, out, "pow(x, n) is x ** n")
    # the powers of small integers are exact
    exact_ones = np.isin(a, [2.0, -2.0, 3.0, 0.5, -1.0, 10.0]) & (np.abs(expected) < 2.0**24)
    _assert_same(out[exact_ones], expected[exact_ones], "exact powers")


def test_float_power_edges():
    low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    cases = [
        (1e20, 2, np.float32),  # squared in float32: beyond its range
        (2.0, 127, np.float32),
        (0.0, -1, np.float64),  # 1 / 0
        (-0.0, -1, np.float64),
        (-0.0, -2, np.float64),
        (-2.0, 3, np.float64),
        (1.0, low, np.float64),  # -n overflows: math.pow
        (2.0, low, np.float64),
        (0.5, low, np.float64),
        (-1.0, low, np.float64),
        (2.0, high, np.float64),
        (1 + 2.0**-20, 70000, np.float64),  # 65536 and beyond: math.pow
        (1 - 2.0**-20, -100000, np.float64),
        (math.inf, -1, np.float64),
        (math.nan, 0, np.float64),
    ]
    for dtype in (np.float32, np.float64):
        chosen = [(x, k) for x, k, t in cases if t == dtype]
        a, n = np.array([x for x, _ in chosen], dtype), np.array([k for _, k in chosen], np.int64)
        out, p = support.poisoned(a.size, dtype), support.poisoned(a.size, dtype)
        _kernel(powers, _array_type(dtype), _array_type(dtype), _array_type(dtype), types.int64[::1])(out, p, a, n)
        with np.errstate(all="ignore"):
            expected = np.power(a.astype(np.float64), n.astype(np.float64))  # C's pow, in float64
        if dtype == np.float32:
            expected = [math.inf, 2.0**127]  # 1e20 ** 2 overflows float32, the type it is computed in
        np.testing.assert_allclose(out, np.array(expected, dtype), rtol=4 * np.finfo(dtype).eps, atol=0)
        _assert_same(np.signbit(out), np.signbit(np.array(expected, dtype)), "signs")


def test_pow_divmod_round_typing_is_numbas():
    for left in REAL_TYPES:
        for right in REAL_TYPES:
            for fn in (pow, divmod, round):
                try:
                    theirs = _numba_type(fn, left, right)
                except TypingError:
                    theirs = None
                assert _cumlir_resolve(fn, left, right) == theirs, (fn, left, right)


@pytest.mark.parametrize(
    "source, argtypes",
    [
        ("pow(x, y, 3)", (types.int64, types.int64)),
        ("divmod(x, y)", (types.complex64, types.complex64)),
        ("int(x)", (types.complex128, types.int64)),
        ("int(x, 3)", (types.float64, types.int64)),
        ("abs(x, y)", (types.float64, types.int64)),
    ],
)
def test_calls_outside_the_typing_are_typing_errors(source, argtypes):
    with pytest.raises(TypingError):
        _cumlir_type(source, *argtypes)


# ---- PTX -------------------------------------------------------------------------------------------


def every_builtin(out, oi, a, b, n):
    i = cuda.grid(1)
    if i + 1 < a.size:
        out[0] = max(a[i], b[i])
        out[1] = min(a[i], b[i])
        oi[0] = round(a[i])
        out[2] = abs(a[i])
        oi[1] = abs(n[i])
        oi[2] = max(n[i], n[i + 1])
        out[3] = a[i] ** n[i]
        q, r = divmod(n[i], n[i + 1])
        oi[3] = q + r
        out[4] = round(a[i], 3)
        oi[4] = int(b[i]) + min(n[i], n[i + 1], -n[i])


def test_every_builtin_compiles_to_its_instructions(backend):
    ptx, _ = cuda.compile_ptx(
        every_builtin,
        "void(float64[::1], int64[::1], float64[::1], float64[::1], int64[::1])",
        cc=(9, 0),
        backend=backend,
    )
    support.ptxas(ptx)
    # fmax/fmin are PTX's max/min (which ignore one NaN); round is cvt.rni (to nearest even)
    for instruction in ("max.f64", "min.f64", "cvt.rni.f64.f64", "abs.f64", "abs.s64", "max.s64", "div.s64"):
        assert instruction in ptx, instruction
