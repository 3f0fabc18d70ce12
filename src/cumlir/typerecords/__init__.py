"""Type records: everything cumlir knows of a family of types it adds to numba's, in one
module per family (docs/architecture.md, "Adding a type").

A family's module (``bfloat16.py``, ``tf32.py``, ``narrow_floats.py``, ``complex32.py``,
``vectors.py``, ``c_structs.py``; ``charseqs.py`` gives numba's fixed-width strings their
model) defines its numba type classes and instances and one ``TypeRecord`` saying:

- how a value is held in MLIR (the data model: ``value_type``, ``data_type`` and the
  conversions between them, or the ``members`` of a struct; whether arrays of it count
  bytes, and whether its fields are assigned by value);
- how a kernel takes it as an argument (``parameters``: the kernel ABI, docs/abi.md) and how
  the host packs one (``packer``);
- how ``print()`` writes it (``prints_as``);
- the names a signature string may use for it, and the NumPy or ml_dtypes dtypes it is the
  type of (host arrays, and ml_dtypes' scalar classes used in kernels).

The modules that hold a stage's rules for every type (``models.py``, the kernel ABI,
``print()``, signature strings, the argument packers) ask ``record_of(ty)`` first, so that a
new family is its record module plus its operations module (``operations/``). Importing this
package and its modules loads numba's types and NumPy, never MLIR: the conversions between a
value and its in-memory form import MLIR when called.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# how a kernel takes an argument of the family (docs/abi.md), for TypeRecord.parameters
PARAMETER_SHAPES = (
    "value",  # one parameter of its in-memory type
    "members",  # one parameter per member (a vector's lanes), each of the member's type
    "parts",  # a complex number: its real and imaginary parts, each of its part type
)


@dataclass(eq=False)
class TypeRecord:
    """One family of types: see this package's docstring for what each field is for."""

    name: str
    classes: tuple[type, ...]  # the numba type classes of the family: a type is found by its class's MRO
    exports: Mapping[str, Any]  # the public names ``cumlir.types`` gives the family's classes and types
    # the data model: MLIR type text of a value in registers (or a function of the numba type
    # giving it), and in memory where that differs, with the conversions between the two
    value_type: str | Callable[[Any], str] | None = None
    data_type: str | None = None
    as_data: Callable[[Any], Any] | None = None
    from_data: Callable[[Any], Any] | None = None
    # or a struct: (member name, numba type) of a value; arrays of it then count bytes
    members: Callable[[Any], list[tuple[str, Any]]] | None = None
    # arrays of a type held as one value that count bytes: the item size of a value (C
    # structs' ``size``, fixed-width strings'), its elements loaded and stored by its
    # operations module (operations/_support/elements.py)
    element_bytes: Callable[[Any], int] | None = None
    # a value whose fields are assigned in place (C structs): its setattr rules return the
    # receiver's new value, and ``a[i].f = v`` or ``s.g.f = v`` write the new value back
    # where the temporary came from (lowering/places.py)
    assigned_by_value: bool = False
    parameters: str | None = None  # a kernel parameter shape of PARAMETER_SHAPES, or None: not an argument
    packer: Callable[[Any, Any], Any] | None = None  # (numba type, argument index) -> the host's packer
    prints_as: str | None = None  # "float": printf's %f of the value converted to float64
    names: Callable[[], Mapping[str, Any]] = field(default=lambda: {})  # signature-string names -> types
    dtypes: Callable[[], Mapping[str, Any]] = field(default=lambda: {})  # NumPy/ml_dtypes dtype names -> types
    # True where NumPy (or ml_dtypes) has a dtype for its values; else what to do instead,
    # which a typing error of NumPy's functions on it says
    numpy_dtype: bool | str = True

    def __post_init__(self) -> None:
        if self.parameters is not None and self.parameters not in PARAMETER_SHAPES:
            raise ValueError(f"type record {self.name}: parameters must be one of {PARAMETER_SHAPES}")
        if (self.value_type is None) == (self.members is None):
            raise ValueError(f"type record {self.name}: give a value_type or members, not both")
        _records.append(self)
        _by_class.update(dict.fromkeys(self.classes, self))


_records: list[TypeRecord] = []
_by_class: dict[type, TypeRecord] = {}
_imported: list[bool] = []  # whether this package's family modules are imported


def records() -> list[TypeRecord]:
    """Every type record: this package's families (imported on first use) and those
    extensions made."""
    if not _imported:
        for name in _family_modules():
            importlib.import_module(f"{__name__}.{name}")
        _imported.append(True)
    return list(_records)


def record_of(ty: object) -> TypeRecord | None:
    """The record of the family the numba type *ty* belongs to, or None (numba's own types)."""
    if not _imported:
        records()
    for cls in type(ty).__mro__:
        found = _by_class.get(cls)
        if found is not None:
            return found
    return None


def signature_names() -> dict[str, Any]:
    """Every family's names for signature strings (``tf32``, ``float4``, ``f8E4M3FN`` ...)."""
    names: dict[str, Any] = {}
    for record in records():
        names.update(record.names())
    return names


def type_of_dtype(name: str) -> Any:
    """The type a family gives the NumPy or ml_dtypes dtype named *name* (``bfloat16``,
    ``float8_e4m3fn``), or None."""
    for record in records():
        found = record.dtypes().get(name)
        if found is not None:
            return found
    return None


def _family_modules() -> list[str]:
    folder = os.path.dirname(__file__)
    return sorted(name[:-3] for name in os.listdir(folder) if name.endswith(".py") and not name.startswith("_"))
