"""bfloat16 (``cuda.bf16.bfloat16``, ``cumlir.types.bfloat16``): its numba type and its record.
Its operations are operations/formats/bf16.py's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba.core import types
from numba.core.typeconv import Conversion

from . import TypeRecord

if TYPE_CHECKING:
    from numba.core.typing.context import BaseContext


class Bfloat16(types.Number):
    """bfloat16 (``cuda.bf16.bfloat16``): 8 exponent bits and 7 stored significand bits.

    As in Numba-CUDA, a Number but not a numba Float: numba's float templates leave it
    alone, and cumlir's own declarations type its operators. It converts to float32 and
    float64 without loss (safe), from every other number only explicitly (unsafe), and
    an int8 or uint8 fits it exactly (safe)."""

    def __init__(self) -> None:
        super().__init__(name="bfloat16")
        self.bitwidth = 16

    def can_convert_from(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if isinstance(other, types.Float):
            return Conversion.unsafe
        if isinstance(other, types.Integer):
            return Conversion.safe if other.bitwidth == 8 else Conversion.unsafe  # type: ignore[attr-defined]  # numba's stubs omit Integer.bitwidth
        return None

    def can_convert_to(self, typingctx: BaseContext, other: types.Type) -> Conversion | None:
        if isinstance(other, types.Float):
            return Conversion.safe if other.bitwidth >= 32 else Conversion.unsafe
        if isinstance(other, types.Integer):
            return Conversion.unsafe
        return None

    def unify(self, typingctx: BaseContext, other: types.Type) -> types.Number | None:  # type: ignore[override]  # numba's stubs overload it: a Number for a Number; None is "no unification"
        if isinstance(other, types.Float):
            return other if other.bitwidth >= 32 else types.float32
        return None


bfloat16 = Bfloat16()

RECORD = TypeRecord(
    name="bfloat16",
    classes=(Bfloat16,),
    exports={"Bfloat16": Bfloat16, "bfloat16": bfloat16},
    value_type="bf16",
    prints_as="float",
    names=lambda: {"bfloat16": bfloat16},
    dtypes=lambda: {"bfloat16": bfloat16},  # ml_dtypes' bfloat16
)
