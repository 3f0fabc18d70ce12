"""``cuda.bf16``: the bfloat16 type and CUDA's intrinsics on it (cuda_bf16.h), as
Numba-CUDA's ``numba.cuda.bf16`` has them: the ``bfloat16(x)`` constructor, the
operations, comparisons, functions and conversions of ``_half.py`` under their plain
names (``cuda.bf16.hadd``, ``cuda.bf16.float2bfloat16_rz``), and Numba-CUDA's aliases
with NumPy type names (``float32_to_bfloat16_rz``, ``bfloat16_to_int16_rn``).

Values are MLIR ``bf16``: LLVM's NVPTX back end uses the bf16 instructions where the
chip has them (sm_80: fma, sm_90: add/mul/compare) and computes in float32 otherwise,
rounding once. Conversions to bfloat16 first round to float32 *to odd* (the float32
neighbour with an odd last bit when inexact), so that rounding that float32 to bfloat16
in any mode is the one correct rounding of the original value (float64 or 32- and 64-bit
integers, which float32 cannot always hold); the directed modes then round on the bits.

The ``bfloat16`` type itself (a numba Number, not a Float, as in Numba-CUDA) is in
``cumlir/types.py``; this module also gives it its conversions to and from the other
numbers and the operators Numba-CUDA gives it (``+ - * /``, negation, comparisons), in
its own precision.

On the "nvvm" code generator bfloat16 needs sm_100 or newer, whose libNVVM reads modern
LLVM IR; for older chips libNVVM reads LLVM 7 IR, which has no bfloat type, and the LLVM 7
printer refuses bfloat16 by name (``codegen/llvm7_types.py``).
"""

import operator

from .._support.api import Namespace, cast, declare
from .._support.modules import arith, errors, ir, types
from ..python.scalars import FLOAT_PREDICATES
from ._half import (
    C_INTS,
    HalfIntrinsics,
    compare,
    declare_operators,
    half_to_integer,
    widen,
)

bf16 = Namespace("bf16", "bfloat16 and CUDA's intrinsics on it (cuda_bf16.h), e.g. cuda.bf16.hadd(a, b).")


def _i(bits):
    return ir.IntegerType.get_signless(bits)


# ---- conversions ----------------------------------------------------------------------------


def _odd_from_float64(value):
    """float64 -> float32 rounded to odd."""
    f32, i32 = ir.F32Type.get(), _i(32)
    nearest = arith.truncf(f32, value)
    back = arith.extf(value.type, nearest)
    inexact = arith.cmpf(arith.CmpFPredicate.ONE, back, value)
    rounded_up = arith.cmpf(arith.CmpFPredicate.OGT, _abs(back), _abs(value))
    bits = arith.bitcast(i32, nearest)
    toward_zero = arith.select(rounded_up, arith.subi(bits, arith.constant(i32, 1)), bits)
    odd = arith.ori(toward_zero, arith.constant(i32, 1))
    return arith.bitcast(f32, arith.select(inexact, odd, bits))


def _abs(value):
    negative = arith.cmpf(arith.CmpFPredicate.OLT, value, arith.constant(value.type, 0.0))
    return arith.select(negative, arith.negf(value), value)


def _odd_from_integer(lower, value, fromty):
    """An integer -> float32 rounded to odd, from libdevice's directed conversions."""
    f32, i32 = ir.F32Type.get(), _i(32)
    wide = fromty.bitwidth == 64
    signed = getattr(fromty, "signed", False)
    if not wide:
        value = lower.cast(value, fromty, types.int32 if signed else types.uint32)
    family = ("ll" if wide else "int") if signed else ("ull" if wide else "uint")

    def convert(mode):
        return lower.call_external(f"__nv_{family}2float_{mode}", f32, [value])

    toward_zero = arith.bitcast(i32, convert("rz"))
    inexact = arith.cmpf(arith.CmpFPredicate.ONE, convert("ru"), convert("rd"))
    odd = arith.ori(toward_zero, arith.constant(i32, 1))
    return arith.bitcast(f32, arith.select(inexact, odd, toward_zero))


def to_float32_odd(lower, value, fromty):
    if isinstance(fromty, types.Integer):
        return _odd_from_integer(lower, value, fromty)
    if fromty == types.float64:
        return _odd_from_float64(value)
    return lower.cast(value, fromty, types.float32)  # float16, float32, bool: exact


def _round_bits(value, mode):
    """float32 -> bfloat16 toward zero ("rz"), down ("rd") or up ("ru"), on the bits."""
    i16, i32 = _i(16), _i(32)
    bits = arith.bitcast(i32, value)
    high = arith.trunci(i16, arith.shrui(bits, arith.constant(i32, 16)))
    if mode != "rz":
        low = arith.andi(bits, arith.constant(i32, 0xFFFF))
        dropped = arith.cmpi(arith.CmpIPredicate.ne, low, arith.constant(i32, 0))
        negative = arith.cmpi(arith.CmpIPredicate.slt, bits, arith.constant(i32, 0))
        away = negative if mode == "rd" else arith.xori(negative, arith.constant(_i(1), 1))
        bump = arith.extui(i16, arith.andi(dropped, away))
        high = arith.addi(high, bump)
    nan = arith.cmpf(arith.CmpFPredicate.UNO, value, value)
    high = arith.select(nan, arith.constant(i16, 0x7FFF), high)
    return arith.bitcast(ir.BF16Type.get(), high)


def to_bfloat16(lower, value, fromty, mode=None):
    """*value* of the numba type *fromty* rounded to bfloat16 (*mode* None or "rn": to
    nearest even; "rz", "rd", "ru")."""
    if fromty == types.bfloat16:
        return value
    value = to_float32_odd(lower, value, fromty)
    if mode in (None, "rn"):
        return arith.truncf(ir.BF16Type.get(), value)
    return _round_bits(value, mode)


def from_bfloat16(lower, value, toty, mode=None):
    """A bfloat16 *value* converted to the numba type *toty*: through float32, where it is
    exact; to an integer truncated (mode None, Python's int()) or rounded in *mode*."""
    if toty == types.bfloat16:
        return value
    if mode is not None:
        return half_to_integer(lower, value, toty, mode)
    return lower.cast(widen(value), types.float32, toty)


def compare_bfloat16(lower, predicate, a, b):
    """Two bfloat16 values compared (the predicate's name in arith.CmpFPredicate, "OLT")."""
    return compare(lower, predicate, a, b)


# ---- the constructor and the table -----------------------------------------------------------

bfloat16 = bf16.function("bfloat16", "bfloat16(x): the number x rounded to bfloat16 (nearest even).")


@bfloat16.typer
def _bfloat16_typing(x):
    if not isinstance(x, (types.Integer, types.Float, types.Bfloat16)):
        raise errors.TypingError(f"cuda.bf16.bfloat16 converts an integer or float, got {x}")
    return types.bfloat16


@bfloat16.lower("Any")
def _bfloat16_lowering(lower, sig, args):
    return to_bfloat16(lower, args[0], sig.args[0])


# Numba-CUDA's aliases of the conversions, with NumPy's type names
_NUMPY_NAMES = dict(C_INTS, float="float32", double="float64")


def _alias(name):
    source, sep, rest = name.partition("2")
    if not sep or name.startswith("h"):
        return None
    target, _, mode = rest.partition("_")
    words = [_NUMPY_NAMES.get(source, source), _NUMPY_NAMES.get(target, target)]
    alias = "_to_".join(words) + (f"_{mode}" if mode else "")
    return alias if alias != name else None


def _as_alias(name):
    left, sep, right = name.partition("_as_")
    return f"{_NUMPY_NAMES.get(left, left)}_as_{_NUMPY_NAMES.get(right, right)}" if sep else None


class _Bfloat16Intrinsics(HalfIntrinsics):
    def names(self, base):
        alias = _as_alias(base) if "_as_" in base else _alias(base)
        return (base, alias) if alias else (base,)


_table = _Bfloat16Intrinsics(bf16, "bfloat16", "", (), "bfloat16", to_bfloat16, from_bfloat16)
_table.arithmetic()
_table.comparisons()
_table.conversions()

# the intrinsics' names and signatures (tests and documentation read them)
function_names = _table.function_names
signature = _table.signature


# ---- bfloat16 as a number: conversions and operators -------------------------------------


@cast("Float", "Bfloat16")
@cast("Integer", "Bfloat16")
@cast("Boolean", "Bfloat16")
def number_to_bfloat16(lower, fromty, toty, value):
    return to_bfloat16(lower, value, fromty)


@cast("Bfloat16", "Float")
@cast("Bfloat16", "Integer")
@cast("Bfloat16", "Boolean")
def bfloat16_to_number(lower, fromty, toty, value):
    return from_bfloat16(lower, value, toty)


_ARITHMETIC = {operator.add: "addf", operator.sub: "subf", operator.mul: "mulf", operator.truediv: "divf"}


def _arithmetic(build):
    return lambda lower, sig, args: getattr(arith, build)(*args)


def _comparison(predicate):
    return lambda lower, sig, args: compare_bfloat16(lower, predicate, *args)


def _declare_operators():
    declare_operators("bfloat16")
    for op, build in _ARITHMETIC.items():
        declare(op).lower("Bfloat16", "Bfloat16")(_arithmetic(build))
    for op, predicate in FLOAT_PREDICATES.items():
        declare(op).lower("Bfloat16", "Bfloat16")(_comparison(predicate))
    declare(operator.neg).lower("Bfloat16")(_arithmetic("negf"))


_declare_operators()
