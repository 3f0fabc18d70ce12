"""bfloat16 (``cuda.bf16.bfloat16``): conversions to and from the other numbers, and the
operators Numba-CUDA gives it (``+ - * /``, negation, comparisons), in its own precision.
The conversions are the bf16 area's (``operations/bf16.py``)."""

import operator

from mlir.dialects import arith
from numba.core import types

from ...operations.bf16 import compare_bfloat16, from_bfloat16, to_bfloat16
from ...types import Bfloat16
from ..registry import lower, lower_cast
from .scalars import FLOAT_PREDICATES


@lower_cast(types.Float, Bfloat16)
@lower_cast(types.Integer, Bfloat16)
@lower_cast(types.Boolean, Bfloat16)
def number_to_bfloat16(lower, fromty, toty, value):
    return to_bfloat16(lower, value, fromty)


@lower_cast(Bfloat16, types.Float)
@lower_cast(Bfloat16, types.Integer)
@lower_cast(Bfloat16, types.Boolean)
def bfloat16_to_number(lower, fromty, toty, value):
    return from_bfloat16(lower, value, toty)


_ARITHMETIC = {
    operator.add: arith.addf,
    operator.sub: arith.subf,
    operator.mul: arith.mulf,
    operator.truediv: arith.divf,
}



def _arithmetic(build):
    return lambda lower, sig, args: build(*args)


def _comparison(predicate):
    return lambda lower, sig, args: compare_bfloat16(lower, predicate, *args)


def _register():
    for op, build in _ARITHMETIC.items():
        lower(op, Bfloat16, Bfloat16)(_arithmetic(build))
    for op, predicate in FLOAT_PREDICATES.items():
        lower(op, Bfloat16, Bfloat16)(_comparison(predicate.name))
    lower(operator.neg, Bfloat16)(_arithmetic(arith.negf))


_register()
