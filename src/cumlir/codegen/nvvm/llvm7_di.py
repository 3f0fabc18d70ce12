"""Debug-information attributes of the MLIR LLVM dialect as LLVM 7 metadata, for the
variables ``debug=True`` declares (lowering/debug_variables.py): a local variable and
the basic, pointer, member, structure and array types that describe it.

The attribute is read back from its text, the one form the Python bindings give it in:
``#llvm.name<key = value, ...>``, where a value is a nested attribute (its dialect
prefix elided where the key's kind is known), a string, an integer, an enumerator, or
several values in a row (``elements = a, b``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from .llvm7_errors import Llvm7Error

if TYPE_CHECKING:

    class _Module(Protocol):
        """What describing a variable uses of the module's printer (llvm7.ModulePrinter)."""

        def node(self, text: str) -> str: ...

        def shared_node(self, text: str) -> str: ...


_TOKEN = re.compile(r'\s*(#[\w.]+|"(?:[^"\\]|\\.)*"|-?\d+|distinct\[\d+\]|[A-Za-z_][\w.]*|[<>=,:|\[\]])')


def _tokens(text: str) -> list[str]:
    position, result = 0, []
    while position < len(text):
        m = _TOKEN.match(text, position)
        if m is None:
            if text[position:].strip():
                raise Llvm7Error(f"unreadable debug attribute near {text[position : position + 40]!r}")
            break
        result.append(m.group(1))
        position = m.end()
    return result


class _Reader:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise Llvm7Error(f"unreadable debug attribute: expected {expected!r}, found {token!r}")
        self.at += 1
        return token

    def value(self) -> Any:
        """One value: (kind, fields) for an attribute, a str, an int or an enumerator."""
        # None past the last token: an AttributeError, not an Llvm7Error (text MLIR printed has a value here)
        token: str = self.peek()  # type: ignore[assignment]
        if token.startswith("#"):
            self.take()
            return (token[len("#llvm.") :], self.body()) if self.peek() == "<" else (token, {})
        if token == "<":
            return ("", self.body())
        if token.startswith("distinct["):
            self.take()
            return self.value()
        self.take()
        if token.startswith('"'):
            return token[1:-1]
        if re.fullmatch(r"-?\d+", token):
            if self.peek() == ":":  # a typed integer: ``3 : i64``
                self.take()
                self.take()
            return int(token)
        while self.peek() == "|":  # flags
            self.take()
            token += "|" + self.take()
        return token

    def body(self) -> dict[str, Any]:
        """``<key = value, ...>`` as a dict (a key given several values gets a list), or
        ``<"name" in "directory">`` (a file) as {"file": ...}."""
        self.take("<")
        fields, key = {}, None
        if self.peek() != ">" and self.peek().startswith('"'):  # type: ignore[union-attr]  # None: as in value()
            parts = []
            while self.peek() != ">":
                parts.append(self.take())
            self.take(">")
            return {"file": " ".join(parts)}
        while self.peek() != ">":
            if self.peek(1) == "=":
                key = self.take()
                self.take("=")
                fields[key] = self.value()
            elif key is not None:  # another value of the same key
                previous = fields[key]
                fields[key] = (previous if isinstance(previous, list) else [previous]) + [self.value()]
            else:
                raise Llvm7Error(f"unreadable debug attribute near {self.peek()!r}")
            if self.peek() == ",":
                self.take()
        self.take(">")
        return fields


def read(text: str) -> tuple[str, dict[str, Any]]:
    """(kind, fields) of an attribute's text, e.g. ``("di_local_variable", {...})``."""
    return _Reader(text).value()


def _many(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def type_node(module: _Module, attribute: tuple[str, dict[str, Any]]) -> str:
    """The metadata reference of a DWARF type attribute (kind, fields), one node per
    distinct type of the module."""
    kind, fields = attribute
    if kind == "di_basic_type":
        text = f'!DIBasicType(name: "{fields["name"]}", size: {fields["sizeInBits"]}, encoding: {fields["encoding"]})'
    elif kind == "di_derived_type":
        name = f'name: "{fields["name"]}", ' if "name" in fields else ""
        offset = f", offset: {fields['offsetInBits']}" if "offsetInBits" in fields else ""
        base = type_node(module, fields["baseType"])
        text = f"!DIDerivedType(tag: {fields['tag']}, {name}baseType: {base}, size: {fields['sizeInBits']}{offset})"
    elif kind == "di_composite_type":
        name = f'name: "{fields["name"]}", ' if "name" in fields else ""
        base = f"baseType: {type_node(module, fields['baseType'])}, " if "baseType" in fields else ""
        elements = ", ".join(_element(module, e) for e in _many(fields.get("elements", [])))
        text = (
            f"!DICompositeType(tag: {fields['tag']}, {name}{base}size: {fields['sizeInBits']}, "
            f"elements: !{{{elements}}})"
        )
    else:
        raise Llvm7Error(f"the LLVM 7 printer does not describe the debug type {kind!r}")
    return module.shared_node(text)


def _element(module: _Module, attribute: tuple[str, dict[str, Any]]) -> str:
    kind, fields = attribute
    if kind == "di_subrange":
        return module.shared_node(f"!DISubrange(count: {fields['count']})")
    return type_node(module, attribute)


def local_variable(module: _Module, text: str, scope: str, file: str) -> str:
    """The metadata reference of the variable whose attribute text is *text*, in the
    function's subprogram *scope* and source *file*."""
    kind, fields = read(text)
    if kind != "di_local_variable":
        raise Llvm7Error(f"expected a local variable's debug attribute, found {kind!r}")
    kind_ref = type_node(module, fields["type"])
    return module.node(
        f'!DILocalVariable(name: "{fields["name"]}", scope: {scope}, file: {file}, '
        f"line: {fields.get('line', 0)}, type: {kind_ref})"
    )
