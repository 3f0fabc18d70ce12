"""Signature strings read without ``eval``: numba's grammar of types, and nothing else.

Numba evaluates a signature string as Python in the namespace of its types, so a string
from elsewhere (a configuration file, a request) can run any code. Here the string is
parsed by Python's parser (which runs nothing) and its tree is walked under this grammar::

    signature  :=  type "(" [types] ")"          a Signature: the result type, then the arguments
                |  "(" [types] ")"               a tuple of argument types, no result type
    type       :=  NAME                          a type of numba's namespace (float32, f4, intp,
                                                 void, none ...) or cumlir's (bfloat16, complex32,
                                                 the vector types: float32x4, float4 ...)
                |  type "[" dims "]"             an array: [:] [::1] [:, :] [:, ::1] [::1, :] ...
                |  type "(" [types] ")"          a signature as a type
                |  CONSTRUCTOR "(" args ")"      Array UniTuple Tuple CPointer Optional optional
                                                 FunctionType NPDatetime NPTimedelta
    dims       :=  dim {"," dim}                 dim: ":" or "::" INT (numba's layouts: a unit
                                                 step last is C, first is F, else A)
    args       :=  arg {"," arg} {"," NAME "=" arg}
    arg        :=  type | INT | STRING | True | False | "(" [types] ")" | "[" [types] "]"

Names are looked up in that namespace only (no builtins, no attribute access), the only
calls are numba's constructors named above and a type applied to types (which makes a
Signature), and what each builds is numba's own result for the same text. Anything else
(an attribute, a lambda, an operator, a comprehension, an unknown name, brackets nested
deeper than MAX_DEPTH) is a TypeError naming what was refused, before anything is built.
"""

from __future__ import annotations

import ast
import functools
from typing import Any

from numba.core import types
from numba.core.errors import NumbaError
from numba.core.typing.templates import Signature

from .. import typerecords
from .. import types as cumlir_types

MAX_LENGTH = 100_000  # far above any signature; a longer text is refused before it is parsed
# Far above any signature's nesting (void(Tuple((UniTuple(f4[:], 2), f8))) nests 4 brackets
# and 7 levels of its tree), and far below what would exhaust Python's parser or recursion.
MAX_DEPTH = 32
_INT_RANGE = range(0, 1 << 16)  # dimensions, tuple lengths, address spaces

# numba's type constructors a signature may call, with the keywords each takes (its
# parameters' names; Array's name= is left out: it only renames the type)
_CONSTRUCTORS: dict[str, tuple[Any, frozenset[str]]] = {
    "Array": (types.Array, frozenset({"dtype", "ndim", "layout", "readonly", "aligned"})),
    "UniTuple": (types.UniTuple, frozenset({"dtype", "count"})),
    "Tuple": (types.Tuple, frozenset({"types"})),
    "CPointer": (types.CPointer, frozenset({"dtype", "addrspace"})),
    "Optional": (types.Optional, frozenset({"typ"})),
    "optional": (types.optional, frozenset({"typ"})),
    "FunctionType": (types.FunctionType, frozenset({"signature"})),
    "NPDatetime": (types.NPDatetime, frozenset({"unit"})),
    "NPTimedelta": (types.NPTimedelta, frozenset({"unit"})),
}

_ARRAY_SPELLING = (
    "array types are written with empty slices, one a dimension: {dtype}[:] (any layout), "
    "{dtype}[:, ::1] (C order), {dtype}[::1, :] (Fortran order)"
)


class Refused(TypeError):
    """Text that is not a signature of numba's grammar."""


def read_signature(text: str) -> Signature | tuple[Any, ...] | Any:
    """What numba's ``eval`` of *text* gives for a signature of the grammar above (a
    Signature, a tuple of types; numba's normalize_signature checks the rest), built
    without evaluating *text*. Refused (a TypeError) for anything outside the grammar."""
    if len(text) > MAX_LENGTH:
        raise Refused(f"longer than {MAX_LENGTH} characters")
    # Counted on the text first: Python's parser has limits of its own, which end in a
    # SyntaxError, a RecursionError or a MemoryError rather than a refusal.
    if _bracket_depth(text) > MAX_DEPTH:
        raise Refused(f"brackets nested deeper than {MAX_DEPTH}")
    try:
        # eval, which numba uses, ignores leading blanks; the parser would call them an indent
        tree = ast.parse(text.lstrip(" \t"), mode="eval")
    except SyntaxError as e:
        raise Refused(f"not valid syntax: {e.msg}") from None
    except (RecursionError, MemoryError):  # a chain without brackets: a+a+..., f4[:][:]...
        raise Refused(f"nested deeper than {MAX_DEPTH}") from None
    # the walk below and the messages' ast.unparse recurse: the tree's depth is bounded first
    if _tree_depth(tree.body) > MAX_DEPTH:
        raise Refused(f"nested deeper than {MAX_DEPTH}")
    return _value(tree.body, top=True)


def _bracket_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _tree_depth(root: ast.AST) -> int:
    """The depth of the tree under *root*, found without recursion."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _value(node: ast.expr, top: bool = False) -> Any:
    """The value of *node*: a type, or what a constructor takes (ints, strings, tuples)."""
    if isinstance(node, ast.Name):
        return _name(node.id)
    if isinstance(node, ast.Subscript):
        return _array(node)
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_type(e) for e in node.elts)
    if isinstance(node, ast.List) and not top:
        return [_type(e) for e in node.elts]
    if isinstance(node, ast.Constant) and not top:
        return _constant(node)
    raise Refused(f"{_shown(node)} is not part of a signature")


def _type(node: ast.expr) -> types.Type:
    found = _value(node)
    if not isinstance(found, types.Type):
        raise Refused(f"{_shown(node)} is not a type")
    return found


def _name(name: str) -> Any:
    found = signature_names().get(name)
    if found is None:  # the words of the NameError numba's eval gave
        raise Refused(f"name {name!r} is not defined")
    return found


def _constant(node: ast.Constant) -> Any:
    value = node.value
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if type(value) is int and value in _INT_RANGE:
        return value
    raise Refused(f"{_shown(node)} is not a constant a type takes")


def _array(node: ast.Subscript) -> types.Type:
    """``dtype[:, ::1]``: numba's Type.__getitem__ of slices without bounds. Anything else
    in the brackets (where numba raised a KeyError) is refused with how arrays are written."""
    dtype = _type(node.value)
    dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    slices = [s for s in map(_dimension, dims) if s is not None]
    if not dims or len(slices) != len(dims):
        spelling = _ARRAY_SPELLING.format(dtype=ast.unparse(node.value))
        raise Refused(f"{_shown(node)} is not an array type: {spelling}")
    return dtype[tuple(slices) if isinstance(node.slice, ast.Tuple) else slices[0]]


def _dimension(node: ast.expr) -> slice[None, None, Any] | None:
    """``:`` or ``::INT`` as a slice (numba takes no start and no stop); None for anything else."""
    if not (isinstance(node, ast.Slice) and node.lower is None and node.upper is None):
        return None
    step = node.step
    if step is None:
        return slice(None)
    if isinstance(step, ast.Constant) and type(step.value) is int and step.value in _INT_RANGE:
        return slice(None, None, step.value)
    return None


def _call(node: ast.Call) -> Any:
    """A constructor of _CONSTRUCTORS, or a type applied to types: a Signature."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise Refused(f"{_shown(node)}: * and ** are not part of a signature")
    if isinstance(node.func, ast.Name) and node.func.id in _CONSTRUCTORS:
        return _construct(node, *_CONSTRUCTORS[node.func.id])
    result = _type(node.func)
    if node.keywords:
        raise Refused(f"{_shown(node)}: a signature's arguments have no names")
    return result(*(_type(a) for a in node.args))  # numba's Type.__call__ of types: a Signature


def _construct(node: ast.Call, constructor: Any, keywords: frozenset[str]) -> types.Type:
    unknown = sorted(str(k.arg) for k in node.keywords if k.arg not in keywords)
    if unknown:
        raise Refused(f"{_shown(node)}: {', '.join(unknown)} is not a keyword of {constructor.__name__}")
    args = [_value(a) for a in node.args]
    kwargs = {str(k.arg): _value(k.value) for k in node.keywords}
    try:
        return constructor(*args, **kwargs)
    except (TypeError, ValueError, KeyError, AssertionError, NumbaError) as e:  # numba's checks of the values
        raise Refused(f"{_shown(node)}: {getattr(e, 'msg', e)}") from None


def _shown(node: ast.AST) -> str:
    """The text of *node*, short enough for a message."""
    text = ast.unparse(node)
    return repr(text if len(text) <= 60 else text[:57] + "...")


@functools.cache
def signature_names() -> dict[str, Any]:
    """The names a signature may use: numba's types (float32, f4, intp, void ...), cumlir's
    (bfloat16, complex32, tf32, the narrow floats as f8E4M3FN and float8_e4m3fn, tensor_map: a TMA tensor map of
    any rank), the CUDA vector types under both their names (float32x4, float4), and the
    constructors of _CONSTRUCTORS. Only types and those constructors: numba's namespace
    also holds modules and functions, which a signature has no use for."""
    names: dict[str, Any] = {k: v for k, v in vars(types).items() if isinstance(v, types.Type)}
    names.update(typerecords.signature_names())
    names.update(tensor_map=cumlir_types.tensor_map)
    names.update((k, c) for k, (c, _) in _CONSTRUCTORS.items())
    return names
