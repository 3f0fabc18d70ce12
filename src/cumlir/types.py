"""Numba's types, as extensions of cumlir use them: ``from cumlir import types``.

New types subclass ``types.Type``; see docs/extending.md.
"""

from numba.core import types as _types
from numba.core.typeconv import Conversion  # noqa: F401

# every public name of numba.core.types (its __all__ leaves out the type classes)
globals().update({_name: _value for _name, _value in vars(_types).items() if not _name.startswith("_")})

from numba.np.numpy_support import as_dtype, from_dtype  # noqa: E402,F401  (NumPy dtype <-> Numba type)


class Bfloat16(_types.Number):
    """bfloat16 (``cuda.bf16.bfloat16``): 8 exponent bits and 7 stored significand bits.

    As in Numba-CUDA, a Number but not a numba Float: numba's float templates leave it
    alone, and cumlir's own declarations type its operators. It converts to float32 and
    float64 without loss (safe), from every other number only explicitly (unsafe), and
    an int8 or uint8 fits it exactly (safe)."""

    def __init__(self):
        super().__init__(name="bfloat16")
        self.bitwidth = 16

    def can_convert_from(self, typingctx, other):
        if isinstance(other, _types.Float):
            return Conversion.unsafe
        if isinstance(other, _types.Integer):
            return Conversion.safe if other.bitwidth == 8 else Conversion.unsafe
        return None

    def can_convert_to(self, typingctx, other):
        if isinstance(other, _types.Float):
            return Conversion.safe if other.bitwidth >= 32 else Conversion.unsafe
        if isinstance(other, _types.Integer):
            return Conversion.unsafe
        return None

    def unify(self, typingctx, other):
        if isinstance(other, _types.Float):
            return other if other.bitwidth >= 32 else _types.float32
        return None


bfloat16 = Bfloat16()

# patterns of lowering rules and area typers name types in numba.core.types ("bfloat16")
_types.Bfloat16 = Bfloat16
_types.bfloat16 = bfloat16
