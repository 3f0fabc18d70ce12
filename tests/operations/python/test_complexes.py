"""Complex numbers (operations/python/complexes.py), their code run on the host
(tests/nrt_harness.py, libdevice's real functions bound to the C library): constants,
conversions to and from every number, ``complex(...)``/``complex64(re, im)``, ``.real``,
``.imag``, ``conjugate()``, ``+ - * /`` and ``**`` against CPython's algorithms (complex64
powers computed in double precision), division by zero as NumPy answers, ``abs``, ``==``/``!=``
with NaN, negation; the typing against numba's; PTX on both code generators.
test_complexes_gpu.py checks what libdevice computes (``abs``, non-integral powers)."""

import functools
import math
import operator

import numpy as np
import pytest
from numba import complex64, complex128
from numba.core import types
from numba.core.errors import TypingError
from numba.core.registry import cpu_target

from cumlir import cuda
from cumlir.compiler import type_function

from ... import nrt_harness, support

OPERATORS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "pow": operator.pow,
}


def arithmetic(out, flags, a, b):
    for i in range(a.size):
        x, y = a[i], b[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x / y
        out[4, i] = x**y
        flags[0, i] = x == y
        flags[1, i] = x != y


def unary(out, parts, flags, a):
    for i in range(a.size):
        z = a[i]
        out[0, i] = -z
        out[1, i] = +z
        out[2, i] = z.conjugate()
        out[3, i] = 1.5 - 2j  # a constant of the array's type once stored
        out[4, i] = complex(z.real, z.imag)
        parts[0, i] = z.real
        parts[1, i] = z.imag
        parts[2, i] = abs(z)
        flags[0, i] = bool(z)
        flags[1, i] = not z


@functools.cache
def _arithmetic_kernel(left, right):
    return nrt_harness.Kernel(
        arithmetic,
        (
            types.complex128[:, ::1],
            types.boolean[:, ::1],
            support.numba_type(left)[::1],
            support.numba_type(right)[::1],
        ),
    )


@functools.cache
def _unary_kernel(dtype):
    ty = support.numba_type(dtype)
    return nrt_harness.Kernel(unary, (ty[:, ::1], ty.underlying_float[:, ::1], types.boolean[:, ::1], ty[::1]))


def _run_arithmetic(a, b):
    out = support.poisoned(5 * a.size, np.complex128).reshape(5, a.size)
    flags = np.full((2, a.size), 7, np.uint8).view(np.bool_)
    _arithmetic_kernel(a.dtype.name, b.dtype.name)(out, flags, a, b)
    return out, flags


def _run_unary(a):
    out = support.poisoned(5 * a.size, a.dtype).reshape(5, a.size)
    parts = support.poisoned(3 * a.size, a.real.dtype).reshape(3, a.size)
    flags = np.full((2, a.size), 7, np.uint8).view(np.bool_)
    _unary_kernel(a.dtype.name)(out, parts, flags, a)
    return out, parts, flags


def _values(dtype, n, rng):
    """Random numbers of *dtype* with parts of magnitudes 1e-3 to 1e3, every sign."""
    kind = np.dtype(dtype).kind
    if kind in "iu":
        return rng.integers(-1000, 1000, n).astype(dtype)
    parts = rng.choice([-1.0, 1.0], (2, n)) * 10.0 ** rng.uniform(-3, 3, (2, n))
    values = parts[0] + 1j * parts[1] if kind == "c" else parts[0]
    return values.astype(dtype)


def _expected(name, a, b):
    """CPython's answer on the operands converted as numba's typing converts them, in double
    precision, then rounded to the result type; and that result type."""
    sig = support.result_signature(OPERATORS[name], a.dtype.name, b.dtype.name)
    ta, tb, tr = (support.dtype_of(t) for t in (*sig.args, sig.return_type))
    found = []
    for x, y in zip(a.astype(ta).tolist(), b.astype(tb).tolist()):
        try:
            found.append(OPERATORS[name](complex(x), complex(y)))
        except (ZeroDivisionError, OverflowError):
            found.append(complex(math.nan, math.nan))
    with np.errstate(over="ignore"):
        return np.array(found).astype(tr), tr


def _within(got, expected, ulps, label, inputs=None):
    """Each part within *ulps* units in the last place of the result type, at the scale of
    |expected| (0: to the last bit), NaN where NaN is expected."""
    eps = float(np.finfo(expected.real.dtype).eps)
    scale = np.abs(expected.astype(np.complex128))
    got, expected = got.astype(np.complex128), expected.astype(np.complex128)
    with np.errstate(invalid="ignore"):
        for part in (np.real, np.imag):
            g, e = part(got), part(expected)
            ok = (g == e) | (np.isnan(g) & np.isnan(e)) | (np.abs(g - e) <= ulps * eps * scale)
            bad = np.flatnonzero(~ok)
            assert not len(bad), f"{label} {part.__name__}: " + ", ".join(
                f"[{k}] {inputs[k] if inputs is not None else ''} got {got[k]!r}, expected {expected[k]!r}"
                for k in bad[:4]
            )


PAIRS = [
    ("complex128", "complex128"),
    ("complex64", "complex64"),
    ("complex64", "complex128"),
    ("complex64", "float32"),
    ("complex128", "int64"),
    ("float64", "complex64"),
]


@pytest.mark.parametrize("left, right", PAIRS)
def test_operators_follow_cpython(left, right, rng):
    a, b = _values(left, 400, rng), _values(right, 400, rng)
    # powers: bases of moderate size, exponents up to 4 (a third of them integral), so that
    # every power is finite
    base = _values(left, 400, rng)
    if np.dtype(left).kind != "i":
        base = np.where(np.abs(base) > 10, base / np.abs(base) * 3, base).astype(left)
    exponent = b.astype(np.complex128) if np.dtype(right).kind == "c" else b
    exponent = np.where(np.abs(exponent) > 4, exponent / np.abs(exponent) * 2.5, exponent)
    exponent = np.where(rng.random(400) < 0.3, np.round(exponent.real), exponent)
    exponent = (exponent if np.dtype(right).kind == "c" else exponent.real).astype(right)
    out, flags = _run_arithmetic(np.concatenate([a, base]), np.concatenate([b, exponent]))
    n = a.size
    for row, name in enumerate(OPERATORS):
        x, y = (a, b) if name != "pow" else (base, exponent)
        got = out[row, :n] if name != "pow" else out[row, n:]
        expected, result = _expected(name, x, y)
        if result == np.complex128:
            # double precision: CPython's own algorithms, to the last bit (powers through the
            # C library's pow, exp and log on the host: within a few units)
            ulps = 8 if name == "pow" else 0
        else:
            # complex64: + and - round once; * and / round their partial results in float32;
            # ** computes in double precision and rounds once at the end
            ulps = {"add": 1, "sub": 1, "mul": 4, "truediv": 8, "pow": 1}[name]
        _within(got.astype(result), expected, ulps, f"{left} {name} {right}")
    with np.errstate(invalid="ignore"):
        equal = a.astype(np.complex128) == b.astype(np.complex128)
    np.testing.assert_array_equal(flags[0, :n], equal)
    np.testing.assert_array_equal(flags[1, :n], ~equal)


def test_integral_powers_are_cpythons_repeated_squaring(rng):
    # integral exponents up to 100 multiply exactly as CPython does (its c_powi), beyond that
    # CPython's _Py_c_pow; negative ones divide 1 by the power
    n = np.concatenate([np.arange(-100, 101), [101, -101, 150, 1000]]).astype(np.float64)
    z = np.exp(1j * rng.uniform(-np.pi, np.pi, n.size)) * rng.uniform(0.95, 1.05, n.size)
    out, _ = _run_arithmetic(z, n.astype(np.complex128))
    expected = np.array([complex(a) ** complex(b) for a, b in zip(z.tolist(), n.tolist())])
    integral = np.abs(n) <= 100
    _within(out[4][integral], expected[integral], 0, "z ** n", n[integral])
    _within(out[4][~integral], expected[~integral], 64, "z ** n", n[~integral])


def test_complex64_powers_are_computed_in_double_precision(rng):
    # in float32 the repeated squaring of z ** 97 would lose tens of units; rounded once from
    # double precision it is the correctly rounded complex64 of CPython's result but for ties
    z = (np.exp(1j * rng.uniform(-np.pi, np.pi, 300)) * rng.uniform(0.97, 1.03, 300)).astype(np.complex64)
    n = rng.integers(40, 101, 300).astype(np.complex64)
    out, _ = _run_arithmetic(z, n)
    expected = np.array([complex(a) ** complex(b) for a, b in zip(z.tolist(), n.tolist())]).astype(np.complex64)
    _within(out[4].astype(np.complex64), expected, 1, "complex64 ** n")


def test_zero_to_a_power():
    zero = np.zeros(7, np.complex128)
    exponents = np.array([0, 2, 2.5, 0.5j, -2.5, -1 + 1j, -1], np.complex128)
    out, _ = _run_arithmetic(zero, exponents)
    # 0 ** 0 is 1, 0 ** a positive real 0, as in CPython
    assert out[4, :3].tolist() == [1, 0, 0]
    # where CPython raises: NaN for a negative or complex exponent, 1 / 0 (NumPy's division)
    # for a negative integer
    assert np.isnan(out[4, 3:6].real).all() and np.isnan(out[4, 3:6].imag).all()
    with np.errstate(all="ignore"):
        _within(out[4, 6:], np.array([1 + 0j]) / np.array([0j]), 0, "0 ** -1")


def test_division_by_zero_is_numpys():
    parts = [0.0, -0.0, 1.0, -2.0, math.inf, math.nan]
    a = np.array([complex(x, y) for x in parts for y in parts])
    for divisor in (complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)):
        b = np.full(a.size, divisor)
        out, _ = _run_arithmetic(a, b)
        with np.errstate(all="ignore"):
            expected = a / b
        _within(out[3], expected, 0, f"/ {divisor!r}", a)


def test_division_of_extreme_values_avoids_overflow():
    # CPython's scaling by the larger part of the divisor: no overflow or underflow between
    a = np.array([1e300 + 1e300j, 1e-300 + 1e-300j, 3 + 4j, 1e308 - 1e308j])
    b = np.array([1e300 + 1e299j, 1e-300 - 1e-301j, 1e-310 + 1e-310j, 1e308 + 1e307j])
    out, _ = _run_arithmetic(a, b)
    _within(out[3], np.array([complex(x) / complex(y) for x, y in zip(a.tolist(), b.tolist())]), 0, "/")


SPECIAL = [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_unary_operations_parts_and_truth(dtype, rng):
    specials = np.array([complex(x, y) for x in SPECIAL for y in SPECIAL])
    a = np.concatenate([specials, _values(dtype, 200, rng)]).astype(dtype)
    out, parts, flags = _run_unary(a)
    wide = a.astype(np.complex128)
    # negation and conjugation flip signs only, zeros and NaN included
    for row, (real, imag) in enumerate([(-wide.real, -wide.imag), (wide.real, wide.imag), (wide.real, -wide.imag)]):
        np.testing.assert_array_equal(out[row].real, real.astype(a.real.dtype))
        np.testing.assert_array_equal(np.signbit(out[row].real), np.signbit(real))
        np.testing.assert_array_equal(out[row].imag, imag.astype(a.real.dtype))
        np.testing.assert_array_equal(np.signbit(out[row].imag), np.signbit(imag))
    np.testing.assert_array_equal(out[3], np.full(a.size, 1.5 - 2j, dtype))
    np.testing.assert_array_equal(out[4].view(a.real.dtype), a.view(a.real.dtype))  # bit for bit
    np.testing.assert_array_equal(parts[0].view(a.real.dtype), a.real)
    np.testing.assert_array_equal(parts[1].view(a.real.dtype), a.imag)
    # abs: hypot (an infinite part gives inf, even beside a NaN)
    expected = np.array([abs(v) for v in wide.tolist()]).astype(a.real.dtype)
    np.testing.assert_allclose(parts[2], expected, rtol=np.finfo(a.real.dtype).eps, atol=0)
    np.testing.assert_array_equal(flags[0], [bool(v) for v in wide.tolist()])  # NaN is true
    np.testing.assert_array_equal(flags[1], [not v for v in wide.tolist()])


# ---- construction and conversions ------------------------------------------------------------


def conversions(c64, c128, flags, reals, ints, zs):
    for i in range(reals.size):
        x, n, z = reals[i], ints[i], zs[i]
        c64[0, i] = z  # complex128 -> complex64: each part rounded
        c128[0, i] = complex64(z)  # and back, exactly
        c64[1, i] = x  # a real part and a zero imaginary part
        c128[1, i] = n  # int64 -> complex128
        c64[2, i] = n  # int64 -> complex64: rounded to float32
        c128[2, i] = complex(x)  # float32 -> complex64 by numba's typing, then stored
        c128[3, i] = complex(x, n)
        c64[3, i] = complex64(n, x)
        c128[4, i] = complex128(x)
        c128[5, i] = x > 0  # a bool: 1 or 0
        c128[6, i] = n.imag + n.conjugate() + complex(0.0, x.real)
        flags[i] = True if z else False  # the truth of a complex number


def _complex(real, imag):
    made = np.empty(len(real), np.complex128)
    made.real, made.imag = real, imag
    return made


def test_conversions_between_numbers(rng):
    n = 300
    reals = np.concatenate([[0.0, -0.0, np.inf, np.nan, 1.5], rng.standard_normal(n - 5) * 1e3]).astype(np.float32)
    ints = np.concatenate([[0, -1, 2**53 + 1, -(2**63), 2**62 + 2**40 + 1], support.random_values("int64", n - 5, rng)])
    zs = np.concatenate(
        [
            [0j, complex(-0.0, 0.0), complex(0.0, math.nan), 1e300 + 1e-300j, 1 + 1j],
            rng.standard_normal(n - 5) + 1j * rng.standard_normal(n - 5),
        ]
    )
    c64 = support.poisoned(4 * n, np.complex64).reshape(4, n)
    c128 = support.poisoned(7 * n, np.complex128).reshape(7, n)
    flags = np.full(n, 7, np.uint8).view(np.bool_)
    argtypes = (
        types.complex64[:, ::1],
        types.complex128[:, ::1],
        types.boolean[::1],
        types.float32[::1],
        types.int64[::1],
        types.complex128[::1],
    )
    nrt_harness.Kernel(conversions, argtypes)(c64, c128, flags, reals, ints, zs)
    with np.errstate(over="ignore"):
        rounded = zs.astype(np.complex64)
    np.testing.assert_array_equal(c64[0], rounded)
    np.testing.assert_array_equal(c128[0], rounded.astype(np.complex128))
    np.testing.assert_array_equal(c64[1], reals.astype(np.complex64))
    np.testing.assert_array_equal(c128[1].real, [float(v) for v in ints.tolist()])  # to nearest
    np.testing.assert_array_equal(c128[1].imag, 0.0)
    np.testing.assert_array_equal(c64[2], ints.astype(np.complex64))
    np.testing.assert_array_equal(c128[2], reals.astype(np.complex128))
    np.testing.assert_array_equal(c128[3], _complex(reals, ints))
    np.testing.assert_array_equal(c64[3].real, ints.astype(np.float32))
    np.testing.assert_array_equal(c64[3].imag, reals)
    np.testing.assert_array_equal(c128[4], reals.astype(np.complex128))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(c128[5], (reals > 0).astype(np.complex128))
    # int64 .imag is 0 and .conjugate() the integer itself; a float's .real the float
    np.testing.assert_array_equal(c128[6].real, ints.astype(np.float64))
    np.testing.assert_array_equal(c128[6].imag, reals.astype(np.float64))
    np.testing.assert_array_equal(flags, [bool(v) for v in zs.tolist()])


def from_parts(re, im, out64, out128):
    i = cuda.grid(1)
    if i < out64.size:
        out64[i] = complex64(re[i], im[i])
        out128[i] = complex128(re[i], 2)


def test_complex_constructors_type_their_class():
    from numba.core import types

    from cumlir import compiler

    typed = compiler.type_function(
        from_parts, (types.float64[:], types.int32[:], types.complex64[:], types.complex128[:])
    )
    made = {str(t) for t in typed.calltypes.values() if t is not None and "complex" in str(t.return_type)}
    assert "(float64, int32) -> complex64" in made
    assert any(t.startswith("(float64, ") and t.endswith("-> complex128") for t in made), made
    with pytest.raises(Exception, match="complex64"):
        cuda.compile_ptx(
            lambda a, out: out.__setitem__(0, complex64(a[0], a[0], a[0])), "void(float32[:], complex64[:])", cc=(9, 0)
        )


# ---- typing ------------------------------------------------------------------------------------


def _cumlir_type(source, *argtypes):
    scope = {}
    exec(f"def f(x, y):\n    return {source}\n", scope)
    return type_function(scope["f"], argtypes).return_type


_NUMERIC = [types.complex64, types.complex128, types.float32, types.float64, types.int32, types.uint64]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow", "eq", "ne"])
def test_typing_is_numbas(op):
    fn = getattr(operator, op)
    context = cpu_target.typing_context
    context.refresh()
    for left in _NUMERIC:
        for right in _NUMERIC:
            if types.complex64 not in (left, right) and types.complex128 not in (left, right):
                continue
            ours = support.result_signature(fn, str(left), str(right))
            theirs = context.resolve_function_type(fn, (left, right), {})
            assert ours == theirs, (op, left, right)


@pytest.mark.parametrize(
    "source, argtypes, expected",
    [
        ("abs(x)", (types.complex64, types.int8), types.float32),
        ("abs(x)", (types.complex128, types.int8), types.float64),
        ("x.real", (types.complex64, types.int8), types.float32),
        ("x.imag", (types.int16, types.int8), types.int16),
        ("x.conjugate()", (types.complex64, types.int8), types.complex64),
        ("x.conjugate()", (types.uint16, types.int8), types.uint16),
        ("complex(x, y)", (types.float32, types.float32), types.complex64),
        ("complex(x, y)", (types.int8, types.float32), types.complex128),
        ("complex(x)", (types.float32, types.int8), types.complex64),
        ("-x", (types.complex64, types.int8), types.complex64),
        ("not x", (types.complex64, types.int8), types.boolean),
    ],
)
def test_methods_and_constructors_are_typed_as_numba_types_them(source, argtypes, expected):
    assert _cumlir_type(source, *argtypes) == expected


@pytest.mark.parametrize("source", ["x < y", "x // y", "x % y", "x & y", "int(x)", "float(x)"])
def test_what_complex_numbers_lack_is_a_typing_error(source):
    # complex numbers are not ordered, floored or converted to a real
    with pytest.raises(TypingError):
        _cumlir_type(source, types.complex64, types.complex128)


# ---- PTX ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("left, right", [("complex64", "complex64"), ("complex128", "float64")])
def test_operators_compile_and_assemble(left, right, backend):
    sig = f"void(complex128[:, ::1], boolean[:, ::1], {left}[::1], {right}[::1])"
    ptx, _ = cuda.compile_ptx(arithmetic, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    ptx, _ = cuda.compile_ptx(
        unary,
        f"void({left}[:, ::1], {'float32' if left == 'complex64' else 'float64'}[:, ::1], boolean[:, ::1], {left}[::1])",
        cc=(9, 0),
        backend=backend,
    )
    support.ptxas(ptx)


def test_complex_constructors_assemble(backend):
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(
            from_parts, "void(float64[:], int32[:], complex64[:], complex128[:])", cc=cc, backend=backend
        )
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
