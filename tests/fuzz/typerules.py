"""The types of the grammar's expressions, as numba types them (so that a program never
assumes a kind numba would not give: ``int64 op uint64`` is an int64, but ``min`` of the
two, a conditional choosing between them and a variable assigned both are float64).

Types are numba's names as strings ("int64", "float16", "bfloat16", "complex64"; a tuple
is a Python tuple of them). Operations on the types NumPy and numba's CPU target know are
resolved by numba's own typing context; float16 and bfloat16 only meet values of their
own type in the grammar (whose rules cumlir and numba-cuda share: ``+ - * /``, negation,
``abs``, the ``math`` functions keep the type, comparisons give bool), since numba's CPU
target, which types the host reference, has none of their arithmetic.
"""

import functools
import math
import operator
from dataclasses import dataclass

INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
HALVES = ["float16", "bfloat16"]
COMPLEX = ["complex64", "complex128"]

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}  # fmt: skip
UNARY = {"-": operator.neg, "~": operator.invert, "not": operator.not_}
CALLS = {"abs": abs, "min": min, "max": max, "float": float, "int": int, "complex": complex}
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]


@dataclass(frozen=True)
class LocalArray:
    """The type of a ``cuda.local.array`` variable."""

    dtype: str
    size: int


class Untypable(Exception):
    """numba refuses the operation on these types: the grammar draws something else."""


def kind(type_name) -> str:
    """ "bool", "int", "float", "half" (float16), "bf16", "complex", "tuple" or "array"."""
    if isinstance(type_name, LocalArray):
        return "array"
    if isinstance(type_name, tuple):
        return "tuple"
    if type_name == "bool":
        return "bool"
    if type_name in INTEGERS:
        return "int"
    if type_name in FLOATS:
        return "float"
    if type_name == "float16":
        return "half"
    if type_name == "bfloat16":
        return "bf16"
    return "complex"


@functools.cache
def _context():
    from numba.core.registry import cpu_target

    context = cpu_target.typing_context
    context.refresh()
    return context


def _numba(type_name, literal=None):
    from numba.core import types

    if literal is not None:
        return types.literal(literal)
    return getattr(types, "boolean" if type_name == "bool" else type_name)


def _name(numba_type) -> str:
    text = str(numba_type)
    return "bool" if text == "bool" else text


@functools.cache
def _resolve(function, argument_types, literals):
    context = _context()
    args = tuple(_numba(t, lit) for t, lit in zip(argument_types, literals))
    try:
        signature = context.resolve_function_type(context.resolve_value_type(function), args, {})
    except Exception as e:
        raise Untypable(f"{function} of {argument_types}") from e
    if signature is None:
        raise Untypable(f"{function} of {argument_types}")
    return _name(signature.return_type)


def resolve(function, argument_types, literals=None):
    """The result type numba gives *function* (an operator, builtin or ``math`` function)
    of arguments of *argument_types*, those with a value in *literals* being constants."""
    literals = tuple(literals) if literals is not None else (None,) * len(argument_types)
    halves = [t for t in argument_types if kind(t) in ("half", "bf16")]
    if halves:
        return _half_rule(function, argument_types)
    return _resolve(function, tuple(argument_types), literals)


def _half_rule(function, argument_types):
    if len(set(argument_types)) != 1:
        raise Untypable(f"{function} mixes {argument_types}")
    (type_name,) = set(argument_types)
    if function in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        return "bool"
    if function is abs:  # numba-cuda's: a bfloat16 converts to float32 for it
        return "float32" if type_name == "bfloat16" else type_name
    if function in (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg):
        return type_name
    if getattr(function, "__module__", None) == "math":
        return type_name
    raise Untypable(f"{function} of {type_name}")


@functools.cache
def unify(a, b):
    """The type numba gives a variable assigned values of types *a* and *b*."""
    if a == b:
        return a
    if isinstance(a, tuple) or isinstance(b, tuple) or kind(a) in ("half", "bf16") or kind(b) in ("half", "bf16"):
        raise Untypable(f"{a} and {b} unified")
    unified = _context().unify_pairs(_numba(a), _numba(b))
    if unified is None:
        raise Untypable(f"{a} and {b} unified")
    return _name(unified)


def merged_explicitly(a, b):
    """Whether values of types *a* and *b* that meet at a merge (a variable assigned both,
    a conditional expression) are converted to their unified type in the source rather
    than by numba: two different integer types. numba types the uses of a merged variable
    with each type it has held while it propagates types and unifies the results, so that
    ``c - c`` of a c that was a uint16 before it became an int64 is uint64 - uint64 and
    int64 - int64 unified: a float64. Between floats, or integers and floats, nothing
    changes kind that way."""
    return a != b and kind(a) == "int" and kind(b) == "int"


def reduction(method, element_type):
    """The type of ``a.sum()`` (and the others the grammar calls) of a 1-d array of
    *element_type*, as numba (and cumlir, docs/language.md) types it."""
    if method in ("min", "max"):
        return element_type
    if method == "mean":
        return element_type if kind(element_type) == "float" else "float64"
    if kind(element_type) == "float":
        return element_type
    return "uint64" if element_type.startswith("uint") else "int64"


def math_function(name):
    return getattr(math, name)
