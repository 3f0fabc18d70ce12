"""String methods and operators on string constants, folded when the kernel is compiled:
``"ab".upper()``, ``s.replace("-", "_")`` where *s* is a constant (a literal, or a device
function's argument given one), ``a + b``, ``s * 3``, ``s.startswith("x")``, ``s.find("b")``.

Device code makes no new strings at run time (python/strings.py): a method whose receiver
and arguments are all constants is computed by Python while typing, and its result is a
constant again (a string, a bool or an int), so calls chain. A device function called with
a string constant is typed for that constant when its plain typing fails, as Numba-CUDA
types calls, so ``def shout(s): return s.upper()`` works when called with a literal. A
method of a string known only at run time is a typing error saying so.
"""

import operator

from .._support.api import declare, method
from .._support.modules import errors, templates, types
from .._support.strings import literal
from .strings import constant_item

# str's methods that give a string, a bool or an int (not lists or tuples)
_METHODS = (
    "upper lower casefold capitalize title swapcase strip lstrip rstrip replace removeprefix removesuffix "
    "zfill center ljust rjust expandtabs startswith endswith find rfind index rindex count isdigit isalpha "
    "isalnum isspace isupper islower isdecimal isnumeric istitle isidentifier isascii isprintable"
).split()


def _constant(ty):
    """The Python value of a constant's type; None where *ty* holds no constant."""
    if isinstance(ty, types.Literal):
        return ty.literal_value
    if isinstance(ty, (types.NoneType, types.Omitted)):
        return getattr(ty, "value", None)
    raise LookupError(ty)


def _type_of(value):
    if isinstance(value, bool):
        return types.BooleanLiteral(value)
    return types.literal(value)  # a str or an int


def _folded(what, compute, args):
    try:
        values = [_constant(a) for a in args]
    except LookupError:
        return None
    try:
        return _type_of(compute(*values))
    except (TypeError, ValueError) as exc:
        raise errors.TypingError(f"{what}: {exc}") from None


def _method_typer(name):
    def typer(receiver, *args, **kws):
        if kws:
            raise errors.TypingError(f"str.{name}() on a string constant takes positional arguments only")
        result = _folded(f"str.{name}()", lambda s, *rest: getattr(s, name)(*rest), (receiver, *args))
        if result is None:
            raise errors.TypingError(
                f"str.{name}() takes constants in device code (arguments {', '.join(map(str, args)) or 'none'}): "
                "it is computed while compiling"
            )
        return templates.signature(result, *args, recvr=receiver)

    return typer


def _run_time_typer(name):
    def typer(receiver, *args, **kws):
        raise errors.TypingError(
            f"str.{name}() of a string known only at run time: device code makes no new strings; "
            "string methods are computed while compiling, on constants"
        )

    return typer


def _folded_value(lower, sig, args):
    result = sig.return_type
    if isinstance(result, types.StringLiteral):
        return literal(lower, result.literal_value)
    return lower.constant(result, result.literal_value)


for _name in _METHODS:
    _on_constant = method("StringLiteral", _name)
    _on_constant.typer(_method_typer(_name))
    _on_constant.lower("StringLiteral", "*Any")(_folded_value)
    method("UnicodeType", _name).typer(_run_time_typer(_name))


def _operator_typer(op):
    def typer(a, b):
        if not (isinstance(a, types.StringLiteral) or isinstance(b, types.StringLiteral)):
            return None
        return _folded(f"the string constants' {op.__name__}", op, (a, b))

    return typer


for _op in (operator.add, operator.mul):
    _declared = declare(_op, f"string constants {_op.__name__}")
    _declared.typer(_operator_typer(_op))
    _declared.lower("StringLiteral", "Literal")(_folded_value)
    _declared.lower("IntegerLiteral", "StringLiteral")(_folded_value)


# ``s[0]``, ``s[1:]`` of a constant with a constant index: numba's IR asks for these first


def _static_item_typing(context, args, kws):
    if len(args) == 2 and isinstance(args[0], types.StringLiteral) and isinstance(args[1], (int, slice)):
        return templates.signature(constant_item(args[0].literal_value, args[1]), args[0], types.literal(args[1]))
    return None


declare("static_getitem", "string constant item").generic(_static_item_typing)
declare("static_getitem").lower("StringLiteral", "IntegerLiteral")(_folded_value)
declare("static_getitem").lower("StringLiteral", "SliceLiteral")(_folded_value)
