"""Arithmetic on CUDA's vector types, lane by lane, as numba-cuda-mlir types it.

``+ - * / // %`` (and their in-place forms) take a vector and a number on either side,
and ``+`` and ``-`` take two vectors of the same lane count; ``-v`` and ``abs(v)`` keep
the vector's type. The lanes of the result are of the type numba unifies the operands'
lane types to (``float32x4 + 1.0`` is a float64x4, as a float32 plus a float64 is a
float64; ``int8x2 + int16x2`` an int16x2), and ``/`` with integer lanes gives float lanes
of at least 32 bits (``int32x2 / k`` is a float32x2 for an int32 ``k``). Each lane is
computed by the scalar rule of the operator in the result's lane type
(``operations/python/scalars.py``): wrapping integer arithmetic, Python's floor division and
remainder, 0 for an integer division by zero. Products and quotients of two vectors, and
comparisons, are not defined, as in numba-cuda-mlir: they are typing errors naming the
operands.
"""

import operator

from .._support.api import declare
from .._support.modules import errors, templates, types

_SYMBOLS = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
}
# each in-place operator and the operator computing its lanes
_INPLACE = {
    operator.iadd: operator.add,
    operator.isub: operator.sub,
    operator.imul: operator.mul,
    operator.itruediv: operator.truediv,
    operator.ifloordiv: operator.floordiv,
    operator.imod: operator.mod,
}
_BETWEEN_VECTORS = (operator.add, operator.sub)


def _lane_operator(op):
    return _INPLACE.get(op, op)


def _describe(op, left, right):
    return f"{left} {_SYMBOLS[_lane_operator(op)]} {right}"


def _lane_type(context, op, lanes, other):
    """The lane type of ``lanes op other`` (scalar types), or None where numba cannot unify them."""
    unified = context.unify_types(lanes, other)
    if isinstance(unified, types.Integer) and _lane_operator(op) is operator.truediv:
        return types.float32 if unified.bitwidth <= 32 else types.float64
    return unified


def _binary_typing(op):
    def generic(context, args, kws):
        if kws or len(args) != 2 or not any(isinstance(a, types.VectorType) for a in args):
            return None
        left, right = (types.unliteral(a) for a in args)
        vector = left if isinstance(left, types.VectorType) else right
        other = right if vector is left else left
        if isinstance(other, types.VectorType):
            if _lane_operator(op) not in _BETWEEN_VECTORS:
                raise errors.TypingError(
                    f"{_describe(op, left, right)}: between two vectors only + and - are defined; apply the "
                    f"operator to a vector and a number, or build the vector lane by lane"
                )
            if other.count != vector.count:
                raise errors.TypingError(
                    f"{_describe(op, left, right)}: the vectors have {left.count} and {right.count} lanes"
                )
            other = other.base_type
        elif str(other) not in types.BASE_TYPES:
            raise errors.TypingError(
                f"{_describe(op, left, right)}: a vector's arithmetic takes a number of a vector's lane "
                f"types (int8 ... uint64, float16, float32, float64) or a vector of {vector.count} lanes, not a {other}"
            )
        lane = _lane_type(context, op, vector.base_type, other)
        if str(lane) not in types.BASE_TYPES:
            raise errors.TypingError(
                f"{_describe(op, left, right)}: its lanes would be {lane}, which no CUDA vector type holds"
            )
        return templates.signature(types.vector_type(str(lane), vector.count), left, right)

    return generic


def _operand_lanes(lower, ty, value, count, lane):
    """The lanes an operand gives, converted to *lane*: a vector's own, or a number in every lane."""
    if isinstance(ty, types.VectorType):
        return [lower.cast(lower.extract(value, ty, k), ty.base_type, lane) for k in range(count)]
    return [lower.cast(value, ty, lane)] * count


def _lower_binary(op):
    def rule(lower, sig, args):
        result = sig.return_type
        lane = result.base_type
        left, right = (_operand_lanes(lower, ty, value, result.count, lane) for ty, value in zip(sig.args, args))
        scalar = templates.signature(lane, lane, lane)
        return lower.make_struct(result, [lower.call(op, scalar, [a, b]) for a, b in zip(left, right)])

    return rule


for _binary in (*_SYMBOLS, *_INPLACE):
    _declaration = declare(_binary, f"vector {_binary.__name__}")
    _declaration.generic(_binary_typing(_binary))
    _rule = _lower_binary(_lane_operator(_binary))
    for _patterns in (("VectorType", "VectorType"), ("VectorType", "Number"), ("Number", "VectorType")):
        _declaration.lower(*_patterns)(_rule)


# ---- -v and abs(v) ------------------------------------------------------------------------------


def _unary_typing(context, args, kws):
    if not kws and len(args) == 1 and isinstance(args[0], types.VectorType):
        return templates.signature(args[0], args[0])
    return None


def _lower_unary(op):
    def rule(lower, sig, args):
        vty = sig.return_type
        scalar = templates.signature(vty.base_type, vty.base_type)
        lanes = [lower.call(op, scalar, [lower.extract(args[0], vty, k)]) for k in range(vty.count)]
        return lower.make_struct(vty, lanes)

    return rule


for _unary in (operator.neg, abs):
    _declaration = declare(_unary, f"vector {_unary.__name__}")
    _declaration.generic(_unary_typing)
    _declaration.lower("VectorType")(_lower_unary(_unary))


# ---- comparisons: none, as in numba-cuda-mlir --------------------------------------------------

_COMPARISONS = {
    operator.eq: "==",
    operator.ne: "!=",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
}


def _comparison_refusal(op):
    def generic(context, args, kws):
        if len(args) == 2 and any(isinstance(a, types.VectorType) for a in args):
            left, right = (types.unliteral(a) for a in args)
            symbol = _COMPARISONS[op]
            raise errors.TypingError(
                f"{left} {symbol} {right}: vectors have no comparisons; compare their lanes (v.x {symbol} w.x)"
            )
        return None

    return generic


for _comparison in _COMPARISONS:
    declare(_comparison, f"vector {_comparison.__name__} (refused)").generic(_comparison_refusal(_comparison))
