"""Numbers and booleans (operations/python/scalars.py), their code run on the host
(tests/nrt_harness.py) on boundary and random values: every arithmetic, bitwise, shift and
comparison operator on pairs of integer, boolean and float types against Python (integers
wrapped to numba's result type; ``//`` and ``%`` floored, by zero 0 for integers and ``a / b``
and NaN for floats, as numba-cuda's error model has it; shifts by the width or more as the GPU's
instructions), unary operators, conversions between every pair of types (stored and called),
constants (beyond int64 too: the nearest float), ``is None``, omitted arguments and ``raise``;
the typing against numba's own; PTX on both code generators."""

import functools
import math
import operator
from fractions import Fraction

import numba
import numpy as np
import pytest
from numba.core import types
from numba.core.errors import LoweringError, TypingError
from numba.core.registry import cpu_target

from cumlir import cuda
from cumlir import types as cumlir_types
from cumlir.compiler import type_function

from ... import nrt_harness, support
from ...cases import differential_cases as dc

BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def _generated(name, params, lines):
    """A kernel looping over a's elements with *lines* as its body."""
    source = f"def {name}({', '.join(params)}):\n    for i in range(a.size):\n" + "".join(
        f"        {line}\n" for line in lines
    )
    scope = {"np": np, "math": math}
    exec(compile(source, f"<{name}>", "exec"), scope)
    return scope[name]


def _array_type(dtype, ndim=1):
    return types.Array(numba.from_dtype(np.dtype(dtype)), ndim, "C")


@functools.cache
def _binary_kernel(left, right):
    """Every operator numba types on (left, right), each into a row of the output of its
    result's kind: ints (int64, the bits of any integer result), floats (float64) or flags."""
    rows = {"i": [], "f": [], "b": []}
    lines = []
    for name, op in BINARY.items():
        sig = support.result_signature(op, left, right)
        if sig is None:
            continue
        kind = support.dtype_of(sig.return_type).kind
        kind = {"u": "i", "i": "i", "f": "f", "b": "b"}[kind]
        target = {"i": "ints", "f": "floats", "b": "flags"}[kind]
        second = "e[i]" if name == "pow" else "b[i]"
        lines.append(f"{target}[{len(rows[kind])}, i] = {dc.BINARY[name].format(a='a[i]', b=second)}")
        rows[kind].append((name, sig))
    kernel = _generated(f"binary_{left}_{right}", ["ints", "floats", "flags", "a", "b", "e"], lines)
    argtypes = (
        _array_type("int64", 2),
        _array_type("float64", 2),
        _array_type("bool", 2),
        *(_array_type(t) for t in (left, right, right)),
    )
    return nrt_harness.Kernel(kernel, argtypes), rows


def _operands(left, right, rng):
    """Every pair of boundary values and random pairs; e, exponents that keep integer powers
    meaningful (negatives included for signed types)."""
    a, b = dc.operands("add", left, right, rng)
    _, e = dc.operands("pow", left, right, rng)
    return a, b, e.astype(right)


def _run_binary(left, right, rng):
    kernel, rows = _binary_kernel(left, right)
    a, b, e = _operands(left, right, rng)
    n = a.size
    ints = np.full((max(len(rows["i"]), 1), n), 0x5A, np.int64)
    floats = np.full((max(len(rows["f"]), 1), n), np.nan)
    flags = np.full((max(len(rows["b"]), 1), n), 7, np.uint8).view(np.bool_)
    kernel(ints, floats, flags, a, b, e)
    return a, b, e, rows, {"i": ints, "f": floats, "b": flags}


def _check_rows(a, b, e, rows, outputs, label):
    for kind, entries in rows.items():
        for row, (name, sig) in enumerate(entries):
            expected, rtol = dc.binary_reference(name, sig, a, e if name == "pow" else b)
            got = outputs[kind][row]
            if kind == "i":
                # the bits of the result type, as int64 holds them
                expected = np.asarray(expected).astype(support.dtype_of(sig.return_type)).astype(np.int64)
            dc.compare(got, np.asarray(expected).astype(got.dtype), rtol, f"{label} {name} {sig}")


INTEGER_PAIRS = [
    ("int64", "int64"),
    ("int32", "int32"),
    ("uint64", "uint64"),
    ("uint32", "uint32"),
    ("int8", "uint8"),
    ("int16", "int32"),
    ("int64", "uint64"),
    ("uint64", "int64"),
    ("uint32", "int64"),
    ("bool", "bool"),
    ("bool", "int64"),
]


@pytest.mark.parametrize("left, right", INTEGER_PAIRS)
def test_integer_operators_match_python(left, right, rng):
    # dc.binary_reference: Python's integers wrapped to the result type, // and % floored and 0
    # for a zero divisor or MIN // -1, shifts of the width or more 0 (or the sign), x ** -n
    # numba's values; mixed int64/uint64 arithmetic in float64 as numba types it
    a, b, e, rows, outputs = _run_binary(left, right, rng)
    _check_rows(a, b, e, rows, outputs, f"{left}, {right}:")


def test_integer_floor_division_and_modulo_of_negative_operands():
    # spelled out: Python's floor and the sign of the divisor, where C truncates
    a = np.array([7, -7, 7, -7, -(2**63), -(2**63), 5, 0, -1], np.int64)
    b = np.array([2, 2, -2, -2, -1, 1, 0, -3, 2**63 - 1], np.int64)
    _, rows = _binary_kernel("int64", "int64")
    n = a.size
    ints = np.full((len(rows["i"]), n), 0x5A, np.int64)
    floats, flags = np.full((len(rows["f"]), n), np.nan), np.ones((len(rows["b"]), n), np.bool_)
    _binary_kernel("int64", "int64")[0](ints, floats, flags, a, b, b)
    names = [name for name, _ in rows["i"]]
    assert ints[names.index("floordiv")].tolist() == [3, -4, -4, 3, 0, -(2**63), 0, 0, -1]
    assert ints[names.index("mod")].tolist() == [1, 1, -1, -1, 0, 0, 0, 0, 2**63 - 2]


FLOAT_PAIRS = [
    ("float64", "float64"),
    ("float32", "float32"),
    ("float32", "float64"),
    ("float64", "int64"),
    ("int32", "float32"),
    ("uint64", "float64"),
]


@pytest.mark.parametrize("left, right", FLOAT_PAIRS)
def test_float_operators_match_numpy_in_their_precision(left, right, rng):
    # one rounding per operation in the result type; // and % CPython's float_divmod, by zero
    # a / b and NaN; ** the C library's pow (libdevice's on the GPU)
    a, b, e, rows, outputs = _run_binary(left, right, rng)
    _check_rows(a, b, e, rows, outputs, f"{left}, {right}:")


def test_float64_floor_division_and_modulo_are_pythons(rng):
    a, b, e, rows, outputs = _run_binary("float64", "float64", rng)
    names = [name for name, _ in rows["f"]]
    nonzero = b != 0
    for name, op in (("floordiv", operator.floordiv), ("mod", operator.mod)):
        got = outputs["f"][names.index(name)][nonzero]
        expected = np.array([op(x, y) for x, y in zip(a[nonzero].tolist(), b[nonzero].tolist())])
        same = (got == expected) & (np.signbit(got) == np.signbit(expected)) | (np.isnan(got) & np.isnan(expected))
        assert same.all(), [(a[nonzero][k], b[nonzero][k], got[k], expected[k]) for k in np.flatnonzero(~same)[:5]]


# ---- unary operators --------------------------------------------------------------------------------

UNARY = ["neg", "pos", "invert", "not", "bool", "int", "float"]


@functools.cache
def _unary_kernel(dtype):
    rows = {"i": [], "f": [], "b": []}
    lines = []
    for name in UNARY:
        typed = dc.scalar_case(dc.UNARY[name], dtype, dtype)
        if typed is None:
            continue
        sig, result = typed
        kind = {"u": "i", "i": "i", "f": "f", "b": "b"}[support.dtype_of(result).kind]
        target = {"i": "ints", "f": "floats", "b": "flags"}[kind]
        lines.append(f"{target}[{len(rows[kind])}, i] = {dc.UNARY[name].format(a='a[i]')}")
        rows[kind].append((name, sig, result))
    kernel = _generated(f"unary_{dtype}", ["ints", "floats", "flags", "a"], lines)
    argtypes = (_array_type("int64", 2), _array_type("float64", 2), _array_type("bool", 2), _array_type(dtype))
    return nrt_harness.Kernel(kernel, argtypes), rows


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "uint8", "uint32", "uint64", "bool", "float32", "float64"])
def test_unary_operators(dtype, rng):
    # -x of a signed value widens first (-int16(-32768) is 32768), of an unsigned one wraps in
    # its own width (-uint32(1) is 2**32 - 1), ~ likewise; -True is -1 and ~True is False
    kernel, rows = _unary_kernel(dtype)
    a = np.concatenate([dc.boundary(dtype), dc.draw(dtype, 200, rng)])
    if a.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            a = a[np.isfinite(a) & (np.abs(a) < 2.0**62)]  # int() is defined where it fits
    n = a.size
    ints = np.full((max(len(rows["i"]), 1), n), 0x5A, np.int64)
    floats = np.full((max(len(rows["f"]), 1), n), np.nan)
    flags = np.full((max(len(rows["b"]), 1), n), 7, np.uint8).view(np.bool_)
    kernel(ints, floats, flags, a)
    outputs = {"i": ints, "f": floats, "b": flags}
    for kind, entries in rows.items():
        for row, (name, sig, result) in enumerate(entries):
            expected, rtol = dc.unary_reference(name, sig, result, a)
            got = outputs[kind][row]
            expected = np.asarray(expected).astype(support.dtype_of(result)).astype(got.dtype)
            dc.compare(got, expected, rtol, f"{name}({dtype})")


def test_negation_of_the_most_negative_values():
    def kernel(out, signed8, signed16, unsigned, floats, truth):
        out[0] = -signed8[0]
        out[1] = -signed16[0]
        out[2] = -unsigned[0]
        out[3] = ~unsigned[1]
        out[4] = -truth[0]  # numba's: -1 (CPython folds the literal -True to -1 as well)
        out[5] = ~truth[0]  # numba's: logical not (CPython's ~True is -2)
        out[6] = -floats[0] == 0.0
        out[7] = math.copysign(1.0, -floats[0]) < 0.0

    out = np.full(8, 0x5A, np.int64)
    argtypes = (
        types.int64[::1],
        types.int8[::1],
        types.int16[::1],
        types.uint32[::1],
        types.float64[::1],
        types.boolean[::1],
    )
    nrt_harness.Kernel(kernel, argtypes)(
        out,
        np.array([-128], np.int8),
        np.array([-32768], np.int16),
        np.array([1, 0], np.uint32),
        np.zeros(1),
        np.ones(1, bool),
    )
    assert out.tolist() == [128, 32768, 2**32 - 1, 2**32 - 1, -1, 0, 1, 1]


# ---- conversions -----------------------------------------------------------------------------------

CONVERSION_TYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
]


@functools.cache
def _conversion_kernel(source):
    """a[i] stored into an array of every type (the cast of setitem), and converted by a call
    of the type (np.int8(x), bool(x))."""
    lines = []
    for k, target in enumerate(CONVERSION_TYPES):
        call = "bool" if target == "bool" else f"np.{target}"
        lines += [f"stored_{k}[i] = a[i]", f"called_{k}[i] = {call}(a[i])"]
    params = [f"{kind}_{k}" for k in range(len(CONVERSION_TYPES)) for kind in ("stored", "called")] + ["a"]
    kernel = _generated(f"convert_{source}", params, lines)
    argtypes = [_array_type(t) for t in CONVERSION_TYPES for _ in range(2)] + [_array_type(source)]
    return nrt_harness.Kernel(kernel, tuple(argtypes))


@pytest.mark.parametrize("source", CONVERSION_TYPES)
def test_conversions_to_every_type_are_numpys(source, rng):
    a = np.concatenate([support.boundary_values(source), support.random_values(source, 200, rng)])
    if source.startswith("float"):
        a = np.concatenate([a, np.array([0.5, -0.5, 0.999, -1.999, 255.5, -128.7], source)])
    outputs = []
    for target in CONVERSION_TYPES:
        outputs += [support.poisoned(a.size, target), support.poisoned(a.size, target)]
    _conversion_kernel(source)(*outputs, a)
    for k, target in enumerate(CONVERSION_TYPES):
        dtype = np.dtype(target)
        keep = np.ones(a.size, bool)
        if a.dtype.kind == "f" and dtype.kind in "iu":
            # a float converts to an integer type only where it fits (truncated toward zero)
            info = np.iinfo(dtype)
            with np.errstate(invalid="ignore"):
                keep = np.isfinite(a) & (a > float(info.min) - 1) & (a < float(info.max) + 1)
        with np.errstate(all="ignore"):
            expected = a[keep].astype(dtype)  # integers wrap; floats round to nearest; NaN is true
        for kind, got in (("stored", outputs[2 * k]), ("called", outputs[2 * k + 1])):
            support.assert_matches(got[keep], expected, f"{source} -> {target} ({kind})")


def test_uint64_to_float_rounds_to_nearest_even():
    # above 2**63 the unsigned conversion: its halfway cases round to even, as NumPy's
    a = np.array(
        [2**64 - 1, 2**63 + 2**10, 2**63 + 2**11 + 2**10, 2**53 + 1, 2**63 + 2**39, 2**63 + 3 * 2**39], np.uint64
    )
    outputs = [support.poisoned(a.size, t) for t in CONVERSION_TYPES for _ in range(2)]
    _conversion_kernel("uint64")(*outputs, a)
    for target in ("float32", "float64"):
        k = CONVERSION_TYPES.index(target)
        exact = [_nearest(int(v), np.dtype(target)) for v in a.tolist()]
        np.testing.assert_array_equal(outputs[2 * k], exact)
        np.testing.assert_array_equal(outputs[2 * k + 1], exact)


def _conversions_of(fmt):
    def cumlir_floats(converted, stored, truncated, a):
        for j in range(a.size):
            x = fmt(a[j])
            converted[j] = float(x)
            stored[j] = x  # the cast to float64
            truncated[j] = int(x)

    return cumlir_floats


@pytest.mark.parametrize("name", ["tf32", "f8E4M3FN", "f8E5M2", "f4E2M1FN", "bfloat16"])
def test_float_and_int_of_cumlirs_floats_convert_as_a_float_does(name, rng):
    # numba's float() and int() know its own numbers only; cumlir's formats convert as floats:
    # float() to float64, int() truncated to int64
    fmt = getattr(cumlir_types, name)
    assert _type_of("float(x)", fmt) == types.float64 and _type_of("int(x)", fmt) == types.int64
    if name == "bfloat16":
        return  # its conversions call routines the host's JIT lacks (the GPU tier runs them)
    a = np.concatenate([[0.0, -0.0, 1.5, -2.75, 0.4, -0.6], rng.standard_normal(200) * 4]).astype(np.float32)
    converted, stored, truncated = np.full(a.size, np.nan), np.full(a.size, np.nan), np.full(a.size, 0x5A, np.int64)
    # sm_75: the conversions of these formats in integer code, which the host runs
    kernel = nrt_harness.Kernel(
        _conversions_of(fmt),
        (types.float64[::1], types.float64[::1], types.int64[::1], types.float32[::1]),
        cc=(7, 5),
    )
    kernel(converted, stored, truncated, a)
    np.testing.assert_array_equal(converted, stored)
    finite = np.isfinite(stored)
    np.testing.assert_array_equal(truncated[finite], np.trunc(stored[finite]).astype(np.int64))
    if name.startswith("f"):
        ml_dtypes = pytest.importorskip("ml_dtypes")  # the narrow formats' reference rounding
        np.testing.assert_array_equal(stored, a.astype(getattr(ml_dtypes, _ML_DTYPES[name])).astype(np.float64))


_ML_DTYPES = {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2", "f4E2M1FN": "float4_e2m1fn"}


def _type_of(source, *argtypes):
    names = ", ".join("xyz"[: len(argtypes)])
    scope = {}
    exec(f"def f({names}):\n    return {source}\n", scope)
    return type_function(scope["f"], argtypes).return_type


# ---- constants ---------------------------------------------------------------------------------------


def _nearest(value, dtype):
    """The float of *dtype* nearest the integer *value*, ties to the even significand, found
    by comparing exact distances (an overflow is infinity)."""
    dtype = np.dtype(dtype)
    with np.errstate(over="ignore"):
        guess = (
            np.array(float(value), np.float64).astype(dtype)
            if abs(value) < 2**1024
            else dtype.type(math.copysign(math.inf, value))
        )
    candidates = [np.nextafter(guess, dtype.type(-math.inf)), guess, np.nextafter(guess, dtype.type(math.inf))]
    top = Fraction(2) ** (np.finfo(dtype).maxexp)  # where rounding with an unbounded exponent meets infinity

    def exact(c):
        return Fraction(float(c)) if np.isfinite(c) else math.copysign(1, c) * top

    def key(c):
        bits = int(np.array(c, dtype).view({4: np.uint32, 8: np.uint64}[dtype.itemsize]))
        return (abs(exact(c) - value), bits & 1)

    return min(candidates, key=key)


def constants(i64, u64, i8, f64, f32, flags):
    i64[0] = -1
    i64[1] = 2**63 - 1
    i64[2] = -(2**63)
    i64[3] = 2**40 + 3
    u64[0] = 2**64 - 1  # typed uint64, as numba types it
    u64[1] = 2**63
    i8[0] = -128
    i8[1] = 255  # wraps, as numba stores it
    f64[0] = 2**70  # beyond int64: the nearest float
    f64[1] = 10**30
    f64[2] = -(2**70)
    f64[3] = 2**70 + 2**18 + 1
    f64[4] = 1.5
    f32[0] = 2**70 + 2**46 + 1  # float64 would round to a tie of float32 first
    f32[1] = 10**30
    f32[2] = 2**128 - 2**103  # halfway from the largest float32 to 2**128: to even, infinity
    f32[3] = 2**128 - 2**103 - 1  # the largest float32
    f32[4] = -(10**40)
    x, y = (3, 2.5)  # a tuple constant
    f64[5] = x * y
    flags[0] = True
    flags[1] = not 0.0


CONSTANT_VALUES = {
    "f64": [2**70, 10**30, -(2**70), 2**70 + 2**18 + 1],
    "f32": [2**70 + 2**46 + 1, 10**30, 2**128 - 2**103, 2**128 - 2**103 - 1, -(10**40)],
}


def test_constants_of_every_size():
    arrays = [
        np.full(5, 0x5A, np.int64),
        np.full(2, 0x5A, np.uint64),
        np.full(2, 0x5A, np.int8),
        np.full(6, np.nan),
        np.full(5, np.nan, np.float32),
        np.zeros(2, np.bool_),
    ]
    argtypes = tuple(numba.typeof(x) for x in arrays)
    nrt_harness.Kernel(constants, argtypes)(*arrays)
    i64, u64, i8, f64, f32, flags = arrays
    assert i64[:4].tolist() == [-1, 2**63 - 1, -(2**63), 2**40 + 3]
    assert u64.tolist() == [2**64 - 1, 2**63]
    assert i8.tolist() == [-128, -1]
    assert f64[:4].tolist() == [_nearest(v, np.float64) for v in CONSTANT_VALUES["f64"]]
    assert f64[4:].tolist() == [1.5, 7.5]
    expected32 = [_nearest(v, np.float32) for v in CONSTANT_VALUES["f32"]]
    assert f32.tolist() == [float(v) for v in expected32]
    assert f32[0] == np.float32(2**70 + 2**47)  # not the 2**70 that rounding twice gives
    assert math.isinf(f32[2]) and f32[3] == np.finfo(np.float32).max and f32[4] == -math.inf
    assert flags.tolist() == [True, True]


def test_a_constant_beyond_int64_stored_into_an_integer_is_a_typing_error():
    def kernel(out):
        out[0] = 2**70

    with pytest.raises(TypingError, match="the integer constant 1180591620717411303424 does not fit int64"):
        cuda.compile_ptx(kernel, "void(int64[::1])", cc=(9, 0))


def floats_of_strings(out32, out64):
    out64[0] = float("inf")
    out64[1] = float("-inf")
    out64[2] = float("nan")
    out64[3] = float(" 1e-3 ")
    out32[0] = np.float32(float("-inf"))
    out32[1] = np.float32(float("0.1"))


def test_float_of_a_string_constant_is_pythons():
    out32, out64 = np.full(2, 7.0, np.float32), np.full(4, 7.0)
    nrt_harness.Kernel(floats_of_strings, (types.float32[::1], types.float64[::1]))(out32, out64)
    assert out64[:2].tolist() == [math.inf, -math.inf] and math.isnan(out64[2]) and out64[3] == 1e-3
    assert out32.tolist() == [-math.inf, float(np.float32(0.1))]


def test_float_of_a_string_that_is_no_number_names_it():
    def kernel(out):
        out[0] = float("two")

    with pytest.raises(LoweringError, match="float\\('two'\\) has no value: could not convert"):
        cuda.compile_ptx(kernel, "void(float64[::1])", cc=(9, 0))


# ---- is None, omitted arguments, exceptions ------------------------------------------------------------


@cuda.jit(device=True)
def scaled(x, factor=None, offset=2):
    if factor is None:
        return x + offset
    return x * factor + offset


def identities(out, a):
    for i in range(a.size):
        out[0, i] = scaled(a[i])
        out[1, i] = scaled(a[i], 3)
        out[2, i] = scaled(a[i], 3, -1)
        out[3, i] = (None is None) + 2 * (a is not None) + 4 * (None is not None) + 8 * (a is None)


def test_is_none_and_omitted_arguments():
    a = np.arange(-3, 4, dtype=np.int64)
    out = np.full((4, a.size), 0x5A, np.int64)
    nrt_harness.Kernel(identities, (types.int64[:, ::1], types.int64[::1]))(out, a)
    np.testing.assert_array_equal(out, [a + 2, 3 * a + 2, 3 * a - 1, np.full(a.size, 3)])


def _boolean_identities(out, a):
    for i in range(a.size - 1):
        x, y = a[i] > 0, a[i + 1] > 0
        out[0, i] = x is y
        out[1, i] = x is not y
        out[2, i] = (x is True) + 2 * (y is not False)


def test_is_between_booleans_compares_their_values():
    a = np.array([3, -1, -2, 5, 7, 0, -4, 1], np.int64)
    out = np.full((3, a.size - 1), 0x5A, np.int64)
    nrt_harness.Kernel(_boolean_identities, (types.int64[:, ::1], types.int64[::1]))(out, a)
    x, y = a[:-1] > 0, a[1:] > 0
    np.testing.assert_array_equal(out, [x == y, x != y, x + 2 * y])


def test_is_between_values_other_than_none_is_refused():
    def kernel(out, a):
        out[0] = a[0] is a[1]

    with pytest.raises(Exception, match="'is' between values of types int64 and int64 is not supported"):
        cuda.compile_ptx(kernel, "void(boolean[::1], int64[::1])", cc=(9, 0))


def test_raise_ends_the_thread():
    # without debug=True an exception has no value: raising ends the (one host) thread
    def kernel(out, a):
        for i in range(a.size):
            if a[i] < 0:
                raise ValueError("negative", i)
            out[i] = a[i]

    out = np.zeros(4)
    nrt_harness.Kernel(kernel, (types.float64[::1], types.float64[::1]))(out, np.array([1.5, 2.5, -1.0, 3.0]))
    assert out.tolist() == [1.5, 2.5, 0.0, 0.0]


# ---- typing --------------------------------------------------------------------------------------------

TYPING_TYPES = ["bool", "int8", "uint32", "int64", "uint64", "float32", "float64"]


@pytest.mark.parametrize("op", sorted(BINARY), ids=str)
def test_operator_typing_is_numbas(op):
    # cumlir's typing context types numbers as numba's CPU target does
    fn = BINARY[op]
    context = cpu_target.typing_context
    context.refresh()
    for left in TYPING_TYPES:
        for right in TYPING_TYPES:
            try:
                theirs = context.resolve_function_type(fn, (support.numba_type(left), support.numba_type(right)), {})
            except TypingError:
                theirs = None
            assert support.result_signature(fn, left, right) == theirs, (left, right)


# ---- PTX ------------------------------------------------------------------------------------------------


def signed_and_unsigned(out, s, u):
    i = cuda.grid(1)
    if i + 1 < s.size:
        out[0] = s[i] // s[i + 1]
        out[1] = u[i] // u[i + 1]
        out[2] = s[i] >> s[i + 1]
        out[3] = u[i] >> u[i + 1]
        out[4] = s[i] < s[i + 1]
        out[5] = u[i] < u[i + 1]
        out[6] = s[i] << u[i]


def test_signedness_chooses_the_instructions(backend):
    ptx, _ = cuda.compile_ptx(
        signed_and_unsigned, "void(int64[::1], int64[::1], uint64[::1])", cc=(9, 0), backend=backend
    )
    support.ptxas(ptx)
    for instruction in ("div.s64", "div.u64", "shr.s64", "shr.u64", "setp.lt.s64", "setp.lt.u64", "shl.b64"):
        assert instruction in ptx, instruction


@pytest.mark.parametrize("left, right", [("int64", "uint32"), ("float32", "float64")])
def test_every_operator_compiles_and_assembles(left, right, backend):
    typed = [name for name, op in BINARY.items() if support.result_signature(op, left, right) is not None]
    lines = [f"out[{k}] = {dc.BINARY[name].format(a='a[i]', b='b[i]')}" for k, name in enumerate(typed)]
    kernel = _generated(f"operators_{left}_{right}", ["out", "a", "b"], lines)
    ptx, _ = cuda.compile_ptx(
        kernel, (types.float64[::1], _array_type(left), _array_type(right)), cc=(9, 0), backend=backend
    )
    support.ptxas(ptx)
