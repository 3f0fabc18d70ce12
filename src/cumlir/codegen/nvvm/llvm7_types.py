"""MLIR LLVM-dialect types read into a small tree, spelled the LLVM 7 way.

LLVM 7 has typed pointers: every MLIR ``!llvm.ptr<N>`` is spelled ``i8 addrspace(N)*``
and the printer bitcasts it to the element type before each load, store or GEP.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .llvm7_errors import Llvm7Error

if TYPE_CHECKING:
    from mlir import ir


@dataclass(frozen=True)
class Type:
    kind: str  # int float ptr struct array vector void func
    text: str  # the LLVM 7 spelling
    bits: int = 0  # int width; pointer address space; array/vector length
    members: tuple[Type, ...] = ()  # struct fields; array/vector element; func (result, *params)
    vararg: bool = False


VOID = Type("void", "void")
_FLOATS = {"f16": ("half", 16), "f32": ("float", 32), "f64": ("double", 64)}


def integer(bits: int) -> Type:
    return Type("int", f"i{bits}", bits)


def pointer(space: int = 0) -> Type:
    return Type("ptr", f"i8 addrspace({space})*" if space else "i8*", space)


def typed_pointer(elem: Type, space: int = 0) -> str:
    """``elem addrspace(N)*``: the pointer type a load, store or GEP of *elem* needs."""
    return f"{elem.text} addrspace({space})*" if space else f"{elem.text}*"


def struct(fields: Sequence[Type], packed: bool = False) -> Type:
    body = ", ".join(f.text for f in fields)
    text = ("<{ %s }>" if packed else "{ %s }") % body if fields else ("<{}>" if packed else "{}")
    return Type("struct", text, 0, tuple(fields))


def array(n: int, elem: Type) -> Type:
    return Type("array", f"[{n} x {elem.text}]", n, (elem,))


def vector(n: int, elem: Type) -> Type:
    return Type("vector", f"<{n} x {elem.text}>", n, (elem,))


def function(result: Type, params: Sequence[Type], vararg: bool = False) -> Type:
    args = [p.text for p in params] + (["..."] if vararg else [])
    return Type("func", f"{result.text} ({', '.join(args)})", 0, (result, *params), vararg)


_TOKEN = re.compile(r"\s*(!llvm\.|[A-Za-z_][A-Za-z_0-9.]*|\d+|\.\.\.|[<>(),x\"])")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                if text[pos:].strip() == "":
                    break
                raise Llvm7Error(f"cannot read the type {text!r}")
            self.tokens.append(m.group(1))
            pos = m.end()
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise Llvm7Error(f"cannot read the type {self.text!r}")
        self.pos += 1
        return tok

    def type(self) -> Type:
        tok = self.take()
        if tok == "!llvm.":
            tok = self.take()
        if re.fullmatch(r"i\d+", tok):
            return integer(int(tok[1:]))
        if tok in _FLOATS:
            return Type("float", _FLOATS[tok][0], _FLOATS[tok][1])
        if tok == "bf16":
            raise Llvm7Error(
                "bfloat16 is not supported by the nvvm code generator below sm_100 (libNVVM reads LLVM 7 IR "
                "for these chips, which has no bfloat type); compile with backend='nvptx'"
            )
        reader = _COMPOUND.get(tok)
        if reader is None:
            raise Llvm7Error(f"the LLVM 7 printer does not know the type {tok!r} (in {self.text!r})")
        return reader(self)

    def _ptr(self) -> Type:
        space = 0
        if self.peek() == "<":
            self.take("<")
            space = int(self.take())
            self.take(">")
        return pointer(space)

    def _struct(self) -> Type:
        self.take("<")
        packed = self.peek() == "packed"
        if packed:
            self.take()
        if self.peek() == '"':
            raise Llvm7Error(f"named structs are not supported by the LLVM 7 printer: {self.text!r}")
        self.take("(")
        fields = self._list(")")
        self.take(">")
        return struct(fields, packed)  # type: ignore[arg-type]  # a struct's fields have no "..." (None)

    def _array(self) -> Type:
        self.take("<")
        n = int(self.take())
        self.take("x")
        elem = self.type()
        self.take(">")
        return array(n, elem)

    def _vector(self) -> Type:
        # builtin vector<4xf32>: the tokenizer reads "4xf32" as "4" then "xf32"
        self.take("<")
        n = int(self.take())
        tok = self.take()
        if tok != "x":
            self.tokens.insert(self.pos, tok[1:])
        elem = self.type()
        self.take(">")
        return vector(n, elem)

    def _func(self) -> Type:
        self.take("<")
        result = self.type()
        self.take("(")
        params = self._list(")")
        self.take(">")
        vararg = bool(params) and params[-1] is None
        return function(result, [p for p in params if p is not None], vararg)

    def _list(self, close: str) -> list[Type | None]:
        items: list[Type | None] = []  # None: "..." (a variadic function's parameters end so)
        while self.peek() != close:
            if self.peek() == "...":
                self.take()
                items.append(None)
            else:
                items.append(self.type())
            if self.peek() == ",":
                self.take()
        self.take(close)
        return items


_COMPOUND = {
    "ptr": _Reader._ptr,
    "struct": _Reader._struct,
    "array": _Reader._array,
    "vector": _Reader._vector,
    "vec": _Reader._vector,
    "func": _Reader._func,
    "void": lambda reader: VOID,
}


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Type:
    """The Type of an MLIR type's textual form."""
    reader = _Reader(text)
    result = reader.type()
    if reader.peek() is not None:
        raise Llvm7Error(f"cannot read the type {text!r}")
    return result


def of(mlir_type: ir.Type) -> Type:
    return parse(str(mlir_type))


def member(aggregate: Type, index: int) -> Type:
    """The type of field/element *index* of a struct, array or vector."""
    if aggregate.kind == "struct":
        return aggregate.members[index]
    if aggregate.kind in ("array", "vector"):
        return aggregate.members[0]
    raise Llvm7Error(f"cannot index into {aggregate.text}")
