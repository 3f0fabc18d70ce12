"""The ``cmath`` module (operations/python/cmath.py): every function's Python implementation,
compiled and run on the host (tests/nrt_harness.py, the real math bound to the C library)
against CPython's cmath on random values, on signed zeros and the sides of the branch cuts,
near tan's and tanh's poles, past overflow, and on infinite and NaN parts (C99's Annex G, all
of whose cases test_cmath_special.py checks on the GPU); the typing (complex64 stays complex64,
integers become complex128, phase/polar/predicates) against numba's; typing errors; PTX on both
code generators. libdevice's results are test_cmath_gpu.py's."""

import cmath
import functools
import math

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError
from numba.core.registry import cpu_target

from cumlir import cuda
from cumlir.compiler import type_function

from ... import nrt_harness, support

# the functions of one complex number giving one, in the rows of every_function's output
FUNCTIONS = "exp log log10 sqrt sin cos tan sinh cosh tanh asin acos atan asinh acosh atanh".split()
LOG_BASE = len(FUNCTIONS)  # the row of cmath.log(z, base)


def every_function(out, parts, flags, z, base):
    for i in range(z.size):
        w = z[i]
        out[0, i] = cmath.exp(w)
        out[1, i] = cmath.log(w)
        out[2, i] = cmath.log10(w)
        out[3, i] = cmath.sqrt(w)
        out[4, i] = cmath.sin(w)
        out[5, i] = cmath.cos(w)
        out[6, i] = cmath.tan(w)
        out[7, i] = cmath.sinh(w)
        out[8, i] = cmath.cosh(w)
        out[9, i] = cmath.tanh(w)
        out[10, i] = cmath.asin(w)
        out[11, i] = cmath.acos(w)
        out[12, i] = cmath.atan(w)
        out[13, i] = cmath.asinh(w)
        out[14, i] = cmath.acosh(w)
        out[15, i] = cmath.atanh(w)
        out[16, i] = cmath.log(w, base[i])
        parts[0, i] = cmath.phase(w)
        r, phi = cmath.polar(w)
        parts[1, i] = r
        parts[2, i] = phi
        flags[0, i] = cmath.isnan(w)
        flags[1, i] = cmath.isinf(w)
        flags[2, i] = cmath.isfinite(w)


def rect(out, r, phi):
    for i in range(r.size):
        out[i] = cmath.rect(r[i], phi[i])


@functools.cache
def _kernel(dtype):
    ty = types.complex64 if dtype == "complex64" else types.complex128
    real = ty.underlying_float
    argtypes = (types.Array(ty, 2, "C"), types.Array(real, 2, "C"), types.boolean[:, ::1], ty[::1], ty[::1])
    return nrt_harness.Kernel(every_function, argtypes)


def _run(z, base=None):
    """Every function of every_function on the host, for the complex array z."""
    base = z[::-1].copy() if base is None else base
    n = z.size
    out = support.poisoned(n * (LOG_BASE + 1), z.dtype).reshape(LOG_BASE + 1, n)
    parts = support.poisoned(3 * n, z.real.dtype).reshape(3, n)
    flags = np.full((3, n), 7, np.uint8).view(np.bool_)  # neither False nor True
    _kernel(z.dtype.name)(out, parts, flags, z, base)
    return out, parts, flags


def _python(fn, values, *more):
    """CPython's answers, NaN where it raises (outside the tests' domain, so never compared)."""
    found = []
    for args in zip(values.tolist(), *(m.tolist() for m in more)):
        try:
            found.append(fn(*args))
        except (ValueError, OverflowError):
            found.append(complex(math.nan, math.nan))
    return np.array(found)


def _check_parts(got, expected, ulps, eps, label, inputs):
    """Each part within *ulps* units of *eps* of max(|expected|, 1) (the scale at which a
    part that cancels to nearly zero is still judged), NaN where NaN is expected."""
    expected = expected.astype(np.complex128)
    got = got.astype(np.complex128)
    scale = np.maximum(np.abs(expected), 1.0)
    with np.errstate(invalid="ignore"):
        for part in (np.real, np.imag):
            g, e = part(got), part(expected)
            ok = (g == e) | (np.isnan(g) & np.isnan(e)) | (np.abs(g - e) <= ulps * eps * scale)
            bad = np.flatnonzero(~ok)
            assert not len(bad), f"{label} {part.__name__}: " + ", ".join(
                f"f({inputs[k]!r}) = {got[k]!r}, CPython {expected[k]!r}" for k in bad[:4]
            )


def _same_signs(got, expected, label, inputs):
    """Zero parts carry CPython's sign (what decides the side of a branch cut)."""
    for k, (g, e) in enumerate(zip(got.tolist(), expected.tolist())):
        for a, b in ((g.real, e.real), (g.imag, e.imag)):
            if b == 0.0:
                assert a == 0.0 and math.copysign(1.0, a) == math.copysign(1.0, b), (
                    f"{label}({inputs[k]!r}) = {g!r}, CPython {e!r}"
                )


def _random_complex(rng, n, dtype, largest):
    """Parts of magnitudes from 1e-3 to 10**largest, every sign."""
    parts = rng.choice([-1.0, 1.0], (2, n)) * 10.0 ** rng.uniform(-3, largest, (2, n))
    return (parts[0] + 1j * parts[1]).astype(dtype)


def _pole_distance(z):
    """How far z is from the nearest pole of tanh (i * (pi/2 + k*pi)) and of tan (pi/2 + k*pi)."""
    z = z.astype(np.complex128)

    def from_axis(along, across):
        k = np.round((along - np.pi / 2) / np.pi)
        return np.hypot(along - (np.pi / 2 + k * np.pi), across)

    return np.minimum(from_axis(z.imag, z.real), from_axis(z.real, z.imag))


# complex128 computes in float64, complex64 in float32 (its parts' type) but where the formulas'
# float64 constants widen it: bounds in units of the parts' type
_ULPS = {"complex128": (4, np.finfo(np.float64).eps), "complex64": (8, float(np.finfo(np.float32).eps))}


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_every_function_agrees_with_cpython_on_random_values(dtype, rng):
    # complex64's exp and cosh overflow float32 beyond ~88: keep its parts below 80
    z = _random_complex(rng, 3000, dtype, 2.5 if dtype == "complex128" else 1.9)
    # the textbook tan and tanh divide by cosh(2x) + cos(2y), which cancels to about 2 d**2 at a
    # distance d from a pole: keep 0.25 away (the xfail test below is about the poles)
    z = z[_pole_distance(z) > 0.25]
    # bases of |b| >= 3: near |b| = 1 the division by log(b) magnifies the rounding of log(z)
    base = (3.0 * np.exp(1j * rng.uniform(-np.pi, np.pi, z.size)) * 10.0 ** rng.uniform(0, 1, z.size)).astype(dtype)
    out, parts, flags = _run(z, base)
    ulps, eps = _ULPS[dtype]
    wide, wide_base = z.astype(np.complex128), base.astype(np.complex128)
    for row, name in enumerate(FUNCTIONS):
        # CPython's answer in float64, then rounded to the result type (overflow included)
        with np.errstate(over="ignore"):
            expected = _python(getattr(cmath, name), wide).astype(dtype)
        # that cancellation costs tan and tanh a few more units out to d = 0.25
        _check_parts(out[row], expected, ulps * (4 if name in ("tan", "tanh") else 1), eps, f"cmath.{name}", z)
    _check_parts(out[LOG_BASE], _python(cmath.log, wide, wide_base).astype(dtype), 4 * ulps, eps, "log(z, b)", z)
    polar = np.array([cmath.polar(v) for v in wide.tolist()]).T
    phase = np.array([cmath.phase(v) for v in wide.tolist()])
    for got, expected, label in (
        (parts[0], phase, "phase"),
        (parts[1], polar[0], "polar r"),
        (parts[2], polar[1], "polar phi"),
    ):
        np.testing.assert_allclose(got, expected.astype(parts.dtype), rtol=2 * eps, atol=0, err_msg=label)
    assert flags[1].sum() == 0 and flags[0].sum() == 0 and flags[2].all()


def _cut_points():
    """Points on the axes, with either sign of the zero part: the branch cuts of sqrt and log
    (negative real axis), asin/acos/atanh (|x| > 1 on the real axis), asinh/atan (|y| > 1 on
    the imaginary axis), acosh (x < 1), and points between them."""
    points = []
    for a in (0.5, 1.0, 2.0, 1e3):
        for s in (1.0, -1.0):
            for zero in (0.0, -0.0):
                points += [complex(s * a, zero), complex(zero, s * a)]
    points += [complex(0.0, 0.0), complex(0.0, -0.0)]
    return np.array(points)


def test_signed_zeros_keep_the_side_of_each_branch_cut():
    z = _cut_points()
    out, _, _ = _run(z)
    eps = np.finfo(np.float64).eps
    for row, name in enumerate(FUNCTIONS):
        fn = getattr(cmath, name)
        keep = np.array([_raises(fn, v) is None for v in z.tolist()])  # log(0) raises in CPython
        expected = _python(fn, z[keep])
        _check_parts(out[row][keep], expected, 4, eps, f"cmath.{name}", z[keep])
        _same_signs(out[row][keep], expected, f"cmath.{name}", z[keep])


def _raises(fn, *args):
    try:
        fn(*args)
    except (ValueError, OverflowError) as e:
        return e
    return None


def test_log_of_zero_is_c99s_where_cpython_raises():
    # C99's clog: -inf, and the angle of the signed zeros (0 or pi, signed by the imaginary part)
    z = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)])
    out, _, _ = _run(z)
    expected = [(-math.inf, 0.0), (-math.inf, math.pi), (-math.inf, -0.0), (-math.inf, -math.pi)]
    for got, (real, imag) in zip(out[1].tolist(), expected):
        assert got.real == real and got.imag == imag and math.copysign(1, got.imag) == math.copysign(1, imag)


SPECIAL_PARTS = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]


def test_sqrt_of_infinite_and_nan_parts_is_annex_gs():
    z = np.array([complex(a, b) for a in SPECIAL_PARTS for b in SPECIAL_PARTS])
    out, _, _ = _run(z)
    expected = _python(cmath.sqrt, z)  # CPython's sqrt follows Annex G on every one of them
    _check_parts(out[3], expected, 0, 0.0, "sqrt", z)
    _same_signs(out[3], expected, "sqrt", z)


def test_exp_sinh_cosh_of_a_real_keep_the_zero_imaginary_part():
    # y == 0: the result is real, its imaginary part the zero CPython gives (y, or y * sinh(x))
    reals = [0.0, -0.0, 0.75, -3.5, 700.0, -700.0]
    z = np.array([complex(x, zero) for x in reals for zero in (0.0, -0.0)])
    out, _, _ = _run(z)
    for row, name in ((0, "exp"), (7, "sinh"), (8, "cosh")):
        expected = _python(getattr(cmath, name), z)
        _check_parts(out[row], expected, 1, np.finfo(np.float64).eps, name, z)
        _same_signs(out[row], expected, name, z)
    # an infinite x too, as Annex G's exp(+-inf + 0j) and Python's
    z = np.array([complex(x, zero) for x in (math.inf, -math.inf) for zero in (0.0, -0.0)])
    out, _, _ = _run(z)
    for row, name in ((0, "exp"), (7, "sinh"), (8, "cosh")):
        expected = _python(getattr(cmath, name), z)
        np.testing.assert_array_equal(out[row], expected, err_msg=name)
        _same_signs(out[row], expected, name, z)


def test_exp_of_minus_infinity_with_a_non_finite_angle_is_zero():
    # Annex G: exp(-inf + iy) for infinite or NaN y is a zero (of unspecified signs)
    z = np.array([complex(-math.inf, y) for y in (math.inf, -math.inf, math.nan)])
    out, _, _ = _run(z)
    assert (out[0] == 0).all(), out[0]


def test_tanh_of_large_real_parts():
    # tanh is +-1 to the last bit; the imaginary part 4 sin(y) cos(y) exp(-2|x|), Python's,
    # down to a zero signed as sin(2y)
    z = np.array(
        [complex(s * x, y) for s in (1.0, -1.0) for x in (22.5, 300.0, 1e300) for y in (0.0, -0.0, 1.0, -1.0, 2.0)]
    )
    out, _, _ = _run(z)
    expected = _python(cmath.tanh, z)
    np.testing.assert_array_equal(out[9].real, expected.real)
    np.testing.assert_allclose(out[9].imag, expected.imag, rtol=4 * np.finfo(np.float64).eps, atol=0)
    np.testing.assert_array_equal(np.signbit(out[9].imag), np.signbit(expected.imag))


def test_predicates_on_every_special_part():
    z = np.array([complex(a, b) for a in SPECIAL_PARTS for b in SPECIAL_PARTS])
    _, _, flags = _run(z)
    for row, fn in enumerate((cmath.isnan, cmath.isinf, cmath.isfinite)):
        np.testing.assert_array_equal(flags[row], [fn(v) for v in z.tolist()], err_msg=fn.__name__)


def test_phase_and_polar_of_signed_zeros_and_infinities():
    z = np.array([complex(a, b) for a in SPECIAL_PARTS for b in SPECIAL_PARTS])
    _, parts, _ = _run(z)
    phase = [cmath.phase(v) for v in z.tolist()]
    r, phi = np.array([cmath.polar(v) for v in z.tolist()]).T
    np.testing.assert_array_equal(parts[0], phase)
    np.testing.assert_array_equal(np.signbit(parts[0]), np.signbit(phase))
    np.testing.assert_array_equal(parts[1], r)  # hypot: inf when a part is, even beside a NaN
    np.testing.assert_array_equal(parts[2], phi)


@functools.cache
def _rect_kernel(real):
    return nrt_harness.Kernel(rect, (types.complex128[::1], real[::1], real[::1]))


def test_rect_agrees_with_cpython(rng):
    r = np.concatenate([rng.standard_normal(300) * 10, [2.0, -2.0, 0.0, -0.0, 3.0, -3.0]])
    phi = np.concatenate([rng.uniform(-10, 10, 300), [0.0, 0.0, -0.0, 0.0, -0.0, -0.0]])
    out = support.poisoned(r.size, np.complex128)
    _rect_kernel(types.float64)(out, r, phi)
    expected = np.array([cmath.rect(a, b) for a, b in zip(r.tolist(), phi.tolist())])
    _check_parts(out, expected, 1, np.finfo(np.float64).eps, "rect", r)
    _same_signs(out, expected, "rect", r)  # rect(r, +-0.0) keeps the zero's sign (times r's)


def test_rect_of_an_infinite_radius_at_angle_zero_is_real():
    r, phi = np.array([math.inf, -math.inf], np.float32), np.zeros(2, np.float32)
    out = support.poisoned(2, np.complex128)
    _rect_kernel(types.float32)(out, r, phi)  # float32 arguments convert to float64
    assert out.real.tolist() == [math.inf, -math.inf] and out.imag.tolist() == [0.0, 0.0]


def test_tan_and_tanh_near_their_poles():
    # tanh(x + iy) from tanh(x) and tan(y), as CPython: nothing cancels near i(pi/2 + k pi)
    z = np.array(
        [
            complex(1e-8, math.pi / 2),
            complex(1e-6, -math.pi / 2),
            complex(0.0, math.pi / 2),
            complex(1e-5, 7.5 * math.pi),
        ]
    )
    z = np.concatenate([z, 1j * z])  # and tan's poles, pi/2 + k pi
    out, _, _ = _run(z)
    eps = np.finfo(np.float64).eps
    _check_parts(out[9], _python(cmath.tanh, z), 4, eps, "tanh", z)
    _check_parts(out[6], _python(cmath.tan, z), 4, eps, "tan", z)


def test_atanh_and_atan_of_the_largest_finite_values():
    # past sqrt(DBL_MAX / 4) atanh(z) ~ 1/z + i pi/2 sign(y), as CPython
    z = np.array([complex(1e308, 1e308), complex(-1e308, 1e308), complex(1.5e308, -1.0)])
    out, _, _ = _run(z)
    eps = np.finfo(np.float64).eps
    _check_parts(out[15], _python(cmath.atanh, z), 4, eps, "atanh", z)
    _check_parts(out[12], _python(cmath.atan, z), 4, eps, "atan", z)


def test_atanh_next_to_one():
    # atanh(1 + iy) for y whose square underflows: Python's limit, not log1p(4 / 0)
    z = np.array([complex(1.0, 1e-200), complex(1.0, -1e-300), complex(-1.0, 5e-324)])
    out, _, _ = _run(z)
    _check_parts(out[15], _python(cmath.atanh, z), 4, np.finfo(np.float64).eps, "atanh", z)


def test_sqrt_and_log_of_subnormal_and_huge_parts():
    # scaled as CPython scales them: hypot of subnormals is subnormal, of huge parts infinite
    z = np.array(
        [complex(5e-324, 5e-324), complex(-3e-310, 1e-315), complex(1.5e308, 1.5e308), complex(-1e308, -1.7e308)]
    )
    out, _, _ = _run(z)
    eps = np.finfo(np.float64).eps
    for row, name in ((1, "log"), (3, "sqrt")):
        expected = _python(getattr(cmath, name), z)
        np.testing.assert_allclose(out[row].real, expected.real, rtol=4 * eps, atol=0, err_msg=name)
        np.testing.assert_allclose(out[row].imag, expected.imag, rtol=4 * eps, atol=0, err_msg=name)


def test_log_near_one_is_accurate():
    # through log1p where |z| is near 1: the small real part to a few units, not of 1's
    z = np.array([complex(0.6, 0.8000001), complex(1.0 + 1e-9, 1e-5), complex(-0.99999, 0.001)])
    out, _, _ = _run(z)
    expected = _python(cmath.log, z)
    np.testing.assert_allclose(out[1].real, expected.real, rtol=8 * np.finfo(np.float64).eps, atol=0)


# ---- typing --------------------------------------------------------------------------------------


def _cumlir_type(fn, *argtypes):
    names = ", ".join(f"x{k}" for k in range(len(argtypes)))
    scope = {"cmath": cmath}
    exec(f"def f({names}):\n    return cmath.{fn.__name__}({names})\n", scope)
    return type_function(scope["f"], argtypes).return_type


def _numba_type(fn, *argtypes):
    """numba's own typing of the call (its CPU target's context, which Numba-CUDA shares for cmath)."""
    context = cpu_target.typing_context
    context.refresh()
    return context.resolve_function_type(context.resolve_value_type(fn), argtypes, {}).return_type


_COMPLEX = [types.complex64, types.complex128]
_INTEGERS = [types.int8, types.int32, types.int64, types.uint64, types.boolean]


# the functions numba types with concrete signatures (the others are overloads, typed by what
# numba's CPU implementation computes, and absent from Numba-CUDA)
NUMBA_TYPED = "exp log sqrt sin cos tan asin acos atan asinh atanh isnan isinf isfinite".split()


@pytest.mark.parametrize("name", NUMBA_TYPED)
def test_typing_is_numbas(name):
    fn = getattr(cmath, name)
    for argtype in [types.complex64, types.complex128, types.int32, types.int64, types.uint64, types.float64]:
        assert _cumlir_type(fn, argtype) == _numba_type(fn, argtype), (name, argtype)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_complex64_stays_complex64_and_other_numbers_become_complex128(name):
    fn = getattr(cmath, name)
    assert _cumlir_type(fn, types.complex64) == types.complex64
    for argtype in [types.complex128, types.int8, types.int64, types.uint64, types.float64]:
        assert _cumlir_type(fn, argtype) == types.complex128, argtype


def test_log_with_a_base_is_typed_as_numba_types_it():
    assert _cumlir_type(cmath.log, types.complex64, types.complex64) == types.complex64
    for pair in [(types.complex64, types.complex128), (types.int64, types.complex64), (types.float64, types.int32)]:
        assert _cumlir_type(cmath.log, *pair) == _numba_type(cmath.log, *pair), pair


@pytest.mark.xfail(
    reason="numba and Numba-CUDA type cmath of a float32 (or a bool) as complex64, to which it "
    "converts safely; cumlir widens it to complex128",
    strict=True,
)
@pytest.mark.parametrize(
    "args",
    [(types.float32,), (types.boolean,), (types.complex64, types.float32)],
    ids=["sqrt", "sqrt-bool", "log-base"],
)
def test_typing_of_float32_is_numbas(args):
    fn = cmath.sqrt if len(args) == 1 else cmath.log
    assert _cumlir_type(fn, *args) == _numba_type(fn, *args)


@pytest.mark.parametrize(
    "fn, argtype, expected",
    [
        (cmath.phase, types.complex64, types.float32),
        (cmath.phase, types.complex128, types.float64),
        (cmath.phase, types.int32, types.float64),
        (cmath.polar, types.complex64, types.UniTuple(types.float32, 2)),
        (cmath.polar, types.int64, types.UniTuple(types.float64, 2)),
    ],
)
def test_phase_and_polar_are_typed_in_the_parts_type(fn, argtype, expected):
    # numba's CPU target types neither; Numba-CUDA gives the real type of the complex operand
    assert _cumlir_type(fn, argtype) == expected


@pytest.mark.parametrize(
    "args", [(types.float32, types.float32), (types.int64, types.float64), (types.int32, types.int8)]
)
def test_rect_is_complex128_of_any_real_arguments(args):
    assert _cumlir_type(cmath.rect, *args) == types.complex128


@pytest.mark.parametrize(
    "source, argtypes",
    [
        ("cmath.rect(x, y)", (types.complex128, types.float64)),
        ("cmath.log(x, y, x)", (types.complex128, types.complex128)),
        ("cmath.sqrt(x, y)", (types.complex128, types.complex128)),
        ("cmath.exp(x)", (types.UniTuple(types.float64, 2), types.float64)),
        ("cmath.phase(x, y)", (types.complex128, types.float64)),
    ],
)
def test_calls_outside_the_typing_are_typing_errors(source, argtypes):
    scope = {"cmath": cmath}
    exec(f"def f(x, y):\n    return {source}\n", scope)
    name = source.split("(")[0].split(".")[1]
    with pytest.raises(TypingError, match=name):
        type_function(scope["f"], argtypes)


# ---- PTX -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_every_function_compiles_and_assembles(dtype, backend):
    real = "float32" if dtype == "complex64" else "float64"
    sig = f"void({dtype}[:, ::1], {real}[:, ::1], boolean[:, ::1], {dtype}[::1], {dtype}[::1])"
    ptx, _ = cuda.compile_ptx(every_function, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    ptx, _ = cuda.compile_ptx(rect, "void(complex128[::1], float32[::1], float32[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx)
