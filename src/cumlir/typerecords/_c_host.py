"""C structs and unions on the host: what ``cuda.experimental.struct`` and ``union`` return
(:class:`StructClass`), and the values it makes (:class:`StructValue`), which kernels take
as arguments.

A value is its bytes in C's layout (_c_layout.py), so that a union's fields share them as
in C and a kernel receives exactly those bytes; ``bytes(value)`` gives them and
``Point.from_bytes(data)`` reads them back. Reading a field decodes its bytes: a number, a
bool, a tuple for a C array or a vector type, and for a nested struct or union a value
sharing the bytes of the enclosing one (``outer.inner.x = 1`` assigns into ``outer``).
Assigning a field encodes the value: an integer that does not fit the field's type is an
OverflowError; a bit field keeps the low bits of the integer, as C does, and a signed one
reads back sign-extended.
"""

from __future__ import annotations

import struct as _struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numba.core import types
from numba.np import numpy_support

from ._c_layout import Field, size_and_alignment
from .bfloat16 import Bfloat16
from .c_structs import CAggregate, CAggregateClass, CUnionType, declare
from .vectors import VectorType, vector_types

_FLOAT_FORMATS = {2: "<e", 4: "<f", 8: "<d"}


# ---- one value of a field type, to and from bytes ------------------------------------------------


def _encode(ty: Any, value: Any, buffer: bytearray, offset: int) -> None:
    if isinstance(ty, CAggregate):
        buffer[offset : offset + ty.size] = bytes(_aggregate_value(ty, value))
    elif isinstance(ty, types.Boolean):
        buffer[offset] = 1 if _number(value, bool) else 0
    elif isinstance(ty, types.Integer):
        number = _number(value, int)
        size, signed = ty.bitwidth // 8, ty.signed  # type: ignore[attr-defined]  # numba's stubs omit them
        try:
            buffer[offset : offset + size] = number.to_bytes(size, "little", signed=signed)
        except OverflowError:
            raise OverflowError(f"{value!r} does not fit in {ty}") from None
    elif isinstance(ty, Bfloat16):
        buffer[offset : offset + 2] = _bfloat16_bits(_number(value, float)).to_bytes(2, "little")
    elif isinstance(ty, types.Float):
        _struct.pack_into(_FLOAT_FORMATS[ty.bitwidth // 8], buffer, offset, _number(value, float))
    elif isinstance(ty, types.Complex):
        number = _number(value, complex)
        part = ty.bitwidth // 16
        _encode(ty.underlying_float, number.real, buffer, offset)
        _encode(ty.underlying_float, number.imag, buffer, offset + part)
    else:  # a C array (UniTuple) or a vector type: its members one after the other
        member, count = (ty.base_type, ty.count) if isinstance(ty, VectorType) else (ty.dtype, ty.count)
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != count:
            raise TypeError(f"{ty} takes a sequence of {count} values, got {value!r}")
        size = _size(member)
        for k, item in enumerate(value):
            _encode(member, item, buffer, offset + k * size)


def _decode(ty: Any, buffer: bytearray, offset: int) -> Any:
    if isinstance(ty, CAggregate):
        return StructValue(ty, buffer, offset)  # shares the bytes
    if isinstance(ty, types.Boolean):
        return buffer[offset] != 0
    if isinstance(ty, types.Integer):
        size, signed = ty.bitwidth // 8, ty.signed  # type: ignore[attr-defined]  # numba's stubs omit them
        return int.from_bytes(buffer[offset : offset + size], "little", signed=signed)
    if isinstance(ty, Bfloat16):
        bits = int.from_bytes(buffer[offset : offset + 2], "little") << 16
        return _struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    if isinstance(ty, types.Float):
        return _struct.unpack_from(_FLOAT_FORMATS[ty.bitwidth // 8], buffer, offset)[0]
    if isinstance(ty, types.Complex):
        part = ty.bitwidth // 16
        return complex(
            _decode(ty.underlying_float, buffer, offset), _decode(ty.underlying_float, buffer, offset + part)
        )
    member, count = (ty.base_type, ty.count) if isinstance(ty, VectorType) else (ty.dtype, ty.count)
    size = _size(member)
    return tuple(_copied(_decode(member, buffer, offset + k * size)) for k in range(count))


def _size(ty: Any) -> int:
    return size_and_alignment(ty)[0]


def _copied(value: Any) -> Any:
    return value.copy() if isinstance(value, StructValue) else value


def _number(value: Any, kind: type) -> Any:
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise TypeError(f"expected a {kind.__name__}, got {value!r}") from None


def _bfloat16_bits(value: float) -> int:
    """The bfloat16 nearest *value* (ties to even), as the device converts a float32."""
    bits = int.from_bytes(_struct.pack("<f", value), "little")
    if (bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF:  # NaN: kept quiet
        return (bits >> 16) | 0x40
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 & 0xFFFF


def _aggregate_value(ty: CAggregate, value: Any) -> StructValue:
    if isinstance(value, StructValue) and value._type == ty:
        return value
    if isinstance(value, Mapping):
        return StructValue.make(ty, (), dict(value))
    raise TypeError(f"expected a value of {ty!r} (or a dict of its fields), got {value!r}")


# ---- bit fields ---------------------------------------------------------------------------------


def _unit(field: Field) -> tuple[int, int, int]:
    """(byte offset, bytes, shift) of the integer of the bit field's type holding it."""
    size = _size(field.type)
    return field.offset, size, field.bit - 8 * field.offset  # type: ignore[operator]  # a bit field


def _read_bits(field: Field, buffer: bytearray, base: int) -> Any:
    offset, size, shift = _unit(field)
    unit = int.from_bytes(buffer[base + offset : base + offset + size], "little")
    bits = unit >> shift & ((1 << field.width) - 1)  # type: ignore[operator]
    if isinstance(field.type, types.Boolean):
        return bits != 0
    if field.type.signed and bits >> (field.width - 1):  # type: ignore[operator]
        bits -= 1 << field.width  # type: ignore[operator]
    return bits


def _write_bits(field: Field, buffer: bytearray, base: int, value: Any) -> None:
    offset, size, shift = _unit(field)
    start = base + offset
    unit = int.from_bytes(buffer[start : start + size], "little")
    mask = ((1 << field.width) - 1) << shift  # type: ignore[operator]
    number = _number(value, bool if isinstance(field.type, types.Boolean) else int)
    unit = unit & ~mask | (int(number) << shift) & mask  # C keeps the low bits
    buffer[start : start + size] = unit.to_bytes(size, "little")


# ---- values ---------------------------------------------------------------------------------


class StructValue:
    """A struct or union on the host: its bytes (shared with the value it is a field of,
    if any), its fields read and assigned as attributes."""

    __slots__ = ("_type", "_buffer", "_offset")

    def __init__(self, ty: CAggregate, buffer: bytearray | None = None, offset: int = 0) -> None:
        object.__setattr__(self, "_type", ty)
        object.__setattr__(self, "_buffer", bytearray(ty.size) if buffer is None else buffer)
        object.__setattr__(self, "_offset", offset)

    @classmethod
    def make(cls, ty: CAggregate, args: Sequence[Any], kwargs: Mapping[str, Any]) -> StructValue:
        """A value of *ty* with the fields given by position (in their order) and by name,
        the others zero (a union: one field at most)."""
        names = ty.layout.names
        what = f"{ty.c_name}()"
        if len(args) > len(names):
            raise TypeError(f"{what} takes at most {len(names)} field values, got {len(args)}")
        given = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{what}: {ty!r} has no field {name!r} (fields: {', '.join(names)})")
            if name in given:
                raise TypeError(f"{what}: the field {name!r} is given twice")
            given[name] = value
        if isinstance(ty, CUnionType) and len(given) > 1:
            raise TypeError(f"{what}: a union is made from one of its fields, got {', '.join(given)}")
        value = cls(ty)
        for name in names:
            if name in given:
                setattr(value, name, given[name])
        return value

    @property
    def _numba_type_(self) -> CAggregate:  # numba's typeof, and a kernel argument's type
        return self._type

    def _field(self, name: str) -> Field:
        field = self._type.layout.field(name)
        if field is None:
            fields = ", ".join(self._type.layout.names)
            raise AttributeError(f"{self._type!r} has no field {name!r} (fields: {fields})")
        return field

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        field = self._field(name)
        if field.is_bit_field:
            return _read_bits(field, self._buffer, self._offset)
        return _decode(field.type, self._buffer, self._offset + field.offset)

    def __setattr__(self, name: str, value: Any) -> None:
        field = self._field(name)
        try:
            if field.is_bit_field:
                _write_bits(field, self._buffer, self._offset, value)
            else:
                _encode(field.type, value, self._buffer, self._offset + field.offset)
        except (TypeError, OverflowError) as e:
            raise type(e)(f"{self._type!r}, field {name!r} ({field.type}): {e}") from None

    def __bytes__(self) -> bytes:
        return bytes(self._buffer[self._offset : self._offset + self._type.size])

    def copy(self) -> StructValue:
        """A value of its own with the same bytes."""
        return StructValue(self._type, bytearray(bytes(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StructValue):
            return NotImplemented
        return self._type == other._type and bytes(self) == bytes(other)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._type.layout.names)
        return f"{self._type.c_name}({fields})"

    def cache_key(self) -> str:
        """How the on-disk cache describes a value a kernel reads as a global: its type and bytes."""
        return f"{self._type.cache_name}:{bytes(self).hex()}"


class StructClass:
    """What ``cuda.experimental.struct(fields, name)`` and ``union`` return: called, it makes a
    value (on the host, or in a kernel); it is also a field type of other structs and unions,
    and a dtype of local and shared arrays."""

    def __init__(self, ty: CAggregate) -> None:
        self._type = ty  # numba-cuda-mlir's name of the numba type (compile signatures)
        self.name = ty.c_name

    @property
    def numba_type(self) -> CAggregate:
        return self._type

    @property
    def fields(self) -> list[tuple[str | None, Any, int | None]]:
        """(name, numba type, bits) of each field as declared (bits None but for bit fields)."""
        return list(self._type.fields)

    @property
    def variants(self) -> list[tuple[str, Any]]:
        """A union's fields, (name, numba type) each (numba-cuda-mlir's name)."""
        return [(name, ty) for name, ty, _ in self._type.fields]  # type: ignore[misc]  # named

    @property
    def size(self) -> int:
        return self._type.size

    @property
    def alignment(self) -> int:
        return self._type.alignment

    def offsetof(self, name: str) -> int:
        """The byte offset of the field *name* (of a bit field: of the unit of its type holding it)."""
        field = self._type.layout.field(name)
        if field is None:
            raise AttributeError(f"{self._type!r} has no field {name!r} (fields: {', '.join(self._type.layout.names)})")
        return field.offset

    def bit_offset(self, name: str) -> int:
        """The position of the bit field *name*'s lowest bit, counted from the value's first bit."""
        field = self._type.layout.field(name)
        if field is None or not field.is_bit_field:
            raise AttributeError(f"{self._type!r} has no bit field {name!r}")
        return field.bit  # type: ignore[return-value]

    def __call__(self, *args: Any, **kwargs: Any) -> StructValue:
        return StructValue.make(self._type, args, kwargs)

    def from_bytes(self, data: bytes | bytearray | memoryview) -> StructValue:
        data = bytes(data)
        if len(data) != self._type.size:
            raise ValueError(f"{self._type!r} is {self._type.size} bytes, got {len(data)}")
        return StructValue(self._type, bytearray(data))

    @property
    def _numba_type_(self) -> CAggregateClass:  # numba's typeof: called in a kernel, it makes a value
        return CAggregateClass(self._type)

    def cache_key(self) -> str:
        """How the on-disk cache describes it where a kernel names it: every field declared."""
        return self._type.cache_name

    def __repr__(self) -> str:
        return f"<{self._type!r} of {self.size} bytes>"


def field_type(given: Any) -> Any:
    """The numba type of a field's given type: a numba type, a struct or union (what struct()
    and union() return), a NumPy scalar type or dtype, or a vector type's constructor
    (``cuda.float32x4``)."""
    if isinstance(given, StructClass):
        return given._type
    if isinstance(given, CAggregateClass):
        return given.instance_type
    if isinstance(given, types.UniTuple) and not isinstance(given.dtype, types.Type):  # UniTuple(Point, 3)
        return types.UniTuple(field_type(given.dtype), given.count)
    if isinstance(given, types.Type):
        return given
    if isinstance(given, np.dtype) or (isinstance(given, type) and issubclass(given, np.generic)):
        return numpy_support.from_dtype(np.dtype(given))
    vector = vector_types.get(str(getattr(given, "__name__", "")))  # cuda.float32x4, a constructor
    if vector is not None and getattr(given, "count", None) == vector.count:
        return vector
    raise TypeError(
        f"a field's type is a numba type (types.int32), a NumPy scalar type or a struct or union, got {given!r}"
    )


def struct(fields: Any, name: str | None = None) -> StructClass:
    """numba-cuda-mlir's ``cuda.experimental.struct``: a C struct of *fields*, each
    ``(name, type)`` or ``(name, type, bits)`` for a bit field (``(None, type, bits)``: bits
    of padding); *name* names the type (None: one is made up). ``struct(name, fields)`` is
    accepted too."""
    if isinstance(fields, str) and isinstance(name, (list, tuple)):
        fields, name = name, fields
    return StructClass(declare("struct", fields, name, field_type))


def union(fields: Any, name: str | None = None) -> StructClass:
    """numba-cuda-mlir's ``cuda.experimental.union``: a C union of *fields*, each ``(name, type)``,
    all at offset 0. ``union(name, fields)`` is accepted too."""
    if isinstance(fields, str) and isinstance(name, (list, tuple)):
        fields, name = name, fields
    return StructClass(declare("union", fields, name, field_type))
