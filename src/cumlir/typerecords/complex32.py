"""complex32 (``cuda.complex32``, numba-cuda-mlir's): its numba type and its record. Its
operations are operations/formats/complex32.py's."""

from __future__ import annotations

import ctypes
import struct
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import types
from numba.core.typeconv import Conversion

from ..lazy import lazy
from . import TypeRecord
from ._packing import SLOT, complex_value

if TYPE_CHECKING:
    from numba.core.typing.context import BaseContext

# MLIR, for the conversions between a value and its in-memory form: this module is read by
# what never compiles (the host's packer, signature strings)
ir = lazy("mlir.ir")
arith = lazy("mlir.dialects.arith")
cx = lazy("mlir.dialects.complex")


class Complex32(types.Complex):
    """complex32 (``cuda.complex32``): a complex number of two float16 parts, as
    numba-cuda-mlir names it. NumPy has no such dtype, so values are made in device code.

    float16 converts to it exactly (safe) and it to complex64 and complex128 exactly
    (promote); every other number converts to it only explicitly (unsafe), each part
    rounded to the nearest float16, ties to even (docs/semantics.md)."""

    def __init__(self) -> None:
        super().__init__("complex32", types.float16)

    def can_convert_from(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if other == types.float16:
            return Conversion.safe
        if isinstance(other, (types.Integer, types.Float, types.Boolean, types.Complex)):
            return Conversion.unsafe
        return None

    def can_convert_to(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if isinstance(other, types.Complex) and other.bitwidth > self.bitwidth:
            return Conversion.promote
        return None

    def unify(self, typingctx: BaseContext, other: types.Type) -> types.Number | None:  # type: ignore[override]  # numba's stubs overload it: a Number for a Number; None is "no unification"
        if other == types.float16:
            return self
        if isinstance(other, types.Integer):
            return types.complex64 if other.bitwidth <= 16 else types.complex128  # type: ignore[attr-defined]  # numba's stubs omit Integer.bitwidth
        if isinstance(other, (types.Float, types.Complex)):
            return types.complex128 if other in (types.float64, types.complex128) else types.complex64
        return None


complex32 = Complex32()


def _as_data(value: Any) -> Any:
    """complex<f16> -> i32, the real part's bits low: an element is 4-byte aligned and moves
    with one 32-bit load or store (as CUDA's half2)."""
    i16, i32 = ir.IntegerType.get_signless(16), ir.IntegerType.get_signless(32)
    real, imag = (arith.extui(i32, arith.bitcast(i16, part)) for part in (cx.re(value), cx.im(value)))
    return arith.ori(real, arith.shli(imag, arith.constant(i32, 16)))


def _from_data(value: Any) -> Any:
    i16, f16 = ir.IntegerType.get_signless(16), ir.F16Type.get()
    high = arith.shrui(value, arith.constant(value.type, 16))
    real, imag = (arith.bitcast(f16, arith.trunci(i16, bits)) for bits in (value, high))
    return cx.create_(ir.ComplexType.get(f16), real, imag)


class Complex32Parameter:
    """Two parameters, the real and the imaginary part, each rounded to float16 (as float16
    bits: struct's "e" refuses a value float16 overflows)."""

    slots = 2

    def __init__(self, ty: Complex32, index: int | str) -> None:
        self.index = index
        self.type = ty

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Any) -> None:
        value = complex_value(value, self.index, self.type)
        with np.errstate(over="ignore"):
            parts = tuple(int(np.float16(p).view(np.uint16)) for p in (value.real, value.imag))
        struct.pack_into("H", buffer, offset, parts[0])
        struct.pack_into("H", buffer, offset + SLOT, parts[1])


RECORD = TypeRecord(
    name="complex32",
    classes=(Complex32,),
    exports={"Complex32": Complex32, "complex32": complex32},
    value_type="complex<f16>",
    data_type="i32",
    as_data=_as_data,
    from_data=_from_data,
    parameters="parts",
    packer=Complex32Parameter,
    names=lambda: {"complex32": complex32},
    numpy_dtype="convert to complex64",  # NumPy has no complex32: values are made in device code
)
