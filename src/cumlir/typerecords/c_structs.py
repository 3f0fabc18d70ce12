"""C structs and unions (``cuda.experimental.struct``, ``cuda.experimental.union``, numba-cuda-mlir's):
their numba types and their record. Their constructors and fields are operations/python/structs.py's;
their layout is _c_layout.py's and their values on the host _c_host.py's.

A struct or union is a value, as in C: assigning one copies it, a device function gets a copy,
and assigning a field changes the variable's own value. In registers a value is its bytes, as
integers of its alignment (at most 8 bytes: ``!llvm.array<3 x i32>`` for 12 bytes aligned to
4), every field read and written with shifts and masks of the integer holding it; in memory
and as a kernel parameter, the same bytes in C's layout. Arrays of them are memrefs of bytes
with byte strides, as arrays of records are.
"""

from __future__ import annotations

import ctypes
import inspect
import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing.templates import signature

from . import TypeRecord
from ._c_layout import Layout, parse_fields, struct_layout, union_layout
from ._packing import SLOT

if TYPE_CHECKING:
    from numba.core.typing.context import BaseContext
    from numba.core.typing.templates import Signature


class CAggregate(types.Type):
    """A C struct or union: its name, its fields as given ((name, type, bits) each, bits None
    for an ordinary field; padding bit fields have no name) and their C layout."""

    kind = ""  # "struct" or "union"

    def __init__(self, c_name: str, fields: tuple[tuple[str | None, Any, int | None], ...], layout: Layout) -> None:
        self.c_name = c_name
        self.fields = fields
        self.layout = layout
        super().__init__(name=c_name)

    @property
    def key(self) -> Any:
        # two declarations of one name with other fields are other types
        return (self.kind, self.c_name, self.fields)

    @property
    def cache_name(self) -> str:
        """How the on-disk cache names it: every field, so that a kernel compiled for another
        declaration of the same name is another entry."""
        return f"{type(self).__name__}:{self.c_name}{self.fields}"

    @property
    def size(self) -> int:
        return self.layout.size

    @property
    def alignment(self) -> int:
        return self.layout.alignment

    def __repr__(self) -> str:
        return f"{self.kind} {self.c_name}"


class CStructType(CAggregate):
    kind = "struct"


class CUnionType(CAggregate):
    kind = "union"


class CAggregateClass(types.Callable, types.DTypeSpec, types.Opaque):
    """What ``struct()`` and ``union()`` return, in a kernel: called, it makes a value (its
    fields zero, or the values given, by position or by name, in the order the fields are
    declared; a union takes one); as a dtype, it makes arrays of them
    (``cuda.local.array(4, Point)``)."""

    def __init__(self, instance_type: CAggregate) -> None:
        self.instance_type = instance_type
        super().__init__(name=f"class({instance_type!r})")

    @property
    def key(self) -> Any:
        return self.instance_type

    @property
    def dtype(self) -> CAggregate:
        return self.instance_type

    def get_call_type(self, context: BaseContext, args: tuple[Any, ...], kws: Mapping[str, Any]) -> Signature:
        ty = self.instance_type
        names = list(ty.layout.names)
        what = f"{ty.c_name}()"
        if len(args) > len(names):
            raise TypingError(f"{what} takes at most {len(names)} field values, got {len(args)}")
        given = dict(zip(names, args))
        for name, value in kws.items():
            if name not in names:
                raise TypingError(f"{what}: {ty!r} has no field {name!r} (fields: {', '.join(names)})")
            if name in given:
                raise TypingError(f"{what}: the field {name!r} is given twice")
            given[name] = value
        if isinstance(ty, CUnionType) and len(given) > 1:
            raise TypingError(f"{what}: a union is made from one of its fields, got {', '.join(given)}")
        for name, value in given.items():
            field = ty.layout.field(name)
            if context.can_convert(value, field.type) is None:  # type: ignore[union-attr]  # a known name
                raise TypingError(f"{what}: the field {name!r} is a {field.type}; a {value} does not convert to it")  # type: ignore[union-attr]
        last = max((names.index(name) for name in given), default=-1)
        formal = [ty.layout.fields[k].type if names[k] in given else types.Omitted(None) for k in range(last + 1)]
        parameters = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for n in names]
        return signature(ty, *formal).replace(pysig=inspect.Signature(parameters[: last + 1]))

    def get_call_signatures(self) -> tuple[list[Any], bool]:
        return [], True

    def get_impl_key(self, sig: Signature) -> type:
        return type(self)


# ---- declaring one ----------------------------------------------------------------------------

_anonymous = {"struct": itertools.count(), "union": itertools.count()}


def declare(kind: str, fields: Any, name: str | None, field_type: Any) -> CAggregate:
    """The numba type of a struct or union (*kind*) declared with *fields* and *name* (None:
    one is made up); *field_type* turns a field's given type into a numba type."""
    if name is None:
        name = f"Anonymous{kind.capitalize()}_{next(_anonymous[kind])}"
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"the name of a {kind} is a Python identifier, got {name!r}")
    what = f"{kind} {name}"
    specs = parse_fields(kind, what, fields, field_type)
    layout = (struct_layout if kind == "struct" else union_layout)(what, specs)
    declared = tuple((spec.name, spec.type, spec.bits) for spec in specs)
    return (CStructType if kind == "struct" else CUnionType)(name, declared, layout)


# ---- its record -------------------------------------------------------------------------------


def _value_type(ty: CAggregate) -> str:
    word = ty.layout.word
    return f"!llvm.array<{ty.size // word} x i{8 * word}>"


class AggregateParameter:
    """A struct or union passed by value: one parameter holding its bytes in C's layout, as
    a C++ launcher passes it (a host value made by calling the struct, _c_host.py)."""

    one_parameter = True

    def __init__(self, ty: CAggregate, index: int | str) -> None:
        self.index = index
        self.type = ty
        self.slots = -(-ty.size // SLOT)

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Any) -> None:
        if getattr(value, "_numba_type_", None) != self.type:
            raise TypeError(f"argument {self.index}: expected a value of {self.type!r}, got {value!r}")
        buffer[offset : offset + self.type.size] = bytes(value)  # type: ignore[call-overload]  # ctypes takes bytes


RECORD = TypeRecord(
    name="C structs and unions",
    classes=(CStructType, CUnionType),
    exports={
        "CAggregate": CAggregate,
        "CStructType": CStructType,
        "CUnionType": CUnionType,
        "CAggregateClass": CAggregateClass,
    },
    value_type=_value_type,
    element_bytes=lambda ty: ty.size,
    assigned_by_value=True,
    parameters="value",
    packer=AggregateParameter,
    numpy_dtype="a C struct or union has no NumPy dtype: read its fields",
)
