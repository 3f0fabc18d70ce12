"""Typing of the lanes of CUDA vector types (``v.x`` ... ``v.w``): a lane the vector does
not have is a typing error naming the lanes it has. Lanes are read-only, as in Numba-CUDA."""

from numba.core import errors
from numba.core.typing.templates import AttributeTemplate

from ...vector_types import VectorType
from ..registry import register_attr


@register_attr
class VectorLanes(AttributeTemplate):
    key = VectorType

    def generic_resolve(self, vty, attr):
        if attr in vty.lanes:
            return vty.base_type
        if attr in ("x", "y", "z", "w"):
            lanes = f"{vty.count} lane{'s' * (vty.count > 1)} ({', '.join(vty.lanes)})"
            raise errors.TypingError(f"{vty} has {lanes}: no '{attr}'")
        return None
