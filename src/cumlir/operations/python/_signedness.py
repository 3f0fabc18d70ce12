"""The one place where a Numba integer type decides which MLIR operation is emitted.

MLIR integers are signless: ``arith.divsi`` and ``arith.divui`` see the same i64.
Every integer operation whose result depends on signedness (division, remainder,
right shift, widening, int<->float conversion, ordering comparisons, min/max,
index casts) asks this table with the Numba type that governs it. Booleans count
as unsigned (``int(True) == 1``).
"""

import operator

from .._support.modules import arith, types

_SIGNED, _UNSIGNED = 0, 1

# operation -> (signed variant, unsigned variant), each the name of an arith builder function
_OPS = {
    "div": ("divsi", "divui"),
    "floordiv": ("floordivsi", "divui"),
    "rem": ("remsi", "remui"),
    "shr": ("shrsi", "shrui"),
    "ext": ("extsi", "extui"),
    "to_float": ("sitofp", "uitofp"),
    "from_float": ("fptosi", "fptoui"),
    "max": ("maxsi", "maxui"),
    "min": ("minsi", "minui"),
    "to_index": ("index_cast", "index_castui"),
}

# comparison -> (signed predicate, unsigned predicate), names of arith.CmpIPredicate
_PREDICATES = {
    operator.eq: ("eq", "eq"),
    operator.ne: ("ne", "ne"),
    operator.lt: ("slt", "ult"),
    operator.le: ("sle", "ule"),
    operator.gt: ("sgt", "ugt"),
    operator.ge: ("sge", "uge"),
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
    return getattr(arith, _OPS[name][_flavor(ty)])


def cmpi_predicate(op, ty):
    """The arith.cmpi predicate for comparison operator *op* on Numba type *ty*."""
    return getattr(arith.CmpIPredicate, _PREDICATES[op][_flavor(ty)])
