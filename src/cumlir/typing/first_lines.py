"""A typing error's first line says what is wrong.

numba reports a call no typing accepted as "No implementation of function ... found for
signature", with the reason (an index that is a float, a shape that is not a constant) a dozen
lines further down, under the template that raised it; a method refusing both its literal and
its plain arguments under "Resolution failure for literal arguments"; and an unknown
attribute without the name that was meant. ``clarify`` puts one line in front of such a message: the reason, or the
nearest known name. numba's message follows unchanged, with the source line it names.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from numba.core import types

from ..text_parts import top_level_parts

_NO_IMPLEMENTATION = re.compile(r"No implementation of function Function\((?P<function>.*?)\) found for signature:")
_CALLED_WITH = re.compile(r">>> (?P<call>\w[\w.]*)\((?P<args>.*)\)")
_SPECIFIC = re.compile(
    r"raised a specific error:\n\s*(?P<kind>\w+): (?P<message>.+)(?:\n\s*raised from (?P<origin>\S+))?"
)
_OWN_SOURCE = str(Path(__file__).resolve().parent.parent)  # cumlir's package: its own templates' reasons
_UNKNOWN_ATTRIBUTE = re.compile(r"Unknown attribute '(?P<attr>[^']+)' of type (?P<type>.+)")
# specific errors that only say another typing failed: the reason is further in
_WRAPPERS = ("Failed in ", "No implementation of function", "Cannot determine Numba type")
_WITH_ARGUMENTS = re.compile(r"With argument\(s\): '(?P<args>.*)':")
_RESOLUTION = re.compile(
    r"- Resolution failure for literal arguments:\n(?P<reason>[^\n]+)\n- Resolution failure for non"
)
_FLOAT_INDEX = re.compile(r"\b(float(16|32|64)|bfloat16|complex(64|128))\b")


def clarify(error: Exception, context: Any) -> None:
    """Put a first line naming the problem in front of numba's message of *error* (a typing
    error raised with *context*), where one can be told; else leave it as it is."""
    text = str(error)
    line = _unknown_attribute(text, context) or _no_implementation(text) or _literal_failure(text)
    if line and not text.startswith(line):
        error.args = (f"{line}\n\n{text}", *error.args[1:])


def _no_implementation(text: str) -> str | None:
    found = _NO_IMPLEMENTATION.search(text)
    if found is None:
        return None
    called = _CALLED_WITH.search(text, found.end())
    if called and called.group("call") in ("getitem", "setitem"):
        line = _index_type(called.group("call"), called.group("args"))
        if line:
            return line
    found_reasons = [
        (m.group("message").strip(), m.group("origin") or "", _arguments_before(text, m.start()))
        for m in _SPECIFIC.finditer(text)
        if not m.group("message").startswith(_WRAPPERS) and m.group("kind") != "NumbaNotImplementedError"
    ]
    call = f"({called.group('args')})" if called else None
    # one reason, or where numba's templates for other types gave theirs too (sets' "All
    # arguments must be Sets" for any a - b), the one cumlir's declarations gave; a template
    # typed with the call's literal arguments and again without them gave one for each: the
    # one for the arguments as called (they name the constants)
    for reasons in (
        {r for r, _, _ in found_reasons},
        {r for r, o, _ in found_reasons if o.startswith(_OWN_SOURCE)},
        {r for r, o, given in found_reasons if o.startswith(_OWN_SOURCE) and given == call},
    ):
        if len(reasons) == 1:
            return reasons.pop()
    return None


def _arguments_before(text: str, end: int) -> str | None:
    """The argument types of the last "With argument(s)" line before *end*: those the reason
    after it was given for."""
    found = list(_WITH_ARGUMENTS.finditer(text, 0, end))
    return found[-1].group("args") if found else None


def _literal_failure(text: str) -> str | None:
    """A method typed with and without its literal arguments that refused both (``a.copy(order="Q")``):
    the reason given for the literal ones, which name the constant."""
    found = _RESOLUTION.match(text)
    return found.group("reason") if found else None


def _index_type(call: str, args: str) -> str | None:
    """An array indexed by a float (or complex) value: say so, and what an index may be."""
    parts = _split_arguments(args)
    if len(parts) < 2 or not parts[0].startswith("array("):
        return None
    index = parts[1]
    if not _FLOAT_INDEX.search(index):
        return None
    verb = "indexed" if call == "getitem" else "assigned to"
    return (
        f"an array index of type {index} is not allowed (the array {parts[0]} is {verb}): an index is an "
        "integer, a slice, or a tuple of them; convert a float with int()"
    )


def _split_arguments(args: str) -> list[str]:
    """The top-level comma-separated parts of a typed argument list (types hold commas)."""
    return top_level_parts(args) or [""]


def _unknown_attribute(text: str, context: Any) -> str | None:
    found = _UNKNOWN_ATTRIBUTE.search(text.splitlines()[0] if text else "")
    missed = getattr(context, "missed_attribute", None)
    if found is None or missed is None or missed[1] != found.group("attr"):
        return None
    owner_type, attr = missed
    module = getattr(owner_type, "pymod", None)
    if module is not None and hasattr(module, attr):
        return f"{_describe(owner_type)}.{attr} is not supported in device code"
    near = difflib.get_close_matches(attr, sorted(attribute_names(context, owner_type)), n=3, cutoff=0.6)
    if not near:
        return None
    owner = _describe(owner_type)
    choices = " or ".join(repr(n) for n in near)
    return f"{owner} has no attribute {attr!r}: did you mean {choices}?"


def attribute_names(context: Any, typ: types.Type) -> set[str]:
    """The attributes the typing context knows for *typ*: a module's names, the ``resolve_``
    methods and declared attributes of its templates, and what a template lists itself
    (``attribute_names(ty)``, for templates that resolve any name)."""
    if isinstance(typ, types.Module):
        return {name for name in dir(typ.pymod) if not name.startswith("_")}
    names: set[str] = set()
    for template in context._get_attribute_templates(typ):
        names |= {name[len("resolve_") :] for name in dir(template) if name.startswith("resolve_")}
        if isinstance(getattr(template, "_attr", None), str):
            names.add(template._attr)
        listed = getattr(template, "attribute_names", None)
        if listed is not None:
            names |= set(listed(typ))
    return names


def _describe(typ: types.Type) -> str:
    if isinstance(typ, types.Module):
        name = typ.pymod.__name__
        return name.removeprefix("cumlir.") if name.startswith("cumlir.cuda") else name
    return str(typ)
