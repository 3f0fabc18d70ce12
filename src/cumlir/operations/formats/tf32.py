"""tf32 (``types.tf32``, numba-cuda-mlir's TensorFloat-32): conversions and operators.

A value is a float32 whose 13 low significand bits are zero. A number becomes tf32 by
rounding it once to 10 stored significand bits, to nearest with ties away from zero, as
PTX's ``cvt.rna.tf32.f32`` does: float64 and integers are first rounded to float32 *to
odd* (``bf16.to_float32_odd``), so that the second rounding is the one correct rounding.
Beyond the largest tf32 (just under 2**128) the result is infinity; every NaN becomes
the one NaN 0x7FFFE000. On sm_80 and newer the rounding is the ``cvt``, its NaN replaced
so that both paths give the same bits (``narrow_floats.by_chip`` writes both and the
optimized stage keeps the chip's). tf32 converts to float32 and float64 exactly.

Operators (``+ - * /``, negation, comparisons) on two tf32 values compute in float32 and
round back, as numba-cuda-mlir types them (tf32 operands give tf32); mixed with another
number, tf32 converts as the narrow floats do (``types.Tf32``).
"""

import operator

from .._support.api import cast, declare
from .._support.modules import arith, ir, llvm, types
from ..python.scalars import FLOAT_PREDICATES
from ._half import declare_operators
from .bf16 import to_float32_odd
from .narrow_floats import FLOAT32_ARITHMETIC, by_chip
from .narrow_floats import to_float32 as narrow_to_float32

_CVT_CC = 80
_KEPT = 0xFFFFE000  # the sign, the exponent and the 10 stored significand bits
_HALF_ULP = 0x1000
_NAN = 0x7FFFE000
_INFINITY = 0x7F800000


def _i32():
    return ir.IntegerType.get_signless(32)


def _k(value):
    return arith.constant(_i32(), value)


def _nan_made_one(value, bits):
    """*bits* with any NaN *value* replaced by tf32's one NaN."""
    nan = arith.cmpf(arith.CmpFPredicate.UNO, value, value)
    return arith.select(nan, _k(_NAN), bits)


def _software(value):
    # the magnitude's half ulp added: a carry rounds up (ties away), into the exponent too
    bits = arith.bitcast(_i32(), value)
    finite = arith.cmpi(arith.CmpIPredicate.ult, arith.andi(bits, _k(0x7FFFFFFF)), _k(_INFINITY))
    rounded = arith.select(finite, arith.addi(bits, _k(_HALF_ULP)), bits)
    return _nan_made_one(value, arith.andi(rounded, _k(_KEPT)))


def _hardware(value):
    bits = llvm.inline_asm(_i32(), [value], "cvt.rna.tf32.f32 $0, $1;", "=r,f")
    return _nan_made_one(value, arith.andi(bits, _k(_KEPT)))


def round_float32(lower, value):
    """The float32 *value* rounded to tf32 (a float32 whose 13 low significand bits are zero)."""
    bits = by_chip(lower, _i32(), lambda: _hardware(value), lambda: _software(value), cc=_CVT_CC)
    return arith.bitcast(ir.F32Type.get(), bits)


def _as_float32(lower, value, fromty):
    """*value* of *fromty* as a float32 from which one rounding to tf32 is the correct one."""
    if isinstance(fromty, types.NarrowFloat):
        return narrow_to_float32(lower, value, fromty)
    if isinstance(fromty, types.Bfloat16):
        return lower.cast(value, fromty, types.float32)  # exact
    return to_float32_odd(lower, value, fromty)


@cast("Float", "Tf32")
@cast("Integer", "Tf32")
@cast("Boolean", "Tf32")
@cast("Bfloat16", "Tf32")
@cast("NarrowFloat", "Tf32")
def number_to_tf32(lower, fromty, toty, value):
    return round_float32(lower, _as_float32(lower, value, fromty))


@cast("Tf32", "Float")
@cast("Tf32", "Integer")
@cast("Tf32", "Boolean")
@cast("Tf32", "Bfloat16")
@cast("Tf32", "NarrowFloat")
def tf32_to_number(lower, fromty, toty, value):
    return lower.cast(value, types.float32, toty)


def _arithmetic(build):
    def rule(lower, sig, args):
        return round_float32(lower, getattr(arith, build)(*args))

    return rule


def _comparison(predicate):
    def rule(lower, sig, args):
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate), *args)

    return rule


def _declare_operators():
    declare_operators("tf32")
    for op, build in FLOAT32_ARITHMETIC.items():
        declare(op).lower("Tf32", "Tf32")(_arithmetic(build))
    for op, predicate in FLOAT_PREDICATES.items():
        declare(op).lower("Tf32", "Tf32")(_comparison(predicate))
    declare(operator.neg).lower("Tf32")(lambda lower, sig, args: arith.negf(args[0]))  # exact: the sign
    declare(operator.pos).lower("Tf32")(lambda lower, sig, args: args[0])


_declare_operators()
