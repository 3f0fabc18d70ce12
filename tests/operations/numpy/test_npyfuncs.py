"""NumPy ufuncs in kernels (operations/numpy/npyfuncs.py): every ufunc of the module on scalars
and on arrays with their output array, the array operators making new arrays (and the
in-place ones storing into their left operand), 0-d arrays giving scalars, ``np.sign`` and
``np.rint`` on scalars.

The generated code runs on the host (tests/nrt_harness.py: libdevice's routines bound to the
C library's, a checking stand-in of the device runtime that must balance) on random values of
several dtypes with NaN, infinities and signed zeros among the floats, outputs poisoned,
compared with NumPy: exactly for integers and booleans, within a few ulps for floats. Result
types against NumPy's; new arrays refused with ``nrt=False``; the PTX on both code
generators. (Mixed dtypes, promoted as numba promotes them, are tests/test_array_expressions.py's.)"""

import functools
import warnings

import numpy as np
import pytest
from numba import typeof
from numba.core import errors, types

from cumlir import compiler, cuda
from cumlir.operations.numpy import npyfuncs

from ... import nrt_harness, support

UFUNCS = list(dict.fromkeys([*npyfuncs._EQUIVALENTS, *npyfuncs._PYTHON]))
UNARY = [u for u in UFUNCS if u.nin == 1]
BINARY = [u for u in UFUNCS if u.nin == 2]
# the integer dtypes numba gives true division a float32 result (NumPy: float64; docs/semantics.md)
NARROW = ("bool", "int8", "uint8", "int16", "uint16")


# the ufuncs NumPy and numba take on complex numbers and cumlir refuses by name
COMPLEX_REFUSED = [u for u, (_, of_complex) in npyfuncs._EQUIVALENTS.items() if of_complex is None]
COMPLEX_REFUSED = [
    u for u in COMPLEX_REFUSED if u not in npyfuncs._COMPLEX_PYTHON and u not in npyfuncs._COMPLEX_UNARY_PYTHON
]


def _numpy_result(ufunc, dtype):
    """NumPy's result dtype of *ufunc* on arrays of *dtype*, or None where NumPy refuses it,
    where cumlir refuses it (COMPLEX_REFUSED) or where numba's typing (Numba-CUDA's) differs on
    purpose: NumPy's float16 results for bool and int8 (numba computes those in float32), true
    division of narrow integers."""
    if np.dtype(dtype).kind == "c" and ufunc in COMPLEX_REFUSED:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = ufunc(*[np.ones(1, dtype)] * ufunc.nin).dtype
    except TypeError:
        return None
    if result == np.float16 or (ufunc is np.true_divide and dtype in NARROW):
        return None
    return result


# ---- the kernels: every ufunc of a dtype, on arrays (into its output row) and on scalars ---------


@functools.cache
def _ufunc_kernel(arity, dtype, scalars):
    """A kernel ``(same, wide, flags, [scalar outputs], *inputs)`` applying every ufunc of *arity*
    NumPy takes on *dtype*: a result of the input's dtype goes to its row of ``same``, a bool to
    ``flags``, any other (float64 for integer inputs, the real part's type for complex ones) to
    ``wide`` (float64); with *scalars*, the same calls on elements into the scalar outputs.
    Returns (kernel, [(ufunc, output, row)])."""
    rows = {"same": [], "wide": [], "flags": []}
    placed = []
    for ufunc in UNARY if arity == 1 else BINARY:
        result = _numpy_result(ufunc, dtype)
        if result is None:
            continue
        output = "same" if result == np.dtype(dtype) else "flags" if result == np.bool_ else "wide"
        placed.append((ufunc, output, len(rows[output])))
        rows[output].append(ufunc)
    inputs = ", ".join(f"x{k}" for k in range(arity))
    elements = ", ".join(f"x{k}[i]" for k in range(arity))
    outputs = "same, wide, flags" + (", s_same, s_wide, s_flags" if scalars else "")
    source = [f"def ufuncs({outputs}, {inputs}):"]
    source += [f"    np.{u.__name__}({inputs}, {output}[{row}])" for u, output, row in placed]
    if scalars:
        source.append("    for i in range(x0.size):")
        source += [f"        s_{output}[{row}, i] = np.{u.__name__}({elements})" for u, output, row in placed]
    namespace = {"np": np}
    exec("\n".join(source) + "\n", namespace)
    return namespace["ufuncs"], placed, {k: max(len(v), 1) for k, v in rows.items()}


def _outputs(dtype, counts, n):
    return [
        support.poisoned(counts["same"] * n, dtype).reshape(counts["same"], n),
        support.poisoned(counts["wide"] * n, "float64").reshape(counts["wide"], n),
        support.poisoned(counts["flags"] * n, "bool").reshape(counts["flags"], n),
    ]


def _tolerance(ufunc, dtype):
    """Relative tolerance: exact for integer and bool results and for what IEEE rounds exactly;
    a few ulps where the C library and NumPy compute a function each their own way."""
    exact = (np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive, np.absolute, np.fabs)
    exact += (np.floor, np.ceil, np.trunc, np.sqrt, np.copysign, np.nextafter, np.square, np.reciprocal)
    exact += (np.maximum, np.minimum, np.fmax, np.fmin, np.floor_divide, np.remainder, np.fmod)
    kind = np.dtype(dtype).kind
    if ufunc in exact and kind in "biuf":
        return 0.0
    # integers' transcendental functions compute in float64, where libm and NumPy may differ
    # in the last bit (the glibc of one machine rounds sinh(2) up, NumPy down)
    resolution = np.finfo(np.complex64 if dtype == "complex64" else np.float32 if dtype == "float32" else np.float64)
    return (64 if kind == "c" else 16) * float(resolution.eps)  # cmath's formulas are not NumPy's


def _check(placed, outputs, inputs, dtype, what, near_zero=1e-6):
    """Each ufunc's row against NumPy's result (computed in the dtype numba computes in); results
    next to 0 within *near_zero* times the tolerance of the largest."""
    for ufunc, output, row in placed:
        got = outputs[("same", "wide", "flags").index(output)][row]
        with np.errstate(all="ignore"):
            expected = ufunc(*inputs)
        rtol = _tolerance(ufunc, dtype)
        message = f"{what}: np.{ufunc.__name__} on {dtype}"
        if rtol == 0.0 or expected.dtype.kind in "biu":
            np.testing.assert_array_equal(got, expected.astype(got.dtype), err_msg=message)
        else:
            atol = rtol * np.abs(expected[np.isfinite(expected)]).max(initial=1.0) * near_zero
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=message)


def _floats(dtype, n, rng):
    specials = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, 0.25, 10.0]
    values = rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3, n)
    values[: len(specials)] = specials
    return rng.permutation(values).astype(dtype)


def _unary_values(dtype, n, rng):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if kind in "iu":
        # nonzero (an integer reciprocal of 0 is undefined) and within 2**53 (see the xfail below)
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -(2**53)), min(info.max, 2**53), n, dtype=dtype, endpoint=True)
        values[values == 0] = 1
        values[:4] = [1, 2, 3, -1 if kind == "i" else 4]
        return values
    if kind == "c":
        # finite parts (C99's special cases are cmath's, tests/operations/python/test_cmath.py);
        # equal real parts, the ordering's second key
        real = rng.choice([-1.0, 0.0, 0.5, 2.0], n)
        return (real + 1j * rng.standard_normal(n) * 10.0 ** rng.integers(-2, 2, n)).astype(dtype)
    return _floats(dtype, n, rng)


def _binary_values(dtype, n, rng):
    kind = np.dtype(dtype).kind
    x = _unary_values(dtype, n, rng)
    if kind in "iu":
        x = support.random_values(dtype, n, rng)  # the whole range: sums and products wrap
        if x.itemsize == 8:  # but fmod computes in float64 (see the xfail below)
            x = (x >> np.array(11, x.dtype)).astype(dtype)
        # small positive right operands: shift amounts within the width, powers NumPy takes;
        # other divisors are tests of their own
        return x, rng.integers(1, 8, n).astype(dtype)
    y = _unary_values(dtype, n, rng)
    if kind == "f":
        y[:4] = [0.0, -0.0, x[2], np.nan]  # zero divisors, equal values, NaN
    if kind == "c":
        x[1] = complex(np.nan, 1.0)  # NaN: unordered, and kept by maximum, dropped by fmax
        y[:3] = [x[0], x[3], complex(x[2].real, x[2].imag + 1.0)]  # equal values, equal real parts
    return x, y


UNARY_DTYPES = ["bool", "int64", "uint32", "float32", "float64", "complex64", "complex128"]
BINARY_DTYPES = ["bool", "int8", "int64", "uint32", "float32", "float64", "complex128"]
SCALAR_DTYPES = ("int64", "float64", "complex128")  # the scalar forms too (the same rules, called on elements)


@pytest.mark.parametrize("dtype", UNARY_DTYPES)
def test_unary_ufuncs_match_numpy(dtype, rng):
    scalars = dtype in SCALAR_DTYPES
    kernel, placed, counts = _ufunc_kernel(1, dtype, scalars)
    x = _unary_values(dtype, 40, rng)
    outputs = _outputs(dtype, counts, x.size)
    scalar_outputs = _outputs(dtype, counts, x.size) if scalars else []
    argtypes = tuple(typeof(a) for a in (*outputs, *scalar_outputs, x))
    runtime = nrt_harness.Kernel(kernel, argtypes)(*outputs, *scalar_outputs, x)
    runtime.check_balanced()
    assert runtime.stats["alloc"] == 0  # ufuncs given their output allocate nothing
    _check(placed, outputs, (x,), dtype, "arrays")
    if scalars:
        _check(placed, scalar_outputs, (x,), dtype, "scalars")


@pytest.mark.parametrize("dtype", BINARY_DTYPES)
def test_binary_ufuncs_match_numpy(dtype, rng):
    scalars = dtype in SCALAR_DTYPES
    kernel, placed, counts = _ufunc_kernel(2, dtype, scalars)
    x, y = _binary_values(dtype, 40, rng)
    outputs = _outputs(dtype, counts, x.size)
    scalar_outputs = _outputs(dtype, counts, x.size) if scalars else []
    argtypes = tuple(typeof(a) for a in (*outputs, *scalar_outputs, x, y))
    runtime = nrt_harness.Kernel(kernel, argtypes)(*outputs, *scalar_outputs, x, y)
    runtime.check_balanced()
    _check(placed, outputs, (x, y), dtype, "arrays")
    if scalars:
        _check(placed, scalar_outputs, (x, y), dtype, "scalars")


def _divisions(quotients, remainders, x, y):
    np.floor_divide(x, y, quotients)
    np.remainder(x, y, remainders)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "float64"])
def test_division_by_negative_and_zero_divisors_is_numpys(dtype, rng):
    """Floor division and remainder round towards minus infinity; an integer zero divisor
    gives 0, a float one NumPy's a / b (an infinity or NaN) and a NaN remainder."""
    x = support.random_values(dtype, 60, rng) if dtype != "float64" else _floats(dtype, 60, rng)
    y = rng.integers(-4 if np.dtype(dtype).kind != "u" else 0, 5, 60).astype(dtype)
    if dtype == "int8":
        x[0], y[0] = -128, -1  # wraps, as NumPy's
    quotients, remainders = support.poisoned(60, dtype), support.poisoned(60, dtype)
    kernel = nrt_harness.Kernel(_divisions, tuple(typeof(a) for a in (quotients, remainders, x, y)))
    kernel(quotients, remainders, x, y).check_balanced()
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(quotients, np.floor_divide(x, y))
        np.testing.assert_array_equal(remainders, np.remainder(x, y))


@pytest.mark.xfail(
    reason="np.floor/ceil/trunc/fmod of integers are computed in float64: int64 values beyond 2**53 "
    "lose their low bits (NumPy returns them exactly), and fmod by 0 gives INT_MIN (NumPy 0)",
    strict=True,
)
def test_integer_floor_ceil_trunc_and_fmod_are_exact():
    def integer_ufuncs(out, x, y):
        np.floor(x, out[0])
        np.ceil(x, out[1])
        np.trunc(x, out[2])
        np.fmod(x, y, out[3])

    x = np.array([2**53 + 1, 2**62 + 1, -(2**60) - 3, 7], np.int64)
    y = np.array([2, 4, 8, 0], np.int64)
    out = support.poisoned(16, "int64").reshape(4, 4)
    nrt_harness.Kernel(integer_ufuncs, (typeof(out), typeof(x), typeof(y)))(out, x, y).check_balanced()
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out, [np.floor(x), np.ceil(x), np.trunc(x), np.fmod(x, y)])


def _complex_order(lt, le, gt, ge, mx, mn, fmx, fmn, x, y):
    np.less(x, y, lt)
    np.less_equal(x, y, le)
    np.greater(x, y, gt)
    np.greater_equal(x, y, ge)
    np.maximum(x, y, mx)
    np.minimum(x, y, mn)
    np.fmax(x, y, fmx)
    np.fmin(x, y, fmn)


@pytest.mark.xfail(
    reason="complex numbers whose imaginary part is NaN (and real part finite) are ordered by their "
    "real parts: np.less(0j, complex(0.5, nan)) is True and np.maximum(1+0j, complex(0.5, nan)) is "
    "1+0j, where NumPy's comparisons are False and maximum/minimum give the NaN operand",
    strict=True,
)
def test_complex_numbers_with_a_nan_imaginary_part_are_unordered_as_numpys():
    x = np.array([0j, 1 + 0j, complex(0.5, np.nan), complex(0.5, np.nan), 2 + 1j])
    y = np.array([complex(0.5, np.nan), complex(0.5, np.nan), 0.5 + 0j, complex(0.5, np.nan), 2 + 3j])
    outputs = [support.poisoned(5, "bool") for _ in range(4)] + [np.full(5, 7 + 7j) for _ in range(4)]
    kernel = nrt_harness.Kernel(_complex_order, tuple(typeof(a) for a in (*outputs, x, y)))
    kernel(*outputs, x, y).check_balanced()
    with np.errstate(all="ignore"):
        expected = [f(x, y) for f in (np.less, np.less_equal, np.greater, np.greater_equal)]
        expected += [f(x, y) for f in (np.maximum, np.minimum, np.fmax, np.fmin)]
    for got, want in zip(outputs, expected):
        np.testing.assert_array_equal(got, want)


def _complex_truth(nots, ands, ors, xors, element_nots, x, y):
    np.logical_not(x, nots)
    np.logical_and(x, y, ands)
    np.logical_or(x, y, ors)
    np.logical_xor(x, y, xors)
    for i in range(x.size):
        element_nots[i] = np.logical_not(x[i])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_logical_ufuncs_of_complex_numbers_are_numpys(dtype, rng):
    # a complex number is true unless both parts are zero (of either sign); a NaN part is true
    parts = [0.0, -0.0, 1.5, np.nan, -np.inf]
    x = np.array([complex(a, b) for a in parts for b in parts], dtype)
    y = rng.permutation(x)
    outputs = [support.poisoned(x.size, "bool") for _ in range(5)]
    nrt_harness.Kernel(_complex_truth, tuple(typeof(a) for a in (*outputs, x, y)))(*outputs, x, y).check_balanced()
    expected = [np.logical_not(x), np.logical_and(x, y), np.logical_or(x, y), np.logical_xor(x, y), np.logical_not(x)]
    for got, want, name in zip(outputs, expected, ("not", "and", "or", "xor", "not of elements")):
        np.testing.assert_array_equal(got, want, err_msg=name)


# ---- np.sign and np.rint on scalars -----------------------------------------------------------


def _sign_and_rint(signs, rounded, x):
    for i in range(x.size):
        signs[i] = np.sign(x[i])
        rounded[i] = np.rint(x[i])


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "float32", "float64"])
def test_sign_and_rint_of_scalars_match_numpy(dtype, rng):
    if np.dtype(dtype).kind == "f":
        x = _floats(dtype, 40, rng)
        x[12:20] = [0.5, 1.5, 2.5, -0.5, -1.5, 1e300 if dtype == "float64" else 1e30, -3.5, 4.5]  # ties: to even
    else:
        x = support.random_values(dtype, 40, rng)
        x[:3] = 0
    signs = support.poisoned(40, np.sign(x).dtype)
    rounded = support.poisoned(40, np.rint(x).dtype)
    kernel = nrt_harness.Kernel(_sign_and_rint, tuple(typeof(a) for a in (signs, rounded, x)))
    kernel(signs, rounded, x).check_balanced()
    np.testing.assert_array_equal(signs, np.sign(x))  # 0 for zeros (either sign), NaN for NaN
    np.testing.assert_array_equal(rounded, np.rint(x))


@pytest.mark.parametrize("dtype", ["int16", "uint32", "float32", "float64"])  # no float16 results: the host has none
def test_sign_and_rint_of_arrays_match_numpy(dtype, rng):
    def of_arrays(signs, rounded, x, x2d, signs2d):
        np.sign(x, signs)
        np.rint(x, rounded)
        np.sign(x2d, signs2d)

    x = _floats(dtype, 20, rng) if np.dtype(dtype).kind == "f" else support.random_values(dtype, 20, rng)
    x[:2] = 0
    x2d = x.reshape(4, 5)[:, ::2]  # strided
    signs, rounded = support.poisoned(20, np.sign(x).dtype), support.poisoned(20, np.rint(x).dtype)
    signs2d = support.poisoned(12, np.sign(x).dtype).reshape(4, 3)
    arrays = (signs, rounded, x, x2d, signs2d)
    nrt_harness.Kernel(of_arrays, tuple(typeof(a) for a in arrays))(*arrays).check_balanced()
    np.testing.assert_array_equal(signs, np.sign(x))
    np.testing.assert_array_equal(rounded, np.rint(x))
    np.testing.assert_array_equal(signs2d, np.sign(x2d))


def _sign_and_rint_into_new_arrays(out_signs, out_rounded, x):
    out_signs[:] = np.sign(x)
    out_rounded[:] = np.rint(x)


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int64"])
def test_sign_and_rint_of_arrays_assemble(backend, dtype):
    # float16 results too, which only the GPU computes; new arrays need NRT
    x = np.zeros(4, dtype)
    argtypes = tuple(typeof(a) for a in (np.sign(x), np.rint(x), x))
    ptx, _ = cuda.compile_ptx(_sign_and_rint_into_new_arrays, argtypes, cc=(9, 0), backend=backend, nrt=True)
    support.ptxas(ptx, "sm_90", relocatable=True)


# ---- array operators and ufuncs without an output: new arrays ----------------------------------


def _operators(out, a, b, c, d):
    out[0] = a + b
    out[1] = a - b
    out[2] = a * b
    out[3] = a / b
    out[4] = a // b
    out[5] = a % b
    out[6] = np.abs(a) ** 2
    out[7] = a < b
    out[8] = a <= b
    out[9] = a > b
    out[10] = a >= b
    out[11] = a == b
    out[12] = a != b
    out[13] = -a
    out[14] = np.maximum(a, b) + np.sqrt(np.abs(c))  # c: a 1-d row, broadcast over both axes
    out[15] = 2.0 * a - c
    out[16] = c + d  # (5,) and (3, 1): axes of extent 1 take the other operand's


def _bitwise(out, a, b):
    out[0] = a & b
    out[1] = a | b
    out[2] = a ^ b
    out[3] = ~a
    out[4] = -a
    out[5] = np.left_shift(a, 3) + np.right_shift(b, 2)


def test_array_operators_make_numpys_arrays(rng):
    a, b = rng.uniform(-10, 10, (3, 5)), rng.uniform(0.5, 10, (3, 5)) * rng.choice([-1, 1], (3, 5))
    b[0, :2] = [0.0, a[0, 1]]  # a zero divisor, equal operands
    c, d = rng.uniform(-10, 10, 5), rng.uniform(-10, 10, (3, 1))
    out = support.poisoned(17 * 15, "float64").reshape(17, 3, 5)
    runtime = nrt_harness.Kernel(_operators, tuple(typeof(v) for v in (out, a, b, c, d)))(out, a, b, c, d)
    runtime.check_balanced()
    assert runtime.stats["alloc"] >= 17  # each expression makes a temporary, freed when it dies
    with np.errstate(all="ignore"):
        expected = [a + b, a - b, a * b, a / b, a // b, a % b, np.abs(a) ** 2, a < b, a <= b, a > b, a >= b]
        expected += [a == b, a != b, -a, np.maximum(a, b) + np.sqrt(np.abs(c)), 2.0 * a - c, c + d]
    for k, (got, want) in enumerate(zip(out, expected)):
        np.testing.assert_allclose(got, want, rtol=2 * np.finfo(np.float64).eps, equal_nan=True, err_msg=str(k))
    x, y = support.random_values("int32", 12, rng), support.random_values("int32", 12, rng)
    out = support.poisoned(6 * 12, "int32").reshape(6, 12)
    nrt_harness.Kernel(_bitwise, tuple(typeof(v) for v in (out, x, y)))(out, x, y).check_balanced()
    expected = [x & y, x | y, x ^ y, ~x, -x, np.left_shift(x, 3) + np.right_shift(y, 2)]
    np.testing.assert_array_equal(out, expected)


def _in_place(a, b, k):
    a += b  # stores into a: no new array
    a *= 2
    a -= k
    a //= 3
    a %= 7
    a /= 2


def test_in_place_operators_store_into_their_left_operand(rng):
    for a in (rng.uniform(-20, 20, (4, 3)), np.asfortranarray(rng.uniform(-20, 20, (4, 3)))):
        b = rng.uniform(-20, 20, 3)
        k = int(rng.integers(-5, 5))
        expected = a.copy()
        _in_place(expected, b, k)
        runtime = nrt_harness.Kernel(_in_place, (typeof(a), typeof(b), types.int64))(a, b, k)
        runtime.check_balanced()
        assert runtime.stats["alloc"] == 0
        np.testing.assert_array_equal(a, expected)


def _into_out(out, wide, x, y, k):
    r = np.add(x, y, out)  # returns out itself
    r[0, 0] = k
    np.multiply(x, k, wide)  # int32 products converted to out's float64
    np.negative(y[0], out[1])  # one scalar broadcast over a row


def test_a_ufunc_given_its_output_broadcasts_into_it_and_returns_it(rng):
    x, y = support.random_values("int32", 4, rng), support.random_values("int32", 12, rng).reshape(3, 4)[:, :1]
    k = int(rng.integers(-1000, 1000))
    out, wide = support.poisoned(12, "int32").reshape(3, 4), np.full((3, 4), np.nan)
    argtypes = (typeof(out), typeof(wide), typeof(x), typeof(y), types.int64)
    runtime = nrt_harness.Kernel(_into_out, argtypes)(out, wide, x, y, k)
    runtime.check_balanced()
    assert runtime.stats["alloc"] == 0
    expected, expected_wide = np.add(x, y), np.empty((3, 4))
    expected[0, 0] = k
    expected[1] = np.negative(y[0])
    np.multiply(x, np.int64(k), expected_wide)  # numba: int32 * int64 is int64
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(wide, expected_wide)


def _zero_d(out, a, b):
    out[0] = np.add(a, b)
    out[1] = np.sin(a) + a * b
    out[2] = np.maximum(a, b) - (a < b)


def test_ufuncs_of_0d_arrays_give_scalars_without_allocating(rng):
    a, b = np.array(rng.standard_normal()), np.array(rng.standard_normal())
    assert compiler.type_function(lambda a, b: np.add(a, b), (typeof(a), typeof(b))).return_type == types.float64
    out = support.poisoned(3, "float64")
    runtime = nrt_harness.Kernel(_zero_d, (typeof(out), typeof(a), typeof(b)))(out, a, b)
    runtime.check_balanced()
    assert runtime.stats["alloc"] == 0
    np.testing.assert_allclose(out, [a + b, np.sin(a) + a * b, np.maximum(a, b) - (a < b)], rtol=1e-15)
    ptx, _ = cuda.compile_ptx(_zero_d, (typeof(out), typeof(a), typeof(b)), cc=(9, 0), nrt=False)
    assert "NRT_" not in ptx


# ---- typing and NRT -------------------------------------------------------------------------------


def _typed(ufunc, argtypes):
    """numba's typing of ``ufunc(*argtypes)`` in cumlir's context: the result type, or None."""
    from cumlir.typing.context import typing_context
    from cumlir.typing.target import target_override

    context = typing_context()
    with target_override():
        try:
            return context.resolve_function_type(context.resolve_value_type(ufunc), argtypes, {}).return_type
        except errors.TypingError:
            return None


def test_result_types_are_numpys_but_for_numbas_documented_differences():
    """Arrays and scalars of every dtype the module's ufuncs take: numba's typing (npydecl) of
    each, against NumPy's; where they differ it is numba's (Numba-CUDA's) on purpose."""
    differences = []
    for ufunc in UFUNCS:
        for dtype in ("bool", "int8", "uint16", "int32", "int64", "uint64", "float32", "float64", "complex128"):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = ufunc(*[np.ones(1, dtype)] * ufunc.nin).dtype
            except TypeError:
                expected = None
            scalar = support.numba_type(dtype)
            array, element = _typed(ufunc, (scalar[:],) * ufunc.nin), _typed(ufunc, (scalar,) * ufunc.nin)
            got = None if array is None else (support.dtype_of(array.dtype), support.dtype_of(element))
            if got != (None if expected is None else (expected, expected)):
                differences.append((ufunc.__name__, dtype, str(expected), got and str(got[0])))
    for name, dtype, expected, got in differences:
        # numba's on purpose: float ufuncs of bool and int8 (NumPy: float16) compute in float32,
        # and so does true division of narrow integers (NumPy: float64); subtraction, negation
        # and unary plus of bools (NumPy refuses them) compute in int8
        float32_instead = dtype in ("bool", "int8") and (expected, got) == ("float16", "float32")
        narrow_division = name == "divide" and dtype in NARROW and (expected, got) == ("float64", "float32")
        bool_arithmetic = dtype == "bool" and name in ("subtract", "negative", "positive") and got == "int8"
        assert float32_instead or narrow_division or bool_arithmetic, (name, dtype, expected, got)


def test_complex_ufuncs_without_a_complex_form_are_refused_by_name():
    for ufunc in COMPLEX_REFUSED:
        namespace = {"np": np}
        arguments = ", ".join(["x"] * ufunc.nin)
        exec(f"def refused(out, x):\n    out[0] = np.{ufunc.__name__}({arguments}[0])\n", namespace)
        try:
            compiler.type_function(namespace["refused"], (types.complex128[:], types.complex128[:]))
        except errors.TypingError:
            continue  # numba does not type it either (np.floor of a complex number)
        with pytest.raises(errors.LoweringError, match=f"np.{ufunc.__name__} on complex numbers is not supported"):
            cuda.compile_ptx(namespace["refused"], (types.complex128[:], types.complex128[:]), cc=(9, 0))


def test_new_arrays_need_nrt_and_output_arrays_do_not():
    def with_output(out, x):
        np.sin(x, out)
        np.add(x, 1.0, out)
        out += x

    def without_output(out, x):
        out[...] = np.sin(x)

    argtypes = (types.float64[:, ::1], types.float64[:, :])
    ptx, _ = cuda.compile_ptx(with_output, argtypes, cc=(9, 0), nrt=False)
    assert "NRT_" not in ptx
    with pytest.raises(errors.LoweringError, match="np.sin in device code needs NRT"):
        cuda.compile_ptx(without_output, argtypes, cc=(9, 0), nrt=False)
    with pytest.raises(errors.LoweringError, match="np.add in device code needs NRT"):
        cuda.compile_ptx(lambda out, x: out.fill((x + x)[0, 0]), argtypes, cc=(9, 0), nrt=False)


def _every_kind(out, flags, x, y, z):
    np.sin(x, out[0])
    np.arctan2(x, y, out[1])
    np.maximum(z, z[::-1], z)  # complex: NumPy's order
    np.less(z, z[0], flags)
    out[3] = np.hypot(x, 2.5) + np.float16(1.5) * np.exp(y)  # new arrays
    out[4, 0] = np.sign(x[0]) + np.rint(y[0]) + np.fmax(x[1], y[1])


def test_every_kind_of_ufunc_assembles(backend):
    argtypes = (types.float32[:, ::1], types.bool_[:], types.float32[:], types.float16[::1], types.complex64[:])
    ptx, _ = cuda.compile_ptx(_every_kind, argtypes, cc=(9, 0), nrt=True, backend=backend)
    assert "NRT_MemInfo_alloc_aligned" in ptx
    support.ptxas(ptx, relocatable=True)  # the runtime is linked later
