"""Numba's types, as extensions of cumlir use them: ``from cumlir import types``, and the
types cumlir adds: ``bfloat16``, ``complex32``, ``tf32``, the narrow floats (``f8E4M3FN`` ...), CUDA's
vector types and TMA tensor maps (``TensorMap``).

New types subclass ``types.Type``; see docs/extending.md. Operation modules name the
types of their patterns here (``"Integer"``, ``"bfloat16"``, ``"VectorType"``).
"""

import typing as _typing

from numba.core import types as _types
from numba.core.typeconv import Conversion  # noqa: F401

if _typing.TYPE_CHECKING:
    from numba.core.typing.context import BaseContext as _BaseContext

# every public name of numba.core.types (its __all__ leaves out the type classes)
globals().update({_name: _value for _name, _value in vars(_types).items() if not _name.startswith("_")})

from numba.np.numpy_support import as_dtype, from_dtype  # noqa: E402,F401  (NumPy dtype <-> Numba type)

from . import typerecords as _typerecords  # noqa: E402

# the families cumlir adds (bfloat16, tf32, complex32, the narrow floats, CUDA's vector
# types): each defined with its record in typerecords/, its public names given here
for _record in _typerecords.records():
    globals().update(_record.exports)

# numba-cuda-mlir's short names, by width in bits (numba's own i8 and u8 are NumPy's byte
# codes, int64 and uint64, and keep that meaning here)
i16, i32, i64 = _types.int16, _types.int32, _types.int64
u16, u32, u64 = _types.uint16, _types.uint32, _types.uint64
f16, f32, f64 = _types.float16, _types.float32, _types.float64
bf16 = globals()["bfloat16"]


class WideIntegerConstant(_types.Dummy):
    """An integer constant beyond every integer type (below -2**63 or from 2**64 on: numba
    types no such literal). It has no run-time value: converted to a float it is that float
    nearest to it, and converting it to an integer type is an error at its line, so that
    ``a[0] = 2**70`` stores 2**70 into a float array and is refused for an integer one."""

    def __init__(self, value: int) -> None:
        self.value = value
        super().__init__(name=f"integer constant {value}")

    def can_convert_to(self, typingctx: "_BaseContext", other: _types.Type) -> "Conversion | None":
        if isinstance(other, _types.Float):
            return Conversion.safe
        if isinstance(other, _types.Integer):
            return Conversion.unsafe  # refused when lowered, where the line is known
        return None


class TensorMap(_types.Type):
    """A TMA tensor map (``cuda.bindings.driver.CUtensorMap``) passed to a kernel: a 128-byte
    descriptor the kernel receives by value as a ``__grid_constant__`` parameter aligned to
    64, and holds as the parameter's generic address, the operand TMA instructions take
    (docs/hopper.md). *rank* (1 to 5) is known for maps made by ``cuda.tensor_map.tiled``,
    so that a copy with another number of coordinates is a typing error; None otherwise."""

    size = 128
    alignment = 64

    def __init__(self, rank: int | None = None) -> None:
        self.rank = rank
        super().__init__(name="TensorMap" if rank is None else f"TensorMap({rank})")


tensor_map = TensorMap()
