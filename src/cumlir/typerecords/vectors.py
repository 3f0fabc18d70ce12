"""CUDA's vector types (``float32x4``, ``int32x2``, ...): their numba types and their record.
Their constructors and lanes are operations/cuda/vectors.py's.

One type per base type and lane count (1 to 4), named ``<base>x<n>`` as Numba-CUDA
names them. A value is a struct of its lanes ``x, y, z, w``; in memory it has the size
and alignment CUDA gives the type (``float4``, ``int4`` and ``double2`` aligned to 16,
``float2`` to 8, a 3-lane vector to its base type), so that a whole vector is loaded or
stored with one vector instruction (docs/vector_types.md).
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import numpy as np
from numba.core import types

from . import TypeRecord
from ._packing import SLOT, ScalarParameter
from ._vector_names import BASE_TYPES, c_names

LANES = ("x", "y", "z", "w")


class VectorType(types.Type):
    """A CUDA vector type: *count* lanes of the numba scalar type *base*."""

    def __init__(self, base: types.Integer | types.Float, count: int) -> None:
        self.base_type = base
        self.count = count
        super().__init__(name=f"{base}x{count}")

    @property
    def lanes(self) -> tuple[str, ...]:
        return LANES[: self.count]

    @property
    def base_size(self) -> int:
        return self.base_type.bitwidth // 8  # type: ignore[union-attr]  # numba's stubs omit Integer.bitwidth

    @property
    def alignment(self) -> int:
        """CUDA's alignment: 2 and 4 lanes together (at most 16 bytes), 1 and 3 lanes as the base type."""
        if self.count == 2:
            return 2 * self.base_size
        if self.count == 4:
            return min(4 * self.base_size, 16)
        return self.base_size

    @property
    def size(self) -> int:
        return self.count * self.base_size  # a multiple of the alignment for every type above

    def numpy_dtype(self) -> np.dtype:
        """The NumPy structured dtype holding one value (fields ``x``, ``y``, ... at CUDA's offsets)."""
        base = np.dtype(str(self.base_type))
        offsets = [k * self.base_size for k in range(self.count)]
        fields = {"names": list(self.lanes), "formats": [base] * self.count, "offsets": offsets}
        return np.dtype({**fields, "itemsize": self.size})  # type: ignore[call-overload]  # NumPy's stubs take a TypedDict


@functools.cache
def vector_type(base_name: str, count: int) -> VectorType:
    """The vector type of *count* lanes of the scalar named *base_name* ("float32")."""
    if base_name not in BASE_TYPES or count not in (1, 2, 3, 4):
        raise ValueError(f"there is no CUDA vector type of {count} lanes of {base_name}")
    return VectorType(getattr(types, base_name), count)


# every vector type by its name: "float32x4" -> VectorType
vector_types = {f"{base}x{n}": vector_type(base, n) for base in BASE_TYPES for n in (1, 2, 3, 4)}


def matches_record(vty: VectorType, record: types.Type) -> bool:
    """Whether the numba Record type *record* lays out exactly one value of *vty*: the NumPy
    structured arrays a kernel taking an array of *vty* accepts from the host."""
    if not isinstance(record, types.Record) or record.size != vty.size:
        return False
    fields = record.dtype.fields
    expected = vty.numpy_dtype().fields
    return list(record.dtype.names) == list(vty.lanes) and all(fields[n][:2] == expected[n][:2] for n in vty.lanes)  # type: ignore[arg-type,index]  # a record's dtype has names and fields


class VectorParameter:
    """A CUDA vector passed by value, one parameter per lane, from a NumPy record laying out
    its lanes (the host has no vector types; see matches_record)."""

    def __init__(self, ty: VectorType, index: int | str) -> None:
        self.index = index
        self.type = ty
        self.slots = ty.count
        self._lane = ScalarParameter(ty.base_type, index)

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Any) -> None:
        if not isinstance(value, np.void) or value.dtype.names != self.type.lanes:
            raise TypeError(f"argument {self.index}: expected a record with the lanes of {self.type}, got {value!r}")
        for k, lane in enumerate(self.type.lanes):
            self._lane.pack(value[lane], buffer, offset + SLOT * k, launch)


def _signature_names() -> dict[str, VectorType]:
    names = {}
    for name, vty in vector_types.items():
        for spelling in (name, *c_names(str(vty.base_type), vty.count)):
            names[spelling] = vty
    return names


RECORD = TypeRecord(
    name="vector types",
    classes=(VectorType,),
    exports={
        "VectorType": VectorType,
        "vector_type": vector_type,
        "vector_types": vector_types,
        "matches_record": matches_record,
        "BASE_TYPES": BASE_TYPES,
        "LANES": LANES,
        **vector_types,  # float32x4 and the rest by name, as Numba-CUDA's cuda namespace spells them
    },
    # a struct of its lanes in registers; arrays of vectors are memrefs of bytes with byte
    # strides, as arrays of records, so that every access can state the vector's alignment
    members=lambda ty: [(lane, ty.base_type) for lane in ty.lanes],
    parameters="members",
    packer=VectorParameter,
    names=_signature_names,
)
