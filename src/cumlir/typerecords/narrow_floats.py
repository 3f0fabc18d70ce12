"""The narrow floats (float8, float6, float4; ``types.f8E4M3FN`` ...): their numba types and
their record. Their operations are operations/formats/narrow_floats.py's."""

from __future__ import annotations

import ctypes
import struct
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import types
from numba.core.typeconv import Conversion

from ..lazy import lazy
from . import TypeRecord
from .bfloat16 import Bfloat16

if TYPE_CHECKING:
    from numba.core.typing.context import BaseContext

ml_dtypes = lazy("ml_dtypes")  # not a dependency: rounds a number given for a narrow float argument


class HeldAsFloat32:
    """Conversions of a number computed as float32 (the narrow floats, tf32): to float32 and
    float64 exactly (safe), to any other number only explicitly (unsafe); with a float it
    unifies to that float, at least float32."""

    def can_convert_to(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if isinstance(other, types.Float):
            return Conversion.safe if other.bitwidth >= 32 else Conversion.unsafe
        if isinstance(other, (types.Integer, Bfloat16, NarrowFloat)):
            return Conversion.unsafe
        return None

    def unify(self, typingctx: BaseContext, other: types.Type) -> types.Number | None:
        if isinstance(other, types.Float):
            return other if other.bitwidth >= 32 else types.float32
        return None


class NarrowFloat(HeldAsFloat32, types.Number):  # type: ignore[misc]  # its unify: numba's stubs overload Number.unify (a Number for a Number)
    """A float of at most 8 bits (float8, float6, float4), one byte in memory, named as
    numba-cuda-mlir and MLIR name it (``f8E4M3FN``). Its format is the one ml_dtypes gives
    the NumPy dtype *dtype_name*: *exponent* and *mantissa* bits, the exponent *bias*, and
    *kind*, what its top codes mean:

    - ``"ieee"``: infinities and NaNs as IEEE 754 (float8_e5m2);
    - ``"fn"``: finite, the all-ones codes NaN (float8_e4m3fn);
    - ``"fnuz"``: finite, no negative zero, -0's code (0x80) the one NaN;
    - ``"finite"``: neither infinities nor NaN (float6, float4);
    - ``"e8m0"``: unsigned powers of two, 0xFF NaN (float8_e8m0fnu).

    As bfloat16, a Number but not a numba Float: it converts to float32 and float64 without
    loss (safe) and from every other number only explicitly (unsafe); mixed with a float
    it computes in that float, or float32 (docs/semantics.md)."""

    def __init__(
        self, name: str, dtype_name: str, bits: int, exponent: int, mantissa: int, bias: int, kind: str
    ) -> None:
        super().__init__(name=name)
        self.bitwidth = bits
        self.dtype_name = dtype_name
        self.exponent_bits = exponent
        self.mantissa_bits = mantissa
        self.bias = bias
        self.kind = kind

    @property
    def signed(self) -> bool:
        return self.kind != "e8m0"

    def can_convert_from(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if isinstance(other, (types.Float, types.Integer, Bfloat16, NarrowFloat)):
            return Conversion.unsafe
        return None


f8E4M3FN = NarrowFloat("f8E4M3FN", "float8_e4m3fn", 8, 4, 3, 7, "fn")
f8E5M2 = NarrowFloat("f8E5M2", "float8_e5m2", 8, 5, 2, 15, "ieee")
f8E4M3FNUZ = NarrowFloat("f8E4M3FNUZ", "float8_e4m3fnuz", 8, 4, 3, 8, "fnuz")
f8E5M2FNUZ = NarrowFloat("f8E5M2FNUZ", "float8_e5m2fnuz", 8, 5, 2, 16, "fnuz")
f8E4M3 = NarrowFloat("f8E4M3", "float8_e4m3", 8, 4, 3, 7, "ieee")
f8E3M4 = NarrowFloat("f8E3M4", "float8_e3m4", 8, 3, 4, 3, "ieee")
f8E4M3B11FNUZ = NarrowFloat("f8E4M3B11FNUZ", "float8_e4m3b11fnuz", 8, 4, 3, 11, "fnuz")
f8E8M0FNU = NarrowFloat("f8E8M0FNU", "float8_e8m0fnu", 8, 8, 0, 127, "e8m0")
f6E2M3FN = NarrowFloat("f6E2M3FN", "float6_e2m3fn", 6, 2, 3, 1, "finite")
f6E3M2FN = NarrowFloat("f6E3M2FN", "float6_e3m2fn", 6, 3, 2, 3, "finite")
f4E2M1FN = NarrowFloat("f4E2M1FN", "float4_e2m1fn", 4, 2, 1, 1, "finite")

# every narrow float, by its ml_dtypes dtype name ("float8_e4m3fn")
narrow_floats = {
    t.dtype_name: t
    for t in (
        f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3, f8E3M4, f8E4M3B11FNUZ, f8E8M0FNU, f6E2M3FN, f6E3M2FN,
        f4E2M1FN,
    )
}  # fmt: skip


class NarrowFloatParameter:
    """A narrow float (``types.f8E4M3FN``): its one-byte code. A scalar of the type's ml_dtypes
    dtype passes as it is; another number is rounded by ml_dtypes, which must be installed."""

    slots = 1

    def __init__(self, ty: NarrowFloat, index: int | str) -> None:
        self.index = index
        self.type = ty

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Any) -> None:
        if not (isinstance(value, np.generic) and value.dtype.name == self.type.dtype_name):
            value = self._rounded(value)
        struct.pack_into("B", buffer, offset, int(np.asarray(value).view(np.uint8)))

    def _rounded(self, value: Any) -> np.ndarray:
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            raise TypeError(f"argument {self.index}: expected a number for {self.type}, got {value!r}")
        try:
            dtype = getattr(ml_dtypes, self.type.dtype_name)
        except ImportError:
            raise TypeError(
                f"argument {self.index}: {value!r} for a {self.type} parameter is rounded by ml_dtypes, "
                f"which is not installed (pip install ml_dtypes); or pass an ml_dtypes.{self.type.dtype_name} scalar"
            ) from None
        return np.asarray(value, dtype=np.float64).astype(dtype)


RECORD = TypeRecord(
    name="narrow floats",
    classes=(NarrowFloat,),
    exports={"NarrowFloat": NarrowFloat, "narrow_floats": narrow_floats, **{t.name: t for t in narrow_floats.values()}},
    # one byte in registers and in memory, the code ml_dtypes stores: LLVM has no types of fewer
    # than 16 bits, so operations convert
    value_type="i8",
    parameters="value",
    packer=NarrowFloatParameter,
    prints_as="float",
    names=lambda: {**{t.name: t for t in narrow_floats.values()}, **narrow_floats},
    dtypes=lambda: dict(narrow_floats),
)
