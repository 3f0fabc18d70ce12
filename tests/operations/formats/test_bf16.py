"""bfloat16 and ``cuda.bf16``: typing, PTX on the nvptx back end (assembled by ptxas), the
nvvm back end's refusal, the host references, and (marked gpu) every intrinsic, operator
and conversion against float32 rounded to bfloat16 on the host."""

import math
import operator
import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.types import bfloat16

from ... import support
from ...cases import half_cases as hc

CCS = [(7, 5), (8, 0), (9, 0)]
NAMES = hc.AREAS["bf16"].function_names()
NUMBERS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]

# Numba-CUDA's numba.cuda.bf16 (its typing and target registries aside)
NUMBA_CUDA_NAMES = (
    "bfloat16 habs hadd hsub hmul hadd_rn hsub_rn hmul_rn hdiv hadd_sat hsub_sat hmul_sat hfma hfma_sat hneg "
    "hfma_relu heq hne hge hgt hle hlt hmax hmin hmax_nan hmin_nan hisinf hisnan hequ hneu hgeu hgtu hleu hltu "
    "float32_to_bfloat16 float64_to_bfloat16 bfloat16_to_float32 bfloat16_to_int8_rz bfloat16_to_uint8_rz "
    "bfloat16_as_int16 bfloat16_as_uint16 int16_as_bfloat16 uint16_as_bfloat16 htrunc hceil hfloor hrint hsqrt "
    "hrsqrt hrcp hlog hlog2 hlog10 hcos hsin htanh htanh_approx hexp hexp2 hexp10 "
    "bfloat162float float2bfloat16 double2bfloat16 bfloat162char_rz bfloat162uchar_rz "
    "bfloat16_as_short bfloat16_as_ushort short_as_bfloat16 ushort_as_bfloat16"
).split()
for _m in hc.MODES:
    NUMBA_CUDA_NAMES.append(f"float32_to_bfloat16_{_m}")
    NUMBA_CUDA_NAMES.append(f"float2bfloat16_{_m}")
    for _c, _t in (
        ("short", "int16"),
        ("ushort", "uint16"),
        ("int", "int32"),
        ("uint", "uint32"),
        ("ll", "int64"),
        ("ull", "uint64"),
    ):
        NUMBA_CUDA_NAMES += [
            f"{_t}_to_bfloat16_{_m}",
            f"bfloat16_to_{_t}_{_m}",
            f"{_c}2bfloat16_{_m}",
            f"bfloat162{_c}_{_m}",
        ]


def test_the_namespace_has_numba_cuda_names():
    from cumlir.cuda import bf16

    assert bf16 is cuda.bf16
    missing = [name for name in NUMBA_CUDA_NAMES if not hasattr(bf16, name)]
    assert not missing
    assert sorted(NAMES + ["bfloat16"]) == sorted(set(NUMBA_CUDA_NAMES))
    with pytest.raises(RuntimeError, match="bf16.bfloat16"):
        bf16.bfloat16(1.0)


def test_imported_as_a_module_as_in_numba_cuda():
    from cumlir.cuda.bf16 import bfloat16 as constructor
    from cumlir.cuda.bf16 import bfloat16_as_ushort, hadd

    assert constructor is cuda.bf16.bfloat16 and hadd is cuda.bf16.hadd

    def kernel(a, out):
        out[0] = bfloat16_as_ushort(hadd(constructor(a[0]), constructor(a[1])))

    ptx, _ = cuda.compile_ptx(kernel, "void(float32[:], uint16[:])", cc=(9, 0))
    assert re.search(r"add(\.rn)?\.bf16", ptx)
    with pytest.raises(ImportError):
        import cumlir.cuda.bf16.nothing  # noqa: F401


@pytest.mark.parametrize("cc", CCS)
def test_every_intrinsic_compiles_and_assembles(cc):
    hc.assembled_ptx(*hc.every_intrinsic("bf16"), cc)


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_fastmath_compiles_and_assembles(cc):
    # with flushed denormals LLVM would write setp.ftz.bf16, which ptxas rejects
    hc.assembled_ptx(*hc.every_intrinsic("bf16"), cc, fastmath=True)
    hc.assembled_ptx(_operators, "void(uint16[:], uint16[:], uint16[:, :], boolean[:, :])", cc, fastmath=True)
    hc.assembled_ptx(_math, "void(uint16[:], uint16[:])", cc, fastmath=True)


@pytest.mark.parametrize(
    "name,cc,instruction",
    [
        ("hadd", (9, 0), "add.rn.bf16|add.bf16"),  # no rounding modifier: ptxas may contract it (as nvcc's)
        ("hmul_rn", (9, 0), "mul.rn.bf16"),
        ("hfma", (8, 0), "fma.rn.bf16"),
        ("hgt", (9, 0), "setp.gt.bf16"),
        ("float2bfloat16_rn", (8, 0), "cvt.rn.bf16.f32"),
        ("ll2bfloat16_rz", (9, 0), "cvt.rz.f32.s64"),  # float32 toward zero, then made odd
        ("bfloat162int_rd", (9, 0), "cvt.rmi.s32.f32"),
        ("hsqrt", (9, 0), "sqrt.rn.f32"),
    ],
)
def test_intrinsics_reach_the_ptx(name, cc, instruction):
    kernel, sig, _, _ = hc.kernel("bf16", name)
    ptx = hc.assembled_ptx(kernel, sig, cc)
    assert any(form in ptx for form in instruction.split("|")), instruction


# ---- bfloat16 as a numba type ----------------------------------------------------------------


def _operators(a, b, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        p = cuda.bf16.ushort_as_bfloat16(a[i])
        q = cuda.bf16.ushort_as_bfloat16(b[i])
        r = p
        r += q
        out[i, 0] = cuda.bf16.bfloat16_as_ushort(p + q)
        out[i, 1] = cuda.bf16.bfloat16_as_ushort(p - q)
        out[i, 2] = cuda.bf16.bfloat16_as_ushort(p * q)
        out[i, 3] = cuda.bf16.bfloat16_as_ushort(p / q)
        out[i, 4] = cuda.bf16.bfloat16_as_ushort(-p)
        out[i, 5] = cuda.bf16.bfloat16_as_ushort(r)
        hc.store_comparisons(p, q, flags, i)


@pytest.mark.parametrize("cc", CCS)
def test_operators(cc):
    ptx, _ = cuda.compile_ptx(_operators, "void(uint16[:], uint16[:], uint16[:, :], boolean[:, :])", cc=cc)
    if cc >= (9, 0):
        # without a rounding modifier (contractible, the default) or with .rn
        for instruction in (r"add(\.rn)?\.bf16", r"sub(\.rn)?\.bf16", r"mul(\.rn)?\.bf16", r"setp\.ge\.bf16"):
            assert re.search(instruction, ptx), instruction
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_typing():
    from cumlir.typing.context import typing_context
    from cumlir.typing.target import target_override

    for op in (operator.add, operator.sub, operator.mul, operator.truediv):
        assert support.result_signature(op, "float32", "float32").return_type == types.float32
    ctx = typing_context()
    with target_override():
        for op in (operator.add, operator.truediv):
            sig = ctx.resolve_function_type(ctx.resolve_value_type(op), (bfloat16, bfloat16), {})
            assert sig.return_type == bfloat16
            mixed = ctx.resolve_function_type(ctx.resolve_value_type(op), (bfloat16, types.float32), {})
            assert mixed.return_type == types.float32
        compare = ctx.resolve_function_type(ctx.resolve_value_type(operator.lt), (bfloat16, bfloat16), {})
        assert compare.return_type == types.boolean
        for fn in (math.sin, math.sqrt, math.floor, math.tanh, math.exp2):
            sig = ctx.resolve_function_type(ctx.resolve_value_type(fn), (bfloat16,), {})
            assert sig.return_type == bfloat16, fn
    assert ctx.can_convert(bfloat16, types.float32) < ctx.can_convert(types.float32, bfloat16)


def _construct(source, target):
    scope = {"cuda": cuda, "np": np}
    exec(
        "def convert(a, bits, out):\n"
        "    i = cuda.grid(1)\n"
        "    if i < a.size:\n"
        "        x = cuda.bf16.bfloat16(a[i])\n"
        "        bits[i] = cuda.bf16.bfloat16_as_ushort(x)\n"
        f"        out[i] = np.{target}(x)\n",
        scope,
    )
    return scope["convert"]


@pytest.mark.parametrize("number", NUMBERS)
def test_conversions_from_and_to_every_type(number):
    kernel = _construct(number, number)
    ptx, _ = cuda.compile_ptx(kernel, f"void({number}[:], uint16[:], {number}[:])", cc=(8, 0))
    support.ptxas(ptx, "sm_80")


def _math(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = cuda.bf16.ushort_as_bfloat16(a[i])
        y = math.sin(x) + math.cos(x) + math.exp(x) + math.log(x) + math.sqrt(x) + math.tanh(x) + math.log10(x)
        y += math.floor(x) + math.ceil(x) + math.trunc(x) + math.exp2(x)
        out[i] = cuda.bf16.bfloat16_as_ushort(y)


def test_math_functions():
    ptx, _ = cuda.compile_ptx(_math, "void(uint16[:], uint16[:])", cc=(9, 0))
    support.ptxas(ptx)


# ---- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_nvvm_back_end_refuses_bfloat16_by_name_below_sm_100(cc):
    sig = "void(uint16[:], uint16[:], uint16[:, :], boolean[:, :])"
    with pytest.raises(NotImplementedError, match=r"bfloat16 is not supported by the nvvm code generator below sm_100"):
        cuda.compile_ptx(_operators, sig, cc=cc, backend="nvvm")

    def device(x):
        return x + x

    with pytest.raises(NotImplementedError, match="bfloat16 is not supported by the nvvm code generator"):
        cuda.compile_ptx(device, (bfloat16,), device=True, cc=cc, backend="nvvm")


def test_nvvm_back_end_compiles_bfloat16_from_sm_100():
    # libNVVM reads modern LLVM IR, which has bfloat, for sm_100 and newer
    kernel, sig = hc.every_intrinsic("bf16")
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(10, 0), backend="nvvm")
    support.ptxas(ptx, "sm_100")
    ptx, _ = cuda.compile_ptx(
        _operators, "void(uint16[:], uint16[:], uint16[:, :], boolean[:, :])", cc=(10, 0), backend="nvvm"
    )
    assert re.search(r"add(\.rn)?\.bf16", ptx)
    support.ptxas(ptx, "sm_100")


def _from_complex(a, out):
    out[0] = cuda.bf16.bfloat16_as_ushort(cuda.bf16.bfloat16(a[0]))


def _float_of(a, out):
    out[0] = float(cuda.bf16.ushort_as_bfloat16(a[0]))


def test_bad_conversions_are_typing_errors():
    with pytest.raises(TypingError, match=r"cuda.bf16.bfloat16 converts an integer or float, got complex64"):
        cuda.compile_ptx(_from_complex, "void(complex64[:], uint16[:])", cc=(9, 0))


def test_float_of_a_bfloat16_is_its_float64():
    # Numba-CUDA refuses float(x) of a bfloat16 (its float32(x) works); cumlir takes both
    ptx, _ = cuda.compile_ptx(_float_of, "void(uint16[:], float64[:])", cc=(9, 0))
    assert re.search(r"cvt\.f64\.f32", ptx)
    support.ptxas(ptx, "sm_90")


# ---- the host references -----------------------------------------------------------------------


def _bf16_bits_of_float32(values):
    """float32 -> bfloat16 bits, round to nearest even on the bit pattern (NaN: 0x7FFF)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(values), 0x7FFF, rounded).astype(np.uint16)


def test_exact_rounding_matches_float32_rounded_on_the_bits():
    rng = np.random.default_rng(5)
    values = (rng.standard_normal(5000) * 10.0 ** rng.integers(-40, 39, 5000)).astype(np.float32)
    values[:6] = [0.0, -0.0, np.inf, 3.4e38, 1e-40, -1e-45]
    expected = _bf16_bits_of_float32(values)
    got = hc.round_exact("bf16", hc.exact_values(values.astype(np.float64)), values.astype(np.float64))
    np.testing.assert_array_equal(hc.from_host("bf16", got), expected)
    # two bfloat16 operands: + - * / rounded exactly equal float32's result rounded on the bits
    a = hc.half_inputs("bf16", 3000, rng)
    b = hc.half_inputs("bf16", 3000, rng)[::-1].copy()
    with np.errstate(all="ignore"):
        for name, op in (("hadd", np.add), ("hsub", np.subtract), ("hmul", np.multiply), ("hdiv", np.divide)):
            ours = hc.reference("bf16", name)("bf16", [a, b])
            theirs = _bf16_bits_of_float32(op(a.astype(np.float32), b.astype(np.float32)))
            keep = ~np.isnan(ours)
            np.testing.assert_array_equal(hc.from_host("bf16", ours)[keep], theirs[keep], err_msg=name)


# ---- on the GPU ------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # integer casts and functions: semantics.md
@pytest.mark.parametrize("name", NAMES)
def test_intrinsic_on_gpu(name):
    hc.run_case("bf16", name, np.random.default_rng(sum(map(ord, name))))


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # integer casts and functions: semantics.md
def test_operators_on_gpu():
    rng = np.random.default_rng(17)
    n = 4096
    a = hc.half_inputs("bf16", n, rng)
    b = hc.half_inputs("bf16", n, rng)[::-1].copy()
    out = np.full((n, 6), 0x5A5A, np.uint16)
    flags = np.ones((n, 6), bool)
    # bfloat16 needs the nvptx code generator below sm_100 (whatever CUMLIR_BACKEND says)
    cuda.jit(_operators, backend="nvptx")[(n + 127) // 128, 128](
        hc.from_host("bf16", a), hc.from_host("bf16", b), out, flags
    )
    with np.errstate(all="ignore"):
        expected = [hc.reference("bf16", name)("bf16", [a, b]) for name in ("hadd", "hsub", "hmul", "hdiv")]
        expected += [-a, hc.reference("bf16", "hadd")("bf16", [a, b])]
    for k, e in enumerate(expected):
        hc.check_half_result("bf16", f"operator {k}", hc.to_host("bf16", out[:, k]), e)
    for k, op in enumerate(hc.COMPARISONS):
        np.testing.assert_array_equal(flags[:, k], op(a, b), err_msg=op.__name__)


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # integer casts and functions: semantics.md
@pytest.mark.parametrize("number", NUMBERS)
def test_conversions_on_gpu(number):
    rng = np.random.default_rng(len(number) + 100)
    n = 4096
    if number.startswith(("int", "uint")):
        source = hc.integer_inputs(number, n, rng)
        exact = [hc.Fraction(int(v)) for v in source]
    else:
        source = hc.float_inputs("float64", n, rng).astype(number)
        exact = hc.exact_values(source.astype(np.float64))
    bits = np.full(n, 0x5A5A, np.uint16)
    back = np.zeros(n, number)
    cuda.jit(_construct(number, number), backend="nvptx")[(n + 127) // 128, 128](source, bits, back)
    expected = hc.round_exact("bf16", exact, source.astype(np.float64))
    hc.check_half_result("bf16", f"bfloat16({number})", hc.to_host("bf16", bits), expected)
    # and back: exact to float32/float64, rounded to float16, truncated to an integer
    values = hc.to_host("bf16", bits)
    if number.startswith(("int", "uint")):
        low, high = hc.INT_RANGES[number]
        # high + 1 is a power of two, exact as a float: values from it up saturate on the GPU
        keep = np.isfinite(values) & (values >= low) & (values < float(high + 1))
        np.testing.assert_array_equal(back[keep], np.trunc(values[keep]).astype(number))
    else:
        np.testing.assert_array_equal(back, values.astype(number))
