"""The C layout of the structs and unions of ``cuda.experimental.struct`` and ``union``: each
field's byte offset, each bit field's bit position, the size and alignment of the whole, as
GCC lays them out on Linux (the x86-64 System V rules, which NVCC follows in device code, so
that a kernel and C++ code, or ctypes on the host, agree on every byte).

- a field sits at the next offset that is a multiple of its alignment; the struct is aligned
  to its most aligned field and its size is a multiple of that;
- bit fields are allocated from the least significant bit up, each where the previous one
  ended unless it would cross a boundary of its type's alignment, in which case it starts
  at the next such boundary; a bit field without a name (padding) takes its bits but not
  its type's alignment, and one of width 0 moves the next field to such a boundary;
- a union's fields all sit at offset 0; its size is its largest field's, rounded up to its
  alignment, the most aligned field's.

Field types and their (size, alignment): bool (1, 1), the integers and floats (their size),
bfloat16 (2, 2), complex numbers (two parts: their size, a part's alignment), CUDA's vector
types (as CUDA lays them out), tuples of one type ``UniTuple(T, n)`` (a C array: n times T's
size, T's alignment) and other structs and unions. Bit fields are of integer or bool type.
"""

from __future__ import annotations

import functools
import keyword
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from numba.core import types

from .bfloat16 import Bfloat16
from .vectors import VectorType


@dataclass(frozen=True)
class Field:
    """A named field: its numba type and byte offset; a bit field also has its bit position
    from the start of the value (``bit``, least significant first) and its width in bits."""

    name: str
    type: Any
    offset: int  # a bit field: the offset of the aligned unit of its type holding it
    bit: int | None = None
    width: int | None = None

    @property
    def is_bit_field(self) -> bool:
        return self.width is not None


@dataclass(frozen=True)
class Layout:
    size: int
    alignment: int
    fields: tuple[Field, ...]  # the named ones, in the order given

    @property
    def word(self) -> int:
        """The bytes of the integers a value is held in (its alignment, at most 8): every
        scalar of a field, and every bit field, lies within one of them."""
        return min(self.alignment, 8)

    def field(self, name: str) -> Field | None:
        for field in self.fields:
            if field.name == name:
                return field
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(field.name for field in self.fields)

    @functools.cached_property
    def data_bytes(self) -> frozenset[int]:
        """The offsets of the bytes some field holds (bit fields: the bytes their bits touch);
        the others are padding."""
        found: set[int] = set()
        for field in self.fields:
            if field.is_bit_field:
                found.update(range(field.bit // 8, (field.bit + field.width - 1) // 8 + 1))  # type: ignore[operator]
            else:
                found.update(field.offset + k for k in _data_bytes(field.type))
        return frozenset(found)

    @functools.cached_property
    def chunks(self) -> tuple[tuple[int, int], ...]:
        """(offset, size) of the aligned pieces of 1, 2, 4 or 8 bytes (at most a word) that
        cover the bytes fields hold and no padding: how a value is loaded and stored in memory."""
        pieces: list[tuple[int, int]] = []
        position = 0
        while position < self.size:
            if position not in self.data_bytes:
                position += 1
                continue
            size = next(
                c
                for c in (8, 4, 2, 1)
                if c <= self.word and position % c == 0 and all(position + k in self.data_bytes for k in range(c))
            )
            pieces.append((position, size))
            position += size
        return tuple(pieces)


@dataclass(frozen=True)
class FieldSpec:
    """A field as given: (name, type) or (name, type, bits); a name of None is bit-field padding."""

    name: str | None
    type: Any
    bits: int | None


def size_and_alignment(ty: Any) -> tuple[int, int]:
    """(size, alignment) in bytes of a field of numba type *ty*; TypeError for a type that has
    no C layout here."""
    layout = getattr(ty, "layout", None)
    if isinstance(layout, Layout):  # a struct or union
        return layout.size, layout.alignment
    if isinstance(ty, types.Boolean):
        return 1, 1
    if isinstance(ty, types.Complex):
        return ty.bitwidth // 8, ty.bitwidth // 16
    if isinstance(ty, (types.Integer, types.Float, Bfloat16)):
        size = ty.bitwidth // 8  # type: ignore[union-attr]  # numba's stubs omit Integer.bitwidth
        return size, size
    if isinstance(ty, VectorType):  # as CUDA lays them out
        return ty.size, ty.alignment
    if isinstance(ty, types.UniTuple) and ty.count > 0:
        size, alignment = size_and_alignment(ty.dtype)
        return size * ty.count, alignment
    raise TypeError(
        f"{ty} has no C layout: a field is a bool, an integer, a float (float16 to float64, bfloat16), a "
        "complex number, a CUDA vector type, a UniTuple(T, n) of one of these (a C array) or a struct or union"
    )


def _data_bytes(ty: Any) -> set[int]:
    """The offsets of the bytes a value of *ty* holds data in (a struct's or union's: no padding)."""
    layout = getattr(ty, "layout", None)
    if isinstance(layout, Layout):
        return set(layout.data_bytes)
    if isinstance(ty, types.UniTuple):
        size = size_and_alignment(ty.dtype)[0]
        inner = _data_bytes(ty.dtype)
        return {k * size + b for k in range(ty.count) for b in inner}
    return set(range(size_and_alignment(ty)[0]))


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def struct_layout(what: str, specs: Sequence[FieldSpec]) -> Layout:
    """The layout of a struct with the fields *specs* (checked by parse_fields); *what* names it."""
    position, alignment, fields = 0, 1, []  # position: the next free bit
    for spec in specs:
        size, align = size_and_alignment(spec.type)
        if spec.bits is None:
            offset = _align_up(_align_up(position, 8) // 8, align)
            fields.append(Field(spec.name, spec.type, offset))  # type: ignore[arg-type]  # named: checked
            position = 8 * (offset + size)
            alignment = max(alignment, align)
            continue
        unit = 8 * align  # a bit field never crosses a boundary of its type's alignment
        if spec.bits == 0:
            position = _align_up(position, unit)
            continue
        if position % unit + spec.bits > unit:
            position = _align_up(position, unit)
        if spec.name is not None:
            fields.append(Field(spec.name, spec.type, position // unit * align, position, spec.bits))
            alignment = max(alignment, align)
        position += spec.bits
    if not fields:
        raise ValueError(f"{what} has no named field: give it at least one")
    return Layout(_align_up(_align_up(position, 8) // 8, alignment), alignment, tuple(fields))


def union_layout(what: str, specs: Sequence[FieldSpec]) -> Layout:
    """The layout of a union with the fields *specs* (none a bit field)."""
    if not specs:
        raise ValueError(f"{what} has no field: give it at least one")
    sizes = [size_and_alignment(spec.type) for spec in specs]
    alignment = max(align for _, align in sizes)
    size = _align_up(max(size for size, _ in sizes), alignment)
    return Layout(size, alignment, tuple(Field(spec.name, spec.type, 0) for spec in specs))  # type: ignore[arg-type]


# ---- what users give ------------------------------------------------------------------------


def parse_fields(kind: str, what: str, given: Any, field_type: Callable[[Any], Any]) -> list[FieldSpec]:
    """The fields of a struct or union (*kind*) called *what*, from the list of tuples given,
    checked: ``(name, type)`` or, in a struct, ``(name, type, bits)``; *field_type* turns
    what was given as a type into a numba type (or raises TypeError)."""
    if isinstance(given, (str, bytes)) or not isinstance(given, Sequence):
        raise TypeError(f"{what}: the fields are a list of (name, type) tuples, got {type(given).__name__}")
    specs: list[FieldSpec] = []
    seen: set[str] = set()
    for position, item in enumerate(given):
        where = f"{what}, field {position}"
        if not isinstance(item, (tuple, list)) or len(item) not in ((2, 3) if kind == "struct" else (2,)):
            shape = "(name, type) or (name, type, bits)" if kind == "struct" else "(name, type)"
            three = isinstance(item, (tuple, list)) and len(item) == 3
            extra = " (a union's fields are not bit fields: put bit fields in a struct)" if three else ""
            raise TypeError(f"{where}: expected {shape}, got {item!r}{extra}")
        name, given_type = item[0], item[1]
        bits = item[2] if len(item) == 3 else None
        if bits is not None and (isinstance(bits, bool) or not isinstance(bits, int)):
            raise TypeError(f"{where}: the bit width is an int, got {bits!r}")
        _check_name(where, name, bits, seen)
        where = f"{what}, field {name!r}" if name is not None else where
        try:
            ty = field_type(given_type)
            size_and_alignment(ty)
        except TypeError as e:
            raise TypeError(f"{where}: {e}") from None
        if bits is not None:
            _check_bits(where, ty, bits, name is None)
        specs.append(FieldSpec(name, ty, bits))
    return specs


def _check_name(where: str, name: Any, bits: int | None, seen: set[str]) -> None:
    if name is None:
        if bits is None:
            raise ValueError(f"{where}: only bit-field padding, (None, type, bits), may have no name")
        return
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{where}: a field's name is a Python identifier, got {name!r}")
    if name.startswith("_"):
        raise ValueError(f"{where}: field names may not start with an underscore, got {name!r}")
    if name in seen:
        raise ValueError(f"{where}: the name {name!r} is given to two fields")
    seen.add(name)


def _check_bits(where: str, ty: Any, bits: int, padding: bool) -> None:
    if not isinstance(ty, (types.Integer, types.Boolean)):
        raise TypeError(f"{where}: a bit field is of an integer or bool type, not {ty}")
    width = 1 if isinstance(ty, types.Boolean) else ty.bitwidth  # type: ignore[attr-defined]  # numba's stubs
    if bits > width:
        raise ValueError(f"{where}: {bits} bits do not fit in its type {ty} ({width} bit{'s' * (width > 1)})")
    if bits < 0 or (bits == 0 and not padding):
        least = "0" if padding else "1 (width 0 is for padding, (None, type, 0))"
        raise ValueError(f"{where}: the bit width must be at least {least}, got {bits}")
