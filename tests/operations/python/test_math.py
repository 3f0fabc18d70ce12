"""The ``math`` module (operations/python/math.py): Numba-CUDA's typing (floats from
floor/ceil/trunc, float32 kept, integers computed in float64, float16 and bfloat16 where it
takes them); the libdevice routine each function and type calls (``__nv_<name>f`` for float32,
the ``__nv_fast_`` ones under fastmath, float32's for float16); the code run on the host
(tests/nrt_harness.py, libdevice's routines bound to the C library's of the same name), which
checks that each function reaches its routine with its arguments converted, exactly for the
functions IEEE defines exactly (sqrt, floor, fmod, ..., frexp, modf, ldexp), within a few units
for the others; PTX on both code generators. libdevice's own results are test_math_gpu.py's."""

import ctypes
import functools
import math
import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import compiler, cuda
from cumlir import types as cumlir_types
from cumlir.codegen.passes import pipeline
from cumlir.compiler import type_function
from cumlir.options import Options

from ... import nrt_harness, support
from ...cases import math_cases

UNARY = math_cases.UNARY + math_cases.UNARY_HALF
BINARY = math_cases.BINARY
PREDICATES = math_cases.PREDICATES
# IEEE defines these to the last bit: the C library's and libdevice's agree with NumPy's exactly
EXACT = {"sqrt", "fabs", "floor", "ceil", "trunc", "copysign", "fmod", "remainder", "nextafter"}
# libdevice's names where they are not the function's
LIBDEVICE_NAMES = {"gamma": "tgamma"}
# Numba-CUDA's approximate float32 routines under fastmath
FAST = {"sin", "cos", "tan", "exp", "log", "log2", "log10", "pow"}

ROW_FREXP, ROW_MODF = len(UNARY) + len(BINARY), len(UNARY) + len(BINARY) + 1


def _every_math_source():
    lines = [f"        out[{k}, i] = math.{name}(a[i])" for k, name in enumerate(UNARY)]
    lines += [
        f"        out[{len(UNARY) + k}, i] = math.{name}(a[i], b[i])" for k, name in enumerate(BINARY) if name != "pow"
    ]
    lines += [
        f"        out[{len(UNARY) + BINARY.index('pow')}, i] = math.pow(a[i], c[i])",
        "        m, e = math.frexp(a[i])",
        f"        out[{ROW_FREXP}, i] = m",
        "        ints[0, i] = e",
        "        fraction, whole = math.modf(a[i])",
        f"        out[{ROW_MODF}, i] = fraction",
        f"        out[{ROW_MODF + 1}, i] = whole",
        f"        out[{ROW_MODF + 2}, i] = math.ldexp(a[i], n[i])",
    ]
    lines += [f"        flags[{k}, i] = math.{name}(a[i])" for k, name in enumerate(PREDICATES)]
    return "def every_math(out, ints, flags, a, b, c, n):\n    for i in range(a.size):\n" + "\n".join(lines) + "\n"


_scope = {"math": math}
exec(compile(_every_math_source(), "<every_math>", "exec"), _scope)
every_math = _scope["every_math"]
ROWS = ROW_MODF + 3


def _argtypes(dtype):
    ty = support.numba_type(dtype)
    result = types.float32 if dtype == "float32" else types.float64
    return (result[:, ::1], types.int32[:, ::1], types.boolean[:, ::1], ty[::1], ty[::1], ty[::1], types.int32[::1])


def _operands(dtype, rng):
    """Specials, values spread over ten decades, and over gamma's range; b reversed, c scaled
    so that powers stay finite; n exponents for ldexp."""
    if dtype == "int64":
        a = np.concatenate([[0, 1, 2, 7, -1, -3, 170, -1000], rng.integers(-1000, 1000, 300)]).astype(dtype)
    else:
        specials = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 10.0, -10.0, np.inf, -np.inf, np.nan, 1e-40, 3e38]
        spread = rng.standard_normal(500) * 10.0 ** rng.integers(-3, 3, 500)
        a = np.concatenate([specials, spread, rng.uniform(-30, 30, 200)]).astype(dtype)
    b = a[::-1].copy()
    c = np.where(np.abs(b) > 50, b / 100, b).astype(dtype)
    n = rng.integers(-140, 140, a.size).astype(np.int32)
    return a, b, c, n


@functools.cache
def _host_kernel(dtype):
    return nrt_harness.Kernel(every_math, _argtypes(dtype))


def _run(dtype, a, b, c, n):
    result = np.float32 if dtype == "float32" else np.float64
    out = support.poisoned(ROWS * a.size, result).reshape(ROWS, a.size)
    ints = np.full((1, a.size), 0x5A5A, np.int32)
    flags = np.full((len(PREDICATES), a.size), 7, np.uint8).view(np.bool_)
    _host_kernel(dtype)(out, ints, flags, a, b, c, n)
    return out, ints, flags


def _within(got, expected, ulps, label, inputs, scale_floor=None):
    """Within *ulps* units in the last place of the result type at the scale of |expected|
    (or of *scale_floor*, where larger), NaN where NaN is expected, infinities equal."""
    eps = float(np.finfo(got.dtype).eps)
    floor = scale_floor if scale_floor is not None else float(np.finfo(got.dtype).tiny)
    g, e = got.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = (g == e) | (np.isnan(g) & np.isnan(e)) | (np.abs(g - e) <= ulps * eps * np.maximum(np.abs(e), floor))
    bad = np.flatnonzero(~ok)
    assert not len(bad), f"{label}: " + ", ".join(
        f"f({inputs[k]!r}) = {got[k]!r}, expected {expected[k]!r}" for k in bad[:5]
    )


def _reference(name, a, b, result):
    """NumPy's function (C99's values at poles, where Python's math raises), in float64."""
    if name == "nextafter":  # the next value of the operands' own type
        return np.nextafter(a.astype(result), b.astype(result))
    return math_cases._reference(name, a, b, np.dtype(result), name in BINARY)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_every_function_reaches_its_routine(dtype, rng):
    a, b, c, n = _operands(dtype, rng)
    out, ints, flags = _run(dtype, a, b, c, n)
    result = out.dtype
    for row, name in enumerate(UNARY + BINARY):
        second = c if name == "pow" else b
        expected = _reference(name, a, second, result)
        if name in EXACT:
            _within(out[row], expected, 0, f"math.{name}", a)
        elif name == "lgamma":
            _within(out[row], expected, 8, name, a, scale_floor=1.0)  # absolute near its zeros
        else:
            # the C library's routines, within a unit or two of NumPy's; the reference rounds
            # once more for float32; gamma's a few more
            _within(out[row], expected, 16 if name == "gamma" else 4, f"math.{name}", a)
    mantissa, exponent = np.frexp(a.astype(result))
    _within(out[ROW_FREXP], mantissa, 0, "frexp", a)
    finite = np.isfinite(a.astype(result))
    np.testing.assert_array_equal(ints[0][finite], exponent[finite])
    fraction, whole = np.modf(a.astype(result))
    _within(out[ROW_MODF], fraction, 0, "modf fraction", a)
    _within(out[ROW_MODF + 1], whole, 0, "modf whole", a)
    with np.errstate(over="ignore"):
        _within(out[ROW_MODF + 2], np.ldexp(a.astype(result), n), 0, "ldexp", a)
    for row, name in enumerate(PREDICATES):
        np.testing.assert_array_equal(flags[row], getattr(np, name)(a), err_msg=name)


def test_degrees_and_radians_round_once_in_the_type(rng):
    # x times the constant rounded to the type: within an ulp of the float64 product
    for dtype in ("float32", "float64"):
        a = (rng.standard_normal(500) * 100).astype(dtype)
        out, _, _ = _run(dtype, a, a, a, np.zeros(a.size, np.int32))
        for name, factor in (("degrees", 180 / math.pi), ("radians", math.pi / 180)):
            exact = (a.astype(np.float64) * factor).astype(dtype)
            _within(out[UNARY.index(name)], exact, 1, name, a)


# ---- pow with an integer exponent ------------------------------------------------------------------


_POWI = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int32)(lambda x, k: math.pow(x, k))
_POWIF = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_int32)(lambda x, k: math.pow(x, k))


def integer_powers(out32, out64, x32, x64, n):
    for i in range(n.size):
        out32[i] = math.pow(x32[i], n[i])
        out64[i] = math.pow(x64[i], n[i])


def test_pow_with_an_int32_exponent_calls_powi():
    # the C library has no powi: the harness binds Python's pow under libdevice's names, so
    # this checks the routine chosen and the exponent passed as an int32
    argtypes = (types.float32[::1], types.float64[::1], types.float32[::1], types.float64[::1], types.int32[::1])
    kernel = nrt_harness.Kernel(integer_powers, argtypes, externals=[("__nv_powi", _POWI), ("__nv_powif", _POWIF)])
    x = np.array([2.0, 1.5, -3.0, 0.5, 10.0])
    n = np.array([10, -3, 5, 2**31 - 1, -(2**31)], np.int32)
    out32, out64 = support.poisoned(5, np.float32), support.poisoned(5, np.float64)
    kernel(out32, out64, x.astype(np.float32), x, n)
    with np.errstate(all="ignore"):
        expected = np.power(x, n.astype(np.float64))
    np.testing.assert_array_equal(out64, expected)
    np.testing.assert_array_equal(out32, expected.astype(np.float32))


# ---- typing ----------------------------------------------------------------------------------------


def _type_of(name, *argtypes):
    names = ", ".join(f"x{k}" for k in range(len(argtypes)))
    scope = {"math": math}
    exec(f"def f({names}):\n    return math.{name}({names})\n", scope)
    return type_function(scope["f"], argtypes).return_type


INTEGERS = [types.int8, types.int32, types.int64, types.uint32, types.uint64, types.boolean]
BFLOAT16_TOO = set("trunc ceil floor sqrt log log10 cos sin tanh exp exp2".split())


@pytest.mark.parametrize("name", UNARY)
def test_unary_typing_is_numba_cudas(name):
    # floor, ceil and trunc return floats too (the CPU target's return integers)
    assert _type_of(name, types.float32) == types.float32
    assert _type_of(name, types.float64) == types.float64
    for integer in INTEGERS:
        assert _type_of(name, integer) == types.float64, integer  # computed in float64
    # float16 stays float16 where Numba-CUDA takes it, else it converts to float32
    assert _type_of(name, types.float16) == (types.float16 if name in math_cases.UNARY_HALF else types.float32)
    if name in BFLOAT16_TOO:
        assert _type_of(name, cumlir_types.bfloat16) == cumlir_types.bfloat16


@pytest.mark.parametrize("name", BINARY)
def test_binary_typing_is_numba_cudas(name):
    assert _type_of(name, types.float32, types.float32) == types.float32
    assert _type_of(name, types.float32, types.float64) == types.float64
    assert _type_of(name, types.int64, types.int64) == types.float64
    assert _type_of(name, types.int32, types.float32) == types.float64


@pytest.mark.parametrize(
    "name, argtypes, expected",
    [
        ("isnan", (types.int32,), types.boolean),
        ("isinf", (types.uint64,), types.boolean),
        ("isfinite", (types.float32,), types.boolean),
        ("pow", (types.float32, types.int32), types.float32),
        ("pow", (types.float64, types.int32), types.float64),
        ("frexp", (types.float32,), types.Tuple([types.float32, types.int32])),
        ("frexp", (types.int64,), types.Tuple([types.float64, types.int32])),
        ("modf", (types.float32,), types.UniTuple(types.float32, 2)),
        ("ldexp", (types.float32, types.int64), types.float32),
        ("ldexp", (types.float64, types.int32), types.float64),
    ],
)
def test_other_typing_is_numba_cudas(name, argtypes, expected):
    assert _type_of(name, *argtypes) == expected


@pytest.mark.parametrize(
    "name, argtypes",
    [
        ("sin", (types.complex128,)),
        ("sqrt", (types.float64, types.float64)),
        ("atan2", (types.float64,)),
        ("frexp", (types.complex64,)),
    ],
)
def test_arguments_outside_the_typing_are_typing_errors(name, argtypes):
    with pytest.raises(TypingError, match=name):
        _type_of(name, *argtypes)


# ---- the routines called -----------------------------------------------------------------------------


def _declared(pyfunc, argtypes, **options):
    """The libdevice routines the kernel's LLVM IR declares (before libdevice is linked)."""
    c = compiler.kernel(pyfunc, argtypes, (9, 0), Options(backend="nvptx", **options), until="llvm")
    with c.builder.context:
        text = pipeline.llvm_ir_of(c.module)
    return set(re.findall(r"^declare [^@]*@(__nv_\w+)\(", text, re.MULTILINE))


def _libdevice(name):
    return f"__nv_{LIBDEVICE_NAMES.get(name, name)}"


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_double_precision_calls_the_double_routines(dtype):
    declared = _declared(every_math, _argtypes(dtype))
    routines = {_libdevice(name) for name in UNARY + BINARY if name not in ("degrees", "radians")}
    routines |= {"__nv_frexp", "__nv_modf", "__nv_ldexp"}
    assert declared == routines


@pytest.mark.parametrize("fastmath", [False, True])
def test_float32_calls_the_float32_routines(fastmath):
    declared = _declared(every_math, _argtypes("float32"), fastmath=fastmath)
    expected = set()
    for name in UNARY + BINARY:
        if name in ("degrees", "radians"):
            continue  # a product
        if name == "sqrt":
            # libdevice's plain sqrtf is approximate unless told otherwise: the correctly
            # rounded one, unless fastmath allows the approximation
            expected.add("__nv_sqrtf" if fastmath else "__nv_fsqrt_rn")
        elif fastmath and name in FAST:
            expected.add(f"__nv_fast_{name}f")
        else:
            expected.add(_libdevice(name) + "f")
    expected |= {"__nv_frexpf", "__nv_modff", "__nv_ldexpf"}
    assert declared == expected


def half_math(out, a):
    for i in range(a.size):
        out[0, i] = math.sin(a[i])
        out[1, i] = math.sqrt(a[i])
        out[2, i] = math.floor(a[i])
        out[3, i] = math.exp(a[i])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_floats_compute_with_the_float32_routines(dtype):
    ty = types.float16 if dtype == "float16" else cumlir_types.bfloat16
    declared = _declared(half_math, (ty[:, ::1], ty[::1]))
    assert declared == {"__nv_sinf", "__nv_fsqrt_rn", "__nv_floorf", "__nv_expf"}


# ---- PTX ---------------------------------------------------------------------------------------------


def test_every_function_compiles_and_assembles(backend):
    # float32's routines are assembled by the fastmath test below, float16's next
    ptx, _ = cuda.compile_ptx(every_math, _argtypes("float64"), cc=(9, 0), backend=backend)
    support.ptxas(ptx)


def test_float16_functions_compile_and_assemble(backend):
    ptx, _ = cuda.compile_ptx(half_math, (types.float16[:, ::1], types.float16[::1]), cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    assert "cvt.rn.f16.f32" in ptx  # computed in float32, rounded once


def test_fastmath_uses_the_approximate_instructions(backend):
    ptx, _ = cuda.compile_ptx(every_math, _argtypes("float32"), cc=(9, 0), backend=backend, fastmath=True)
    support.ptxas(ptx)
    for instruction in ("sin", "cos", "ex2", "lg2"):
        assert re.search(rf"\b{instruction}\.approx(\.ftz)?\.f32", ptx), instruction
