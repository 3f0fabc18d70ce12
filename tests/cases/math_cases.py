"""Cases for math, cmath and NumPy scalar ufuncs: the kernel of each, its argument types,
its operands and its host reference. Shared by the PTX test and the GPU test."""

import cmath
import math
import sys

import numpy as np

from cumlir import cuda

from .. import support

UNARY = "acos acosh asin asinh atan atanh cosh degrees erf erfc expm1 gamma lgamma log1p radians sinh tan".split()
UNARY_HALF = "sin cos ceil floor sqrt log log2 log10 exp fabs trunc tanh".split()
if sys.version_info >= (3, 11):
    UNARY_HALF.append("exp2")
BINARY = "atan2 hypot copysign fmod nextafter remainder pow".split()
PREDICATES = "isinf isnan isfinite".split()
CMATH = (
    "exp log log10 sqrt sin cos tan sinh cosh tanh asin acos atan asinh acosh atanh phase isnan isinf isfinite".split()
)
UFUNCS_UNARY = (
    "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp expm1 log log2 log10 log1p "
    "sqrt floor ceil trunc fabs deg2rad rad2deg negative absolute sign square reciprocal rint isnan isinf isfinite"
).split()
UFUNCS_BINARY = "add subtract multiply true_divide floor_divide remainder power arctan2 hypot maximum minimum fmax fmin copysign".split()


def _kernel(expression, name):
    source = f"def {name}(a, b, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = {expression}\n"
    namespace = {"cuda": cuda, "math": math, "cmath": cmath, "np": np}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[name]


def _domain_values(name, dtype, rng, n=300):
    """Inputs: specials, then random values spread over the function's interesting range."""
    dtype = np.dtype(dtype)
    specials = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 10.0, -10.0, np.inf, -np.inf, np.nan]
    spread = rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3, n)
    if name in ("gamma", "lgamma"):
        spread = rng.uniform(-30, 30, n)
    values = np.concatenate([specials, spread]).astype(dtype)
    if dtype.kind in "iu":
        values = np.concatenate([[0, 1, 2, 7], rng.integers(-1000 if dtype.kind == "i" else 0, 1000, n)]).astype(dtype)
    return values


# NumPy's ufuncs follow C99 (log(0) = -inf, atanh(1) = inf) where Python's math raises
_NUMPY = {
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "cosh": np.cosh,
    "sinh": np.sinh,
    "tanh": np.tanh,
    "tan": np.tan,
    "sin": np.sin,
    "cos": np.cos,
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "fabs": np.fabs,
    "ceil": np.ceil,
    "floor": np.floor,
    "trunc": np.trunc,
    "degrees": np.degrees,
    "radians": np.radians,
    "atan2": np.arctan2,
    "hypot": np.hypot,
    "copysign": np.copysign,
    "fmod": np.fmod,
    "pow": np.power,
}


def _c99(name, x):
    """C99's value where Python's math raises: the poles of gamma and lgamma."""
    if name == "gamma" and x == 0.0:
        return math.copysign(math.inf, x)
    if name == "lgamma" and x == math.floor(x) and x <= 0.0:
        return math.inf
    return math.nan


def _python_math(name, *args):
    try:
        return getattr(math, name)(*args)
    except ValueError:
        return _c99(name, *args) if len(args) == 1 else math.nan
    except OverflowError:
        return math.inf


def _reference(name, a, b, out_dtype, binary):
    with np.errstate(all="ignore"):
        if name in _NUMPY:
            args = (a.astype(np.float64), b.astype(np.float64)) if binary else (a.astype(np.float64),)
            return _NUMPY[name](*args).astype(out_dtype)
        values = [_python_math(name, x, y) if binary else _python_math(name, x) for x, y in zip(a.tolist(), b.tolist())]
        return np.array(values, dtype=np.float64 if out_dtype.kind == "f" else out_dtype).astype(out_dtype)


# name, expression, argument dtypes (a, b, out), operand maker, reference, rtol, atol
def math_cases():
    cases = []
    for name in UNARY + UNARY_HALF:
        types_ = ["float32", "float64", "int64"] + (["float16"] if name in UNARY_HALF else [])
        for t in types_:
            out = {"int64": "float64"}.get(t, t)
            cases.append((f"math.{name}-{t}", f"math.{name}(a[i])", (t, t, out), name, False))
    for name in BINARY:
        for t in ["float32", "float64"]:
            cases.append((f"math.{name}-{t}", f"math.{name}(a[i], b[i])", (t, t, t), name, True))
    for t in ["float32", "float64", "int64"]:
        for name in PREDICATES:
            cases.append((f"math.{name}-{t}", f"math.{name}(a[i])", (t, t, "bool"), name, False))
    return cases


_TOLERANCE = {"float16": (2e-3, 1e-4), "float32": (8e-6, 1e-6), "float64": (1e-14, 1e-15), "bool": (0, 0)}
_LOOSE = {"gamma", "lgamma", "erfc", "expm1", "acosh", "remainder", "fmod"}


def run_math_case(case, rng):
    label, expression, (ta, tb, tout), name, binary = case
    a = _domain_values(name, ta, rng)
    b = _domain_values(name, tb, rng)[::-1].copy()
    if name == "pow":
        b = np.where(np.abs(b) > 50, b / 100, b).astype(tb)
    kernel = cuda.jit(_kernel(expression, name))
    out = support.poisoned(len(a), tout)
    kernel[(len(a) + 127) // 128, 128](a, b, out)
    if name == "nextafter":  # the next representable value of the operands' own type
        expected = np.nextafter(a, b)
    else:
        expected = _reference(name, a, b, np.dtype(tout), binary)
    rtol, atol = _TOLERANCE[tout]
    if name in _LOOSE:
        rtol, atol = rtol * 16, atol * 16
    if name in ("lgamma", "gamma") and tout == "float32":
        atol = 1e-4
    _check(out, expected, rtol, atol, label, a)


def _check(actual, expected, rtol, atol, label, inputs):
    if expected.dtype.kind == "b":
        bad = np.nonzero(actual != expected)[0]
    else:
        actual64 = actual.astype(np.float64)
        expected64 = expected.astype(np.float64)
        with np.errstate(all="ignore"):
            ok = (actual64 == expected64) | (np.isnan(actual64) & np.isnan(expected64))
            ok |= np.abs(actual64 - expected64) <= atol + rtol * np.abs(expected64)
        bad = np.nonzero(~ok)[0]
    if len(bad):
        shown = ", ".join(f"f({inputs[i]!r}) = {actual[i]!r}, expected {expected[i]!r}" for i in bad[:5])
        raise AssertionError(f"{label}: {len(bad)} of {len(expected)} differ: {shown}")


def cmath_cases():
    return [(f"cmath.{name}-{t}", name, t) for name in CMATH for t in ("complex64", "complex128")]


def run_cmath_case(case, rng):
    label, name, t = case
    n = 300
    z = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3).astype(t)
    # away from the branch points (0, +-1, +-1j), where Python's cmath raises
    z = np.concatenate([np.array([2 + 0j, -3 + 0j, 0.5j, -2 - 2j, 0.25 - 0.5j], dtype=t), z])
    fn = getattr(cmath, name)
    probe = fn(complex(z[0]))
    out_dtype = {bool: "bool", float: "float32" if t == "complex64" else "float64"}.get(type(probe), t)
    kernel = cuda.jit(_kernel(f"cmath.{name}(a[i])", f"c_{name}"))
    out = support.poisoned(len(z), out_dtype)
    kernel[(len(z) + 127) // 128, 128](z, z, out)
    expected = np.array([fn(complex(v)) for v in z.astype(np.complex128)]).astype(out_dtype)
    if np.dtype(out_dtype).kind == "b":
        _check(out, expected, 0, 0, label, z)
        return
    rtol, atol = (5e-5, 5e-6) if t == "complex64" else (1e-12, 1e-13)
    for part in (np.real, np.imag):
        scale = np.maximum(np.abs(expected), 1.0)
        _check(part(out) / scale, part(expected) / scale, 0, atol + rtol, label + " " + part.__name__, z)


def ufunc_cases():
    cases = []
    for name in UFUNCS_UNARY:
        for t in ("float32", "float64", "int32"):
            if name == "reciprocal" and t == "int32":
                continue  # NumPy's integer reciprocal of 0 is platform-defined
            cases.append((f"np.{name}-{t}", name, (t,)))
    for name in UFUNCS_BINARY:
        for t in ("float32", "float64", "int64"):
            cases.append((f"np.{name}-{t}", name, (t, t)))
    return cases


def run_ufunc_case(case, rng):
    label, name, argtypes = case
    ufunc = getattr(np, name)
    n = 300
    t = argtypes[0]
    if np.dtype(t).kind == "f":
        a = np.concatenate([[0.0, -0.0, 1.0, -1.5, np.inf, np.nan], rng.standard_normal(n) * 4]).astype(t)
        b = np.concatenate([[1.0, 2.0, -0.0, np.nan, 3.0, 1.0], rng.standard_normal(n) * 4]).astype(t)
    else:
        a = np.concatenate([[0, 1, -1, 7], rng.integers(-50, 50, n)]).astype(t)
        b = np.concatenate([[1, 3, -2, 5], rng.integers(1, 9, n)]).astype(t)
    if name == "power" and np.dtype(t).kind in "iu":
        b = np.abs(b) % 5
    args = (a,) if len(argtypes) == 1 else (a, b)
    with np.errstate(all="ignore"):
        expected = ufunc(*args)
    expression = f"np.{name}(a[i])" if len(argtypes) == 1 else f"np.{name}(a[i], b[i])"
    kernel = cuda.jit(_kernel(expression, f"u_{name}"))
    out = support.poisoned(len(a), expected.dtype)
    kernel[(len(a) + 127) // 128, 128](a, b, out)
    rtol, atol = _TOLERANCE.get(str(expected.dtype), (0, 0))
    _check(out, expected, rtol, atol, label, a)


def all_kernels():
    """(kernel, argument type names) for every case above: what the PTX test compiles."""
    found = []
    for _label, expression, types_, name, _binary in math_cases():
        found.append((_kernel(expression, name), types_))
    for _label, name, t in cmath_cases():
        fn = getattr(cmath, name)
        probe = fn(1 + 1j)
        out = {bool: "bool", float: "float32" if t == "complex64" else "float64"}.get(type(probe), t)
        found.append((_kernel(f"cmath.{name}(a[i])", f"c_{name}"), (t, t, out)))
    for _label, name, argtypes in ufunc_cases():
        t = argtypes[0]
        with np.errstate(all="ignore"):
            out = getattr(np, name)(*(np.ones(1, t) for _ in argtypes)).dtype
        expression = f"np.{name}(a[i])" if len(argtypes) == 1 else f"np.{name}(a[i], b[i])"
        found.append((_kernel(expression, f"u_{name}"), (t, t, str(out))))
    return found
