"""What the families' argument packers share with the runtime's: the slot every kernel
parameter takes in the launch's buffer, and a scalar of numba's number types packed by
``struct`` (runtime/arguments.py packs every other kind of argument)."""

from __future__ import annotations

import struct
from typing import Any

SLOT = 8  # bytes of the launch buffer each parameter takes (a tensor map takes several)

SCALAR_FORMATS = {
    "bool": "?",
    "int8": "b",
    "uint8": "B",
    "int16": "h",
    "uint16": "H",
    "int32": "i",
    "uint32": "I",
    "int64": "q",
    "uint64": "Q",
    "float16": "e",
    "float32": "f",
    "float64": "d",
}


class ScalarParameter:
    """A bool, integer or float: one slot, in ``struct``'s format for its type."""

    def __init__(self, ty: Any, index: Any) -> None:
        self.index = index
        self.type = ty
        self.format = SCALAR_FORMATS[str(ty)]
        self.slots = 1
        self._is_float = self.format in "efd"

    def pack(self, value: Any, buffer: Any, offset: int, launch: Any) -> None:
        if self._is_float:
            value = float(value)
        elif self.format == "?":
            value = bool(value)
        else:
            value = int(value)
        try:
            struct.pack_into(self.format, buffer, offset, value)
        except (struct.error, OverflowError):
            # an integer of the same width read with the other signedness (a mask 0xFFFFFFFF
            # for an int32, -1 for a uint32) passes its bits, as Numba-CUDA's ctypes packing does
            other = self.format.swapcase() if self.format in "bBhHiIqQ" else None
            try:
                if other is None:
                    raise struct.error
                struct.pack_into(other, buffer, offset, value)
            except (struct.error, OverflowError):
                raise OverflowError(f"argument {self.index}: {value!r} does not fit in {self.type}") from None


def complex_value(value: Any, index: Any, ty: Any) -> complex:
    """*value* as a Python complex for the complex parameter *index* of type *ty*."""
    try:
        return complex(value)
    except (TypeError, ValueError):
        raise TypeError(f"argument {index}: expected a complex number for {ty}, got {value!r}") from None
