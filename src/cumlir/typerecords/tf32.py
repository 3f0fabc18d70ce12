"""tf32 (``types.tf32``, numba-cuda-mlir's TensorFloat-32): its numba type and its record.
Its operations are operations/formats/tf32.py's."""

from __future__ import annotations

import ctypes
import math
import struct
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import types
from numba.core.typeconv import Conversion

from . import TypeRecord
from .bfloat16 import Bfloat16
from .narrow_floats import HeldAsFloat32, NarrowFloat

if TYPE_CHECKING:
    from numba.core.typing.context import BaseContext


class Tf32(HeldAsFloat32, types.Number):  # type: ignore[misc]  # its unify: numba's stubs overload Number.unify (a Number for a Number)
    """tf32 (``types.tf32``, numba-cuda-mlir's): TensorFloat-32, a float32 whose 13 low
    significand bits are zero (8 exponent bits, 10 stored significand bits). A value is that
    float32, 4 bytes in memory. As the narrow floats, a Number but not a numba Float: it
    converts to float32 and float64 exactly (safe), from every other number only explicitly
    (unsafe), rounded to nearest, ties away from zero, as PTX's ``cvt.rna.tf32.f32``."""

    def __init__(self) -> None:
        super().__init__(name="tf32")
        self.bitwidth = 32

    def can_convert_from(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if isinstance(other, (types.Float, types.Integer, types.Boolean, Bfloat16, NarrowFloat)):
            return Conversion.unsafe
        return None


tf32 = Tf32()


class Tf32Parameter:
    """A tf32: the float32 nearest to the number with 10 stored significand bits, ties away
    from zero (as the device's conversion; beyond the largest tf32, infinity; NaN 0x7FFFE000)."""

    slots = 1
    _LARGEST = (2 - 2.0**-10) * 2.0**127
    _SMALLEST_ULP = 2.0**-136  # float32's subnormals keep 10 significand bits from 2**-149

    def __init__(self, ty: Tf32, index: int | str) -> None:
        self.index = index
        self.type = ty

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Any) -> None:
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
            raise TypeError(f"argument {self.index}: expected a real number for tf32, got {value!r}")
        x = float(value)
        if math.isnan(x):
            struct.pack_into("I", buffer, offset, 0x7FFFE000)
            return
        struct.pack_into("f", buffer, offset, self.rounded(x))

    @classmethod
    def rounded(cls, x: float) -> float:
        if not math.isfinite(x) or x == 0:
            return x
        _, exponent = math.frexp(x)  # |x| in [2**(exponent-1), 2**exponent)
        ulp = max(2.0 ** (exponent - 11), cls._SMALLEST_ULP)
        steps = math.floor(abs(x) / ulp + 0.5)  # exact: fewer than 2**12 steps, halves exact
        magnitude = steps * ulp
        return math.copysign(magnitude if magnitude <= cls._LARGEST else math.inf, x)


RECORD = TypeRecord(
    name="tf32",
    classes=(Tf32,),
    exports={"Tf32": Tf32, "tf32": tf32},
    value_type="f32",  # the float32 it is (its 13 low significand bits zero), in registers and in memory
    parameters="value",
    packer=Tf32Parameter,
    prints_as="float",
    names=lambda: {"tf32": tf32},
)
