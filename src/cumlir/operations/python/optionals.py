"""Values that may be None: ``Optional(T)``, the type numba gives a function returning a
value on some paths and None on others, a variable None on one branch only, or an argument
that may be None. Held as the value and a flag (models.OptionalModel), as numba holds it.

Where an operation needs the value (``r + 1``, ``a[r]``, an atomic's index), typing converts
the Optional(T) to T (typing/context.py, as numba's templates do), and the conversion checks
the flag: a None ends the thread, as an exception raised in a kernel does in Numba-CUDA; with
``debug=True`` it is a TypeError on the host naming the line. ``x is None`` and
``x is not None`` read the flag.
"""

import operator

from .._support.api import cast, constant, declare
from .._support.modules import arith, ir, nvvm, scf, types


def _flag(truth):
    return arith.constant(ir.IntegerType.get_signless(1), int(truth))


def _none(lower, optional_type):
    return lower.make_struct(optional_type, [lower.empty_value(optional_type.type), _flag(False)])


@cast("Optional", "Any")
def value_of_optional(lower, fromty, toty, value):
    valid = lower.extract(value, fromty, 1)
    branch = scf.IfOp(arith.xori(valid, _flag(True)))
    with ir.InsertionPoint(branch.then_block):
        if lower.options.debug:
            lower.record_raise(TypeError, (f"None where a value of type {toty} is needed",))
        nvvm.exit()
        scf.YieldOp([])
    return lower.cast(lower.extract(value, fromty, 0), fromty.type, toty)


@cast("Any", "Optional")
def optional_of_value(lower, fromty, toty, value):
    return lower.make_struct(toty, [lower.cast(value, fromty, toty.type), _flag(True)])


@cast("NoneType", "Optional")
def optional_of_none(lower, fromty, toty, value):
    return _none(lower, toty)


@cast("Optional", "Optional")
def optional_of_optional(lower, fromty, toty, value):
    # the value converted whether or not there is one: a None's zero converts to a zero
    held = lower.cast(lower.extract(value, fromty, 0), fromty.type, toty.type)
    return lower.make_struct(toty, [held, lower.extract(value, fromty, 1)])


@constant("Optional")
def optional_constant(lower, typ, pyval):
    if pyval is None:
        return _none(lower, typ)
    return lower.make_struct(typ, [lower.constant(typ.type, pyval), _flag(True)])


def _is_none(negate):
    def rule(lower, sig, args):
        optional = 0 if isinstance(sig.args[0], types.Optional) else 1
        valid = lower.extract(args[optional], sig.args[optional], 1)
        return valid if negate else arith.xori(valid, _flag(True))

    return rule


for _key, _negate in ((operator.is_, False), (operator.is_not, True)):
    declare(_key).lower("Optional", "NoneType")(_is_none(_negate))
    declare(_key).lower("NoneType", "Optional")(_is_none(_negate))
