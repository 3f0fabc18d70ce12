"""NumPy's fixed-width strings as cumlir holds them: numba's ``CharSeq`` (``"S4"``, bytes) and
``UnicodeCharSeq`` (``"U4"``, UCS-4 code points). Their operations are
operations/numpy/charseqs.py's.

A value is a vector of its code units (``vector<4xi32>`` for a ``"U4"``), NUL-padded as NumPy
stores them; arrays of them are memrefs of bytes with byte strides, as arrays of records (a
memref holds no vectors of odd lengths: LLVM pads their size). They are not kernel arguments
on their own (a string scalar is passed in a one-element array).
"""

from __future__ import annotations

from typing import Any

from numba.core import types

from . import TypeRecord


def _code_unit(ty: Any) -> int:
    """Bytes per code unit: one for bytes, four for NumPy's unicode."""
    return 1 if isinstance(ty, types.CharSeq) else 4


RECORD = TypeRecord(
    name="fixed-width strings",
    classes=(types.CharSeq, types.UnicodeCharSeq),
    exports={},  # numba's own types, in cumlir.types already
    value_type=lambda ty: f"vector<{ty.count}xi{8 * _code_unit(ty)}>",
    element_bytes=lambda ty: ty.count * _code_unit(ty),
)
