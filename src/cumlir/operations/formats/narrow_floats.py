"""The narrow floats (``types.f8E4M3FN``, ``f8E5M2``, ``f8E4M3FNUZ``, ``f8E5M2FNUZ``,
``f8E4M3``, ``f8E3M4``, ``f8E4M3B11FNUZ``, ``f8E8M0FNU``, ``f6E2M3FN``, ``f6E3M2FN``, ``f4E2M1FN``): their conversions to and from the
other numbers, their operators and ``cuda.to_narrow_satfinite``.

A value is the one-byte code ml_dtypes stores (``models.NarrowFloatModel``). Every
conversion goes through float32, which holds every narrow value exactly:

- up, exactly, by placing the code's fields in a float32 (a NaN becomes the quiet NaN
  ml_dtypes gives: of its sign, negative for FNUZ);
- down, rounding to nearest even (integers first rounded to float32 *to odd*, as for
  bfloat16, so that the second rounding is the one correct rounding; float64 first rounded
  to float32 to nearest, as ml_dtypes' ``astype`` does, so that device and host agree on
  every value), with what
  ml_dtypes' ``astype`` does at the edges: out of range is infinity for f8E5M2, NaN for the
  FN and FNUZ formats and the largest finite value for the float6 and float4 ones; a NaN
  keeps its sign (FNUZ has one NaN; float6 and float4, which have none, give ml_dtypes'
  zero of the opposite sign); FNUZ has no -0. f8E8M0FNU rounds ties up on normal float32
  values, as ml_dtypes does, and is NaN for zero and every negative number.

On sm_89 and newer, f8E4M3FN and f8E5M2 convert with PTX's ``cvt`` (``cvt.rn.f16x2.e4m3x2``
up, ``cvt.rn.satfinite.e4m3x2.f32`` down; PTX ISA 8.1 on sm_89, recorded where that path is
kept); ``satfinite`` clamps where ml_dtypes gives NaN or
infinity, so a comparison against the format's overflow threshold picks that result. The
lowering cannot know the chip (the ``mlir`` stage is shared by all), so it writes both paths
under a condition marked ``CHIP_AT_LEAST``, which ``codegen/passes/pipeline.set_target``
settles per chip before canonicalization drops the other path.

Operators (``+ - * /``, negation, comparisons) on two values of one narrow type compute in
float32 and round back to that type, as numba-cuda-mlir does; mixed with another number,
a narrow float converts as bfloat16 does (``types.NarrowFloat``).
"""

import operator

from ...marks import CHIP_AT_LEAST, CHIP_PATH_PTX, CHIP_PATHS
from .._support.api import Stub, cast, declare
from .._support.modules import arith, errors, ir, llvm, scf, templates, types
from ..python.scalars import FLOAT_PREDICATES
from ._half import declare_operators
from .bf16 import to_float32_odd

# the formats PTX's cvt converts (sm_89 and newer): name -> (PTX's name, float32 bits of the
# midpoint between the largest value and the next power of two: 464.0 rounds to 448 (even),
# 61440.0 to infinity (57344's code is odd); beyond it ml_dtypes gives NaN or infinity)
_HARDWARE = {"f8E4M3FN": ("e4m3x2", 0x43E80000), "f8E5M2": ("e5m2x2", 0x47700000)}
_HARDWARE_CC = 89  # the first chip with the e4m3/e5m2 conversions
_HARDWARE_PTX = 81  # ptxas takes them for sm_89 from PTX ISA 8.1, above what cumlir writes for it by default

# the narrow types by name (cumlir.types, not imported here: importing stays cheap)
NAMES = (
    "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3", "f8E3M4", "f8E4M3B11FNUZ", "f8E8M0FNU", "f6E2M3FN",
    "f6E3M2FN", "f4E2M1FN",
)  # fmt: skip

to_narrow_satfinite = Stub(
    "to_narrow_satfinite",
    "to_narrow_satfinite(x, ty): the number x rounded to the narrow float type ty (nearest even), "
    "out-of-range values and infinities clamped to ty's largest finite value, as PTX's cvt.satfinite.",
)


def _i(bits):
    return ir.IntegerType.get_signless(bits)


def _k(value, bits=32):
    return arith.constant(_i(bits), value)


def _cmp(predicate, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, predicate), a, b)


def _pick(condition, if_true, if_false):
    return arith.select(condition, if_true, if_false)


def _round_shift(value, shift, ties_away):
    """*value* >> *shift* (an i32, at least 1), rounded to nearest: ties even, or away."""
    quotient = arith.shrui(value, shift)
    rest = arith.andi(value, arith.subi(arith.shli(_k(1), shift), _k(1)))
    half = arith.shli(_k(1), arith.subi(shift, _k(1)))
    if ties_away:
        up = _cmp("uge", rest, half)
    else:
        odd = _cmp("ne", arith.andi(quotient, _k(1)), _k(0))
        up = arith.ori(_cmp("ugt", rest, half), arith.andi(_cmp("eq", rest, half), odd))
    return arith.addi(quotient, arith.extui(_i(32), up))


def _magnitude_code(magnitude, ty):
    """The code of |x| (float32 bits *magnitude*, not NaN) rounded to *ty*'s exponent and
    mantissa, unbounded above: normal values round on their own bits (a carry moves into the
    exponent), subnormal ones on the significand shifted to the format's least exponent."""
    m, bias = ty.mantissa_bits, ty.bias
    exponent = arith.shrui(magnitude, _k(23))
    normal = arith.subi(_round_shift(magnitude, _k(23 - m), ty.kind == "e8m0"), _k((127 - bias) << m))
    effective = arith.maxui(exponent, _k(1))
    hidden = _pick(_cmp("ne", exponent, _k(0)), _k(0x800000), _k(0))
    significand = arith.ori(arith.andi(magnitude, _k(0x7FFFFF)), hidden)
    shift = arith.minui(arith.subi(_k(151 - m - bias), effective), _k(31))
    subnormal = _round_shift(significand, shift, False)
    return _pick(_cmp("uge", exponent, _k(128 - bias)), normal, subnormal)


def _software_from_float32(value, ty, saturate):
    """float32 *value* -> the i8 code of *ty*, bit manipulation only."""
    bits = arith.bitcast(_i(32), value)
    sign = arith.shrui(bits, _k(31))
    magnitude = arith.andi(bits, _k(0x7FFFFFFF))
    code = _magnitude_code(magnitude, ty)
    nan = _cmp("ugt", magnitude, _k(0x7F800000))
    all_ones = (1 << (ty.bitwidth - 1)) - 1
    signed = arith.shli(sign, _k(ty.bitwidth - 1))
    kind = ty.kind
    if kind == "ieee":
        infinity = ((1 << ty.exponent_bits) - 1) << ty.mantissa_bits
        code = arith.minui(code, _k(infinity - 1 if saturate else infinity))
        out = _pick(nan, _k(infinity | 1 << (ty.mantissa_bits - 1)), code)
        out = arith.ori(signed, out)
    elif kind == "fn":
        out = arith.ori(signed, _pick(nan, _k(all_ones), arith.minui(code, _k(all_ones - 1 if saturate else all_ones))))
    elif kind == "fnuz":
        over = _cmp("ugt", code, _k(all_ones))
        code = arith.minui(code, _k(all_ones))
        out = _pick(_cmp("eq", code, _k(0)), _k(0), arith.ori(signed, code))
        out = _pick(nan if saturate else arith.ori(nan, over), _k(0x80), out)
    elif kind == "finite":
        # ml_dtypes: NaN, which these formats lack, becomes the zero of the opposite sign
        nan_code = arith.shli(arith.xori(sign, _k(1)), _k(ty.bitwidth - 1))
        out = _pick(nan, nan_code, arith.ori(signed, arith.minui(code, _k(all_ones))))
    else:  # e8m0: no sign and no zero
        code = arith.minui(code, _k(254)) if saturate else code
        invalid = arith.ori(arith.ori(nan, _cmp("ugt", code, _k(254))), _cmp("ne", sign, _k(0)))
        invalid = arith.ori(invalid, _cmp("eq", magnitude, _k(0)))
        out = _pick(invalid, _k(255), code)
    return arith.trunci(_i(8), out)


def _hardware_from_float32(value, ty, saturate):
    """float32 *value* -> the i8 code of *ty* by PTX's cvt.rn.satfinite; where ml_dtypes
    gives NaN or infinity instead of clamping, that code (a NaN keeps its sign)."""
    name, threshold = _HARDWARE[ty.name]
    zero = arith.constant(ir.F32Type.get(), 0.0)
    pair = llvm.inline_asm(_i(16), [zero, value], f"cvt.rn.satfinite.{name}.f32 $0, $1, $2;", "=h,f,f")
    converted = arith.extui(_i(32), arith.trunci(_i(8), pair))
    bits = arith.bitcast(_i(32), value)
    signed = arith.shli(arith.shrui(bits, _k(31)), _k(7))
    magnitude = arith.andi(bits, _k(0x7FFFFFFF))
    nan = _cmp("ugt", magnitude, _k(0x7F800000))
    if ty.kind == "fn":
        beyond = nan if saturate else _cmp("uge", magnitude, _k(threshold + 1))  # 464 itself rounds to 448
        out = _pick(beyond, arith.ori(signed, _k(0x7F)), converted)
    else:
        if not saturate:
            out = _pick(_cmp("uge", magnitude, _k(threshold)), arith.ori(signed, _k(0x7C)), converted)
        else:
            out = converted
        out = _pick(nan, arith.ori(signed, _k(0x7E)), out)
    return arith.trunci(_i(8), out)


def _software_to_float32(code, ty):
    """The i8 *code* of *ty* -> its float32 value (exact)."""
    f32 = ir.F32Type.get()
    c = arith.extui(_i(32), code)
    m = ty.mantissa_bits
    if ty.kind == "e8m0":
        bits = _pick(_cmp("eq", c, _k(0)), _k(0x00400000), arith.shli(c, _k(23)))
        return arith.bitcast(f32, _pick(_cmp("eq", c, _k(255)), _k(0x7FC00000), bits))
    magnitude = arith.andi(c, _k((1 << (ty.bitwidth - 1)) - 1))
    sign = arith.shli(arith.andi(arith.shrui(c, _k(ty.bitwidth - 1)), _k(1)), _k(31))
    exponent = arith.shrui(magnitude, _k(m))
    mantissa = arith.andi(magnitude, _k((1 << m) - 1))
    normal = arith.ori(arith.shli(arith.addi(exponent, _k(127 - ty.bias)), _k(23)), arith.shli(mantissa, _k(23 - m)))
    scale = arith.constant(f32, 2.0 ** (1 - ty.bias - m))
    subnormal = arith.bitcast(_i(32), arith.mulf(arith.uitofp(f32, mantissa), scale))
    bits = arith.ori(sign, _pick(_cmp("eq", exponent, _k(0)), subnormal, normal))
    all_ones = (1 << (ty.bitwidth - 1)) - 1
    if ty.kind == "ieee":
        top = _cmp("eq", exponent, _k((1 << ty.exponent_bits) - 1))
        special = _pick(_cmp("eq", mantissa, _k(0)), _k(0x7F800000), _k(0x7FC00000))
        bits = _pick(top, arith.ori(sign, special), bits)
    elif ty.kind == "fn":
        bits = _pick(_cmp("eq", magnitude, _k(all_ones)), arith.ori(sign, _k(0x7FC00000)), bits)
    elif ty.kind == "fnuz":
        bits = _pick(_cmp("eq", c, _k(0x80)), _k(0xFFC00000), bits)
    return arith.bitcast(f32, bits)


def _hardware_to_float32(code, ty):
    """The i8 *code* of *ty* -> float32 by PTX's cvt to a float16 pair (exact), widened; a NaN
    keeps the code's sign, as ml_dtypes keeps it (the cvt gives the canonical, positive NaN)."""
    name, _ = _HARDWARE[ty.name]
    pair = llvm.inline_asm(_i(32), [arith.extui(_i(16), code)], f"cvt.rn.f16x2.{name} $0, $1;", "=r,h")
    half = arith.bitcast(ir.F16Type.get(), arith.trunci(_i(16), pair))
    bits = arith.bitcast(_i(32), arith.extf(ir.F32Type.get(), half))
    magnitude = arith.andi(bits, _k(0x7FFFFFFF))
    sign = arith.shli(arith.shrui(arith.extui(_i(32), code), _k(7)), _k(31))
    bits = _pick(_cmp("ugt", magnitude, _k(0x7F800000)), arith.ori(magnitude, sign), bits)
    return arith.bitcast(ir.F32Type.get(), bits)


def by_chip(lower, result_type, hardware, software, cc=_HARDWARE_CC, ptx=None):
    """``hardware()`` on chips from *cc* (sm_89 by default), ``software()`` below: both written,
    the condition settled per chip by the optimized stage (see the module's docstring); where
    the hardware path is kept, the PTX is at least ISA *ptx*."""
    condition = arith.constant(_i(1), 0)
    condition.owner.attributes[CHIP_AT_LEAST] = ir.IntegerAttr.get(_i(32), cc)
    if ptx is not None:
        condition.owner.attributes[CHIP_PATH_PTX] = ir.IntegerAttr.get(_i(32), ptx)
    lower.mlir_gpu_module.attributes[CHIP_PATHS] = ir.UnitAttr.get()
    branch = scf.IfOp(condition, [result_type], has_else=True)
    for block, build in ((branch.then_block, hardware), (branch.else_block, software)):
        with ir.InsertionPoint(block):
            scf.YieldOp([build()])
    return branch.results[0]


def from_float32(lower, value, ty, saturate=False):
    """A float32 *value* rounded to the narrow type *ty* (its i8 code)."""
    software = lambda: _software_from_float32(value, ty, saturate)  # noqa: E731
    if ty.name not in _HARDWARE:
        return software()
    hardware = lambda: _hardware_from_float32(value, ty, saturate)  # noqa: E731
    return by_chip(lower, _i(8), hardware, software, ptx=_HARDWARE_PTX)


def to_float32(lower, code, ty):
    """The value of the narrow *code* of *ty* as a float32 (exact)."""
    software = lambda: _software_to_float32(code, ty)  # noqa: E731
    if ty.name not in _HARDWARE:
        return software()
    return by_chip(lower, ir.F32Type.get(), lambda: _hardware_to_float32(code, ty), software, ptx=_HARDWARE_PTX)


def to_narrow(lower, value, fromty, ty, saturate=False):
    """*value* of the numba type *fromty* rounded to the narrow type *ty*, as ml_dtypes rounds it."""
    if isinstance(fromty, types.NarrowFloat):
        value = to_float32(lower, value, fromty)
    elif isinstance(fromty, types.Float) and fromty.bitwidth == 64:
        value = lower.cast(value, fromty, types.float32)  # ml_dtypes rounds a float64 twice
    else:
        value = to_float32_odd(lower, value, fromty)
    return from_float32(lower, value, ty, saturate)


# ---- conversions ----------------------------------------------------------------------------


@cast("Float", "NarrowFloat")
@cast("Integer", "NarrowFloat")
@cast("Boolean", "NarrowFloat")
@cast("Bfloat16", "NarrowFloat")
@cast("NarrowFloat", "NarrowFloat")
def number_to_narrow(lower, fromty, toty, value):
    return to_narrow(lower, value, fromty, toty)


@cast("NarrowFloat", "Float")
@cast("NarrowFloat", "Integer")
@cast("NarrowFloat", "Boolean")
@cast("NarrowFloat", "Bfloat16")
def narrow_to_number(lower, fromty, toty, value):
    return lower.cast(to_float32(lower, value, fromty), types.float32, toty)


@to_narrow_satfinite.typer
def _satfinite_typing(x, ty):
    target = getattr(ty, "instance_type", None)
    if not isinstance(target, types.NarrowFloat):
        raise errors.TypingError(f"cuda.to_narrow_satfinite(x, ty): ty must be a narrow float type, got {ty}")
    if not isinstance(x, (types.Integer, types.Float, types.Boolean, types.Bfloat16, types.NarrowFloat)):
        raise errors.TypingError(f"cuda.to_narrow_satfinite(x, ty) converts a number, got {x}")
    return templates.signature(target, x, ty)


@to_narrow_satfinite.lower("Any", "Any")
def _satfinite(lower, sig, args):
    return to_narrow(lower, args[0], sig.args[0], sig.return_type, saturate=True)


# ---- operators: in float32, rounded back --------------------------------------------------

# the operators computed in float32 and rounded back, by the arith op computing them (tf32.py too)
FLOAT32_ARITHMETIC = {
    operator.add: "addf",
    operator.sub: "subf",
    operator.mul: "mulf",
    operator.truediv: "divf",
    operator.iadd: "addf",
    operator.isub: "subf",
    operator.imul: "mulf",
    operator.itruediv: "divf",
}


def _arithmetic(build):
    def rule(lower, sig, args):
        ty = sig.return_type
        a, b = (to_float32(lower, arg, ty) for arg in args)
        return from_float32(lower, getattr(arith, build)(a, b), ty)

    return rule


def _comparison(predicate):
    def rule(lower, sig, args):
        a, b = (to_float32(lower, arg, sig.args[0]) for arg in args)
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate), a, b)

    return rule


def _negation(lower, sig, args):
    ty = sig.return_type
    return from_float32(lower, arith.negf(to_float32(lower, args[0], ty)), ty)


def _declare_operators():
    for name in NAMES:
        declare_operators(name)
    for op, build in FLOAT32_ARITHMETIC.items():
        declare(op).lower("NarrowFloat", "NarrowFloat")(_arithmetic(build))
    for op, predicate in FLOAT_PREDICATES.items():
        declare(op).lower("NarrowFloat", "NarrowFloat")(_comparison(predicate))
    declare(operator.neg).lower("NarrowFloat")(_negation)
    declare(operator.pos).lower("NarrowFloat")(lambda lower, sig, args: args[0])


_declare_operators()
