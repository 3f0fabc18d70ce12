"""cmath at infinite, NaN and signed-zero parts (operations/python/cmath.py and
_cmath_special.py): every function, complex64 and complex128, on the grid of every pair of
parts among -inf, -0.0, +0.0, +inf, NaN and ordinary values of both signs (near 1, and huge),
against Python's cmath: C99's Annex G values exactly (zeros with Python's sign, NaN of any
sign), finite values within a few units in the last place. Where Python raises ValueError
(C99's "invalid" cases, log(0)) the kernel gives C99's value, as Numba-CUDA's device code does;
where it raises OverflowError, infinities. On the GPU (both code generators) and, with
CUMLIR_SIMULATOR=1, on the simulator; PTX that assembles in the CPU tier."""

import cmath
import itertools
import math

import numpy as np
import pytest

from cumlir import cuda

from ... import support

INF, NAN = math.inf, math.nan

NAMES = "acos acosh asin asinh atan atanh cos cosh exp log log10 sin sinh sqrt tan tanh".split()


def every_function(out, parts, flags, z):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[0, i] = cmath.acos(w)
        out[1, i] = cmath.acosh(w)
        out[2, i] = cmath.asin(w)
        out[3, i] = cmath.asinh(w)
        out[4, i] = cmath.atan(w)
        out[5, i] = cmath.atanh(w)
        out[6, i] = cmath.cos(w)
        out[7, i] = cmath.cosh(w)
        out[8, i] = cmath.exp(w)
        out[9, i] = cmath.log(w)
        out[10, i] = cmath.log10(w)
        out[11, i] = cmath.sin(w)
        out[12, i] = cmath.sinh(w)
        out[13, i] = cmath.sqrt(w)
        out[14, i] = cmath.tan(w)
        out[15, i] = cmath.tanh(w)
        parts[0, i] = cmath.phase(w)
        r, phi = cmath.polar(w)
        parts[1, i] = r
        parts[2, i] = phi
        flags[0, i] = cmath.isnan(w)
        flags[1, i] = cmath.isinf(w)
        flags[2, i] = cmath.isfinite(w)


def rect(out, r, phi):
    i = cuda.grid(1)
    if i < r.size:
        out[i] = cmath.rect(r[i], phi[i])


def log_base(out, z, base):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = cmath.log(z[i], base[i])


# per type: the huge part (whose squares overflow), the bound on finite parts in units of eps
# of the larger finite part expected (libdevice's double routines are within 2 units, its
# float ones within 4, and the formulas compose a few)
_TYPES = {
    "complex128": (1e300, 8, np.finfo(np.float64).eps),
    "complex64": (1e30, 32, float(np.finfo(np.float32).eps)),
}


def _parts(dtype):
    huge = _TYPES[dtype][0]
    finite = [0.5, 1.0, 2.5, huge]
    return [-INF, *(-v for v in reversed(finite)), -0.0, 0.0, *finite, INF, NAN]


def _grid(dtype):
    return np.array([complex(x, y) for x, y in itertools.product(_parts(dtype), repeat=2)], dtype)


def _launch(kernel, backend, fastmath, n, *args):
    cuda.jit(backend=backend, fastmath=fastmath)(kernel)[(n + 63) // 64, 64](*args)


def _run(z, backend, fastmath=False):
    n = z.size
    out = support.poisoned(len(NAMES) * n, z.dtype).reshape(len(NAMES), n)
    parts = support.poisoned(3 * n, z.real.dtype).reshape(3, n)
    flags = np.full((3, n), 7, np.uint8).view(np.bool_)  # neither False nor True
    _launch(every_function, backend, fastmath, n, out, parts, flags, z)
    return out, parts, flags


# ---- the expected values ----------------------------------------------------------------------


def _turn(value, free):
    """-i * value, and which parts' signs are free (asin, atan, sin, tan from asinh, atanh, sinh, tanh)."""
    return complex(value.imag, -value.real), (free[1], free[0])


def _c99_where_python_raises(name, z):
    """C99's value where Python's cmath raises ValueError (the kernel raises nothing, as
    Numba-CUDA's): (the value, whether each part's sign is left open by the standard)."""
    x, y = z.real, z.imag
    rotated = {"cos": "cosh", "sin": "sinh", "tan": "tanh", "atan": "atanh"}
    if name in rotated:  # cos(z) = cosh(iz), sin(z) = -i sinh(iz), ... (C99 defines them so)
        value, free = _c99_where_python_raises(rotated[name], complex(-y, x))
        return (value, free) if name == "cos" else _turn(value, free)
    if name in ("log", "log10"):  # log(+-0 +- 0i) = -inf + i atan2(y, x)
        scale = 1.0 if name == "log" else math.log(10.0)
        return complex(-INF, math.atan2(y, x) / scale), (False, False)
    if name == "atanh":  # atanh(+-1 +- 0i) = +-inf +- 0i
        return complex(math.copysign(INF, x), y), (False, False)
    assert math.isinf(y), (name, z)  # exp, cosh, sinh, tanh of an infinite imaginary part
    if name == "exp":  # exp(+inf + i inf) = +-inf + i NaN, else NaN + i NaN
        return (complex(INF, NAN), (True, False)) if x == INF else (complex(NAN, NAN), (False, False))
    if math.isinf(x):  # cosh(+-inf + i inf) = +-inf + i NaN, sinh too
        return complex(INF, NAN), (True, False)
    if x == 0.0:
        # cosh(+-0 + i inf) = NaN +- 0i, sinh(+-0 + i inf) = +-0 + i NaN, tanh(+-0 + i inf) =
        # +-0 + i NaN (C17's, after DR 471: C99 had NaN + i NaN)
        return {
            "cosh": (complex(NAN, 0.0), (False, True)),
            "sinh": (complex(0.0, NAN), (True, False)),
            "tanh": (complex(x, NAN), (False, False)),
        }[name]
    return complex(NAN, NAN), (False, False)


def _expected(name, z):
    """Python's value of cmath.<name>(z) (z complex128), C99's where Python raises
    ValueError (with the parts whose signs are free), None where it raises OverflowError."""
    try:
        return getattr(cmath, name)(complex(z)), (False, False)
    except ValueError:
        return _c99_where_python_raises(name, complex(z))
    except OverflowError:
        return None


def _mismatch(got, expected, free, ulps, eps, exact_zeros=True):
    """What is wrong with *got* (None if nothing): NaN where NaN is expected (of any sign),
    infinities exactly, zeros exactly and with their sign (unless it is free), other parts
    within *ulps* units of *eps* of the larger finite part expected. With exact_zeros=False
    an expected zero is a value like any other (a part that cancels to nearly zero)."""
    scale = max((abs(e) for e in (expected.real, expected.imag) if math.isfinite(e)), default=0.0)
    for part, g, e, sign_free in (
        ("real", got.real, expected.real, free[0]),
        ("imag", got.imag, expected.imag, free[1]),
    ):
        if sign_free:
            g, e = abs(g), abs(e)
        if math.isnan(e):
            ok = math.isnan(g)
        elif math.isinf(e) or (e == 0.0 and exact_zeros):
            ok = g == e and math.copysign(1.0, g) == math.copysign(1.0, e)
        else:
            ok = abs(g - e) <= ulps * eps * scale
        if not ok:
            return f"{part} part"
    return None


def _check(name, z, got, ulps, eps):
    dtype = z.dtype
    wrong = []
    for v, g in zip(z.tolist(), got.tolist()):
        found = _expected(name, v)
        if found is None:
            continue  # Python overflows: test_overflow_gives_infinities
        expected, free = found
        with np.errstate(over="ignore"):
            expected = complex(np.array(expected, np.complex128).astype(dtype))  # complex64 rounds it
        problem = _mismatch(g, expected, free, ulps, eps)
        if problem:
            wrong.append(f"{name}({v!r}) = {g!r}, expected {expected!r} ({problem})")
    assert not wrong, f"{len(wrong)} of {z.size} wrong:\n" + "\n".join(wrong[:12])


# ---- on the GPU (or the simulator) --------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_every_function_on_the_grid_of_special_parts(dtype, backend):
    z = _grid(dtype)
    out, _, _ = _run(z, backend)
    _, ulps, eps = _TYPES[dtype]
    for row, name in enumerate(NAMES):
        _check(name, z, out[row], ulps, eps)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_phase_polar_and_the_predicates_on_the_grid(dtype, backend):
    z = _grid(dtype)
    _, parts, flags = _run(z, backend)
    _, ulps, eps = _TYPES[dtype]
    values = z.tolist()
    for got, expected, label in (
        (parts[0], [cmath.phase(v) for v in values], "phase"),
        (parts[1], [cmath.polar(v)[0] for v in values], "polar r"),
        (parts[2], [cmath.polar(v)[1] for v in values], "polar phi"),
    ):
        expected = np.array(expected)
        with np.errstate(over="ignore"):
            expected = expected.astype(parts.dtype)  # |1e30 + 1e30j| overflows float32, as a float32 hypot does
        np.testing.assert_allclose(got, expected, rtol=ulps * eps, atol=0, err_msg=label)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected), err_msg=label)
    for row, fn in enumerate((cmath.isnan, cmath.isinf, cmath.isfinite)):
        np.testing.assert_array_equal(flags[row], [fn(v) for v in values], err_msg=fn.__name__)


@pytest.mark.gpu
def test_rect_on_the_grid_of_special_parts(backend):
    r, phi = (np.array(a) for a in zip(*itertools.product(_parts("complex128"), repeat=2)))
    out = support.poisoned(r.size, np.complex128)
    _launch(rect, backend, False, r.size, out, r, phi)
    _, ulps, eps = _TYPES["complex128"]
    wrong = []
    for a, b, g in zip(r.tolist(), phi.tolist(), out.tolist()):
        try:
            expected, free = cmath.rect(a, b), (False, False)
        except ValueError:
            # rect(r, +-inf) for r nonzero: C99's "spirit" as Python states it, exp(log(r) + i inf)
            expected, free = (
                (complex(INF, NAN), (True, False)) if math.isinf(a) else (complex(NAN, NAN), (False, False))
            )
        problem = _mismatch(g, expected, free, ulps, eps)
        if problem:
            wrong.append(f"rect({a!r}, {b!r}) = {g!r}, expected {expected!r} ({problem})")
    assert not wrong, "\n".join(wrong[:12])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_log_with_a_base_on_special_parts(dtype, backend):
    parts = [-INF, -2.5, -0.0, 0.0, 0.5, 2.5, INF, NAN]
    values = [complex(x, y) for x, y in itertools.product(parts, repeat=2)]
    z, base = (np.array(a, dtype) for a in zip(*itertools.product(values, repeat=2)))
    out = support.poisoned(z.size, dtype)
    _launch(log_base, backend, False, z.size, out, z, base)
    _, ulps, eps = _TYPES[dtype]
    wrong = []
    for v, b, g in zip(z.tolist(), base.tolist(), out.tolist()):
        try:
            expected = complex(np.complex128(cmath.log(v, b)).astype(dtype))
        except (ValueError, ZeroDivisionError):
            continue  # log(0), or a division by log(1) = 0: Python raises, C99 says nothing
        # the parts of ordinary values' quotients cancel to nearly zero (log(z, z) = 1 + ~0i)
        problem = _mismatch(
            g, expected, (False, False), 4 * ulps, eps, exact_zeros=not (cmath.isfinite(v) and cmath.isfinite(b))
        )
        if problem:
            wrong.append(f"log({v!r}, {b!r}) = {g!r}, expected {expected!r} ({problem})")
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(wrong[:12])


@pytest.mark.gpu
def test_overflow_gives_infinities(backend):
    # where exp(|x|) overflows, exp, cosh and sinh are infinities signed by cos(y) and sin(y)
    # (Python raises OverflowError); short of the products overflowing, Python's finite values
    z = np.array([complex(1000.0, 2.0), complex(-1000.0, 2.0), complex(1e300, -0.5), complex(709.9, 0.75)])
    out, _, _ = _run(z, backend)
    cos, sin = math.cos(2.0), math.sin(2.0)
    expected = {
        "exp": [complex(-INF, INF), complex(-0.0, 0.0), complex(INF, -INF), cmath.exp(z[3])],
        "cosh": [complex(-INF, INF), complex(-INF, -INF), complex(INF, -INF), cmath.cosh(z[3])],
        "sinh": [complex(-INF, INF), complex(INF, INF), complex(INF, -INF), cmath.sinh(z[3])],
    }
    assert cos < 0.0 < sin
    _, ulps, eps = _TYPES["complex128"]
    for name, values in expected.items():
        for v, g, e in zip(z.tolist(), out[NAMES.index(name)].tolist(), values):
            assert not _mismatch(g, e, (False, False), ulps, eps), f"{name}({v!r}) = {g!r}, expected {e!r}"
    # complex64: exp(89) overflows float32, exp(89) * sin(1e-30) does not
    z = np.array([complex(89.0, 1e-30)], np.complex64)
    out, _, _ = _run(z, backend)
    expected = cmath.exp(complex(z[0]))
    assert out[NAMES.index("exp"), 0].real == INF
    assert abs(out[NAMES.index("exp"), 0].imag - expected.imag) <= 8 * np.finfo(np.float32).eps * expected.imag


@pytest.mark.gpu
def test_special_values_hold_under_fastmath_without_nnan_ninf_nsz(backend):
    # fastmath=True has nnan and ninf (no infinities nor NaNs: the compiler may drop the
    # test for them) and nsz (zero signs free); other flags leave the special values as they are
    z = _grid("complex128")
    out, _, _ = _run(z, backend, fastmath={"contract", "arcp", "reassoc"})
    _, ulps, eps = _TYPES["complex128"]
    for row, name in enumerate(NAMES):
        _check(name, z, out[row], 4 * ulps, eps)


# ---- CPU tier -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_special_value_code_assembles(dtype, backend):
    # the tables are constant arrays (of float64 pairs: the LLVM 7 printer has no complex
    # constants), read on the cold path
    real = "float32" if dtype == "complex64" else "float64"
    sig = f"void({dtype}[:, ::1], {real}[:, ::1], boolean[:, ::1], {dtype}[::1])"
    ptx, _ = cuda.compile_ptx(every_function, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    assert ".const .align" in ptx
    ptx, _ = cuda.compile_ptx(rect, "void(complex128[::1], float64[::1], float64[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    ptx, _ = cuda.compile_ptx(every_function, sig, cc=(9, 0), backend=backend, fastmath=True)
    support.ptxas(ptx)


def test_tables_are_pythons_values():
    # each table holds cmath's value at one value of each kind of part, wherever a part is not
    # finite (and C99's where Python raises); those of ordinary values are never read
    from cumlir.operations.python import _cmath_special as special

    kinds = (-INF, -3.0, -0.0, 0.0, 3.0, INF, NAN)
    for name, table in special.TABLES.items():
        assert table.shape == (49, 2) and not table.flags.writeable
        for k, (x, y) in enumerate(itertools.product(kinds, repeat=2)):
            if math.isfinite(x) and math.isfinite(y):
                continue
            if name in ("exp", "cosh", "sinh", "tanh", "rect") and math.isinf(x) and y not in (0.0, INF, -INF, NAN):
                continue  # turned by y: the finite path's
            if name == "rect":
                try:
                    expected, free = cmath.rect(x, y), (False, False)
                except ValueError:
                    continue
            else:
                expected, free = _expected(name, complex(x, y))
            assert not _mismatch(complex(*table[k]), expected, free, 0, 0.0), (name, x, y, table[k], expected)
