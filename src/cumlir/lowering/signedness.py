"""The one place where a Numba integer type decides which MLIR operation is emitted.

MLIR integers are signless: ``arith.divsi`` and ``arith.divui`` see the same i64.
Every integer operation whose result depends on signedness (division, remainder,
right shift, widening, int<->float conversion, ordering comparisons, min/max,
index casts) asks this table with the Numba type that governs it. Booleans count
as unsigned (``int(True) == 1``).
"""

import operator

from mlir.dialects import arith
from numba.core import types

_SIGNED, _UNSIGNED = 0, 1

# operation -> (signed variant, unsigned variant), each an arith builder function
_OPS = {
    "div": (arith.divsi, arith.divui),
    "floordiv": (arith.floordivsi, arith.divui),
    "rem": (arith.remsi, arith.remui),
    "shr": (arith.shrsi, arith.shrui),
    "ext": (arith.extsi, arith.extui),
    "to_float": (arith.sitofp, arith.uitofp),
    "from_float": (arith.fptosi, arith.fptoui),
    "max": (arith.maxsi, arith.maxui),
    "min": (arith.minsi, arith.minui),
    "to_index": (arith.index_cast, arith.index_castui),
}

_P = arith.CmpIPredicate
_PREDICATES = {
    operator.eq: (_P.eq, _P.eq),
    operator.ne: (_P.ne, _P.ne),
    operator.lt: (_P.slt, _P.ult),
    operator.le: (_P.sle, _P.ule),
    operator.gt: (_P.sgt, _P.ugt),
    operator.ge: (_P.sge, _P.uge),
}


def _flavor(ty):
    if isinstance(ty, types.Boolean):
        return _UNSIGNED
    if isinstance(ty, types.Integer):
        return _SIGNED if ty.signed else _UNSIGNED
    raise TypeError(f"signedness asked of the non-integer type {ty}")


def is_signed(ty):
    return _flavor(ty) == _SIGNED


def int_op(name, ty):
    """The arith builder for integer operation *name* on values of Numba type *ty*."""
    return _OPS[name][_flavor(ty)]


def cmpi_predicate(op, ty):
    """The arith.cmpi predicate for comparison operator *op* on Numba type *ty*."""
    return _PREDICATES[op][_flavor(ty)]
