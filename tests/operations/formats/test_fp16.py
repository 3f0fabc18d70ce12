"""float16 and ``cuda.fp16``: typing, PTX on both back ends (assembled by ptxas), errors,
the host references, and (marked gpu) every intrinsic and operator against NumPy's
float16 or an exact rounding on the host."""

import math
import operator

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support
from ...cases import half_cases as hc

CCS = [(7, 5), (8, 0), (9, 0)]
NAMES = hc.AREAS["fp16"].function_names()

# every name of Numba-CUDA's numba.cuda.fp16 but atomicAdd and the __half type
NUMBA_CUDA_NAMES = (
    "hadd hsub hmul hdiv hneg habs hfma hmax hmin heq hne hlt hle hgt hge "
    "hsqrt hrsqrt hrcp hceil hfloor htrunc hrint hexp hexp2 hexp10 hlog hlog2 hlog10 hsin hcos htanh htanh_approx "
    "__habs __hadd __hadd_rn __hadd_sat __hdiv __heq __hequ __hfma __hfma_relu __hfma_sat __hge __hgeu __hgt __hgtu "
    "__hisinf __hisnan __hle __hleu __hlt __hltu __hmax __hmax_nan __hmin __hmin_nan __hmul __hmul_rn __hmul_sat "
    "__hne __hneg __hneu __hsub __hsub_rn __hsub_sat __double2half __float2half __float2half_rd __float2half_rn "
    "__float2half_ru __float2half_rz __half2float __half2char_rz __half2uchar_rz "
    "__short_as_half __ushort_as_half __half_as_short __half_as_ushort"
).split() + [
    f"__{a}2{b}_{m}"
    for c in ("int", "ll", "short", "uint", "ull", "ushort")
    for a, b in ((c, "half"), ("half", c))
    for m in hc.MODES
]


def test_the_namespace_has_numba_cuda_names():
    from cumlir.cuda import fp16

    assert fp16 is cuda.fp16
    missing = [name for name in NUMBA_CUDA_NAMES if not hasattr(fp16, name)]
    assert not missing
    assert sorted(NAMES) == sorted(set(NUMBA_CUDA_NAMES))
    with pytest.raises(RuntimeError, match="fp16.hadd"):
        fp16.hadd(1.0, 2.0)


@pytest.mark.parametrize("kind,name,expected", hc.EXPECTED_SIGNATURES)
def test_signatures(kind, name, expected):
    assert hc.signature_text(kind, name) == expected


@pytest.mark.parametrize("cc", CCS)
def test_every_intrinsic_compiles_and_assembles(backend, cc):
    hc.assembled_ptx(*hc.every_intrinsic("fp16"), cc, backend)


def test_fastmath_compiles_and_assembles(backend):
    hc.assembled_ptx(*hc.every_intrinsic("fp16"), (9, 0), backend, fastmath=True)


@pytest.mark.parametrize(
    "name,instruction",
    [
        ("hadd", "add.rn.f16|add.f16"),  # no rounding modifier: ptxas may contract it (as nvcc's)
        ("__hmul_rn", "mul.rn.f16"),
        ("hfma", "fma.rn.f16"),
        ("heq", "setp.eq.f16"),
        ("__hltu", "setp.ltu.f16"),
        ("__float2half_rz", "cvt.rz.f16.f32"),
        ("__ll2half_ru", "cvt.rp.f16.s64"),
        ("__ushort2half_rd", "cvt.rm.f16.u16"),
        ("__half2int_rd", "cvt.rmi.s32.f32"),
        ("__half2ull_ru", "cvt.rpi.u64.f32"),
        ("__half2char_rz", "cvt.rzi.s8.f32"),
        ("hsin", "cvt.rn.f16.f32"),  # computed in float32, rounded once
    ],
)
def test_intrinsics_reach_the_ptx(backend, name, instruction):
    kernel, sig, _, _ = hc.kernel("fp16", name)
    ptx = hc.assembled_ptx(kernel, sig, (9, 0), backend)
    assert any(form in ptx for form in instruction.split("|")), instruction


# ---- float16 as a numba type: arguments, arrays, operators, conversions --------------------

INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _operators(a, b, x, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        p, q = a[i], b[i]
        out[i, 0] = p + q
        out[i, 1] = p - q
        out[i, 2] = p * q
        out[i, 3] = p / q
        out[i, 4] = -p
        out[i, 5] = abs(p)
        out[i, 6] = x + p  # a float16 scalar argument
        hc.store_comparisons(p, q, flags, i)


def test_operators_and_scalar_arguments(backend):
    sig = "void(float16[:], float16[:], float16, float16[:, :], boolean[:, :])"
    ptx, _ = cuda.compile_ptx(_operators, sig, cc=(7, 5), backend=backend)
    # without a rounding modifier (contractible, the default) or with .rn (fma=False, nvvm)
    for instruction in (
        "add.rn.f16|add.f16",
        "sub.rn.f16|sub.f16",
        "mul.rn.f16|mul.f16",
        "setp.ge.f16",
        "ld.param.b16",
    ):
        assert any(form in ptx for form in instruction.split("|")), instruction
    support.ptxas(ptx, "sm_75")


def test_operator_typing():
    f16 = types.float16
    for op in (operator.add, operator.sub, operator.mul, operator.truediv):
        assert support.result_signature(op, "float16", "float16").return_type == f16
        assert support.result_signature(op, "float16", "float32").return_type == types.float32
    assert support.result_signature(operator.lt, "float16", "float16").return_type == types.boolean


def test_abs_keeps_float16():
    # Numba-CUDA's typing: abs of a float16 is a float16 (a conditional choosing between
    # abs(h) and another float16 would otherwise mix float32 and float16)
    from cumlir.typing.context import typing_context
    from cumlir.typing.target import target_override

    ctx = typing_context()
    with target_override():
        signature = ctx.resolve_function_type(ctx.resolve_value_type(abs), (types.float16,), {})
    assert signature.return_type == types.float16


def _abs_choice(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = abs(a[i]) if a[i] < 1 else -a[i]


def test_abs_of_float16_is_exact(simulator_or_gpu):
    a = np.array([-1.5, 2.0, -0.0, -np.inf, np.nan, 65504, -6e-8, 0.5], np.float16)
    out = np.full(a.size, 7, np.float16)
    cuda.jit(_abs_choice)[1, a.size](a, out)
    expected = np.where(a < 1, np.abs(a), -a)
    numbers = ~np.isnan(expected)  # a NaN's sign and payload are the hardware's (the GPU's is 0x7fff)
    np.testing.assert_array_equal(out[numbers].view(np.uint16), expected[numbers].view(np.uint16))
    assert np.isnan(out[~numbers]).all()


def _conversion_kernel(target):
    scope = {"cuda": cuda, "np": np}
    exec(
        f"def convert(a, out):\n    i = cuda.grid(1)\n    if i < a.size:\n        out[i] = np.{target}(a[i])\n",
        scope,
    )
    return scope["convert"]


@pytest.mark.parametrize("other", INTS + ["float32", "float64", "bool"])
def test_conversions_to_and_from_every_type(backend, other):
    array = "boolean" if other == "bool" else other
    target = "bool_" if other == "bool" else other
    for dest, sig in ((target, f"void(float16[:], {array}[:])"), ("float16", f"void({array}[:], float16[:])")):
        ptx, _ = cuda.compile_ptx(_conversion_kernel(dest), sig, cc=(8, 0), backend=backend)
        support.ptxas(ptx, "sm_80")


def _math_on_half(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[i] = math.sin(x) + math.cos(x) + math.exp(x) + math.log(x) + math.sqrt(x) + math.tanh(x) + math.fabs(x)
        out[i] += math.log2(x) + math.log10(x) + math.floor(x) + math.ceil(x) + math.trunc(x)


def test_math_functions_keep_float16(backend):
    ptx, sig = cuda.compile_ptx(_math_on_half, "void(float16[:], float16[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx)
    from cumlir.typing.context import typing_context
    from cumlir.typing.target import target_override

    ctx = typing_context()
    with target_override():
        for fn in (math.sin, math.tanh, math.sqrt, math.floor):
            resolved = ctx.resolve_function_type(ctx.resolve_value_type(fn), (types.float16,), {})
            assert resolved.return_type == types.float16, fn


# ---- errors --------------------------------------------------------------------------------


def _bad_arity(a, out):
    out[0] = cuda.fp16.hadd(a[0], a[1], a[2])


def _bad_type(a, out):
    out[0] = cuda.fp16.hsin(a[0])


def test_bad_calls_are_typing_errors_naming_the_intrinsic_and_line():
    with pytest.raises(TypingError, match=r"fp16.hadd(.|\n)*line"):
        cuda.compile_ptx(_bad_arity, "void(float16[:], float16[:])", cc=(9, 0))
    with pytest.raises(TypingError, match=r"fp16.hsin"):
        cuda.compile_ptx(_bad_type, "void(complex64[:], float16[:])", cc=(9, 0))


# ---- the host references ------------------------------------------------------------------


def test_exact_rounding_matches_numpy_float16():
    # NumPy's float16 + - * / round correctly: the references must agree with it
    rng = np.random.default_rng(7)
    a = hc.half_inputs("fp16", 3000, rng)
    b = hc.half_inputs("fp16", 3000, rng)[::-1].copy()
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    with np.errstate(all="ignore"):
        for name, op in (("hadd", np.add), ("hsub", np.subtract), ("hmul", np.multiply), ("hdiv", np.divide)):
            expected = op(a16, b16).astype(np.float64)
            hc.check_half_result("fp16", name, hc.reference("fp16", name)("fp16", [a, b]), expected)
        root = hc.reference("fp16", "hsqrt")("fp16", [np.abs(a)])
        hc.check_half_result("fp16", "hsqrt", root, np.sqrt(np.abs(a16)).astype(np.float64))
        f32 = hc.float_inputs("float32", 3000, rng)
        f64 = hc.float_inputs("float64", 3000, rng)
        for name, column in (("__float2half_rn", f32), ("__float2half", f32), ("__double2half", f64)):
            got = hc.reference("fp16", name)("fp16", [column])
            hc.check_half_result("fp16", name, got, column.astype(np.float16).astype(np.float64))
        for mode in hc.MODES:
            # directed roundings bracket the nearest one
            values = [math.pi * 1000, -math.e / 7, 65519.0, 65520.0, -1e-8, 2049.0]
            exact = [hc.Fraction(v) for v in values]
            got = hc.round_exact("fp16", exact, np.array(values), mode)
            nearest = np.array(values).astype(np.float16).astype(np.float64)
            if mode == "rn":
                np.testing.assert_array_equal(got, nearest)
            assert all(abs(g - v) < 65 or math.isinf(g) for g, v in zip(got, values))


# ---- on the GPU ----------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # integer casts and functions: semantics.md
@pytest.mark.parametrize("name", NAMES)
def test_intrinsic_on_gpu(name, backend):
    hc.run_case("fp16", name, np.random.default_rng(sum(map(ord, name))), backend=backend)


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # integer casts and functions: semantics.md
def test_operators_on_gpu(backend):
    rng = np.random.default_rng(16)
    n = 4096
    a = hc.half_inputs("fp16", n, rng).astype(np.float16)
    b = hc.half_inputs("fp16", n, rng)[::-1].astype(np.float16)
    x = np.float16(0.333)
    out = np.full((n, 7), np.nan, np.float16)
    flags = np.ones((n, 6), bool)
    cuda.jit(_operators, backend=backend)[(n + 127) // 128, 128](a, b, x, out, flags)
    with np.errstate(all="ignore"):
        expected = [a + b, a - b, a * b, a / b, -a, np.abs(a), x + a]
    for k, e in enumerate(expected):
        hc.check_half_result("fp16", f"operator {k}", out[:, k].astype(np.float64), e.astype(np.float64))
    for k, op in enumerate(hc.COMPARISONS):
        np.testing.assert_array_equal(flags[:, k], op(a, b), err_msg=op.__name__)


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # integer casts and functions: semantics.md
@pytest.mark.parametrize("other", INTS + ["float32", "float64"])
def test_conversions_on_gpu(other):
    rng = np.random.default_rng(len(other))
    n = 4096
    halves = hc.half_inputs("fp16", n, rng).astype(np.float16)
    if other.startswith(("int", "uint")):
        low, high = hc.INT_RANGES[other]
        halves = halves[np.isfinite(halves) & (halves >= low) & (halves <= high)]
        source = hc.integer_inputs(other, n, rng)
    else:
        source = hc.float_inputs(other, n, rng)
    out = np.zeros(len(halves), other)
    cuda.jit(_conversion_kernel(other))[(n + 127) // 128, 128](halves, out)
    np.testing.assert_array_equal(out, halves.astype(other))  # to an integer: truncated, as NumPy does
    back = np.full(n, np.nan, np.float16)
    cuda.jit(_conversion_kernel("float16"))[(n + 127) // 128, 128](source, back)
    if other.startswith("float"):
        exact = hc.exact_values(source.astype(np.float64))
    else:
        exact = [hc.Fraction(int(v)) for v in source]
    expected = hc.round_exact("fp16", exact, source.astype(np.float64))
    hc.check_half_result("fp16", f"float16({other})", back.astype(np.float64), expected)
