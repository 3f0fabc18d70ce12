"""Numba's types, as extensions of cumlir use them: ``from cumlir import types``, and the
types cumlir adds: ``bfloat16``, ``complex32``, ``tf32``, the narrow floats (``f8E4M3FN`` ...), CUDA's
vector types and TMA tensor maps (``TensorMap``).

New types subclass ``types.Type``; see docs/extending.md. Operation modules name the
types of their patterns here (``"Integer"``, ``"bfloat16"``, ``"VectorType"``).
"""

import functools as _functools

import numpy as _np
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


class _HeldAsFloat32:
    """Conversions of a number computed as float32 (the narrow floats, tf32): to float32 and
    float64 exactly (safe), to any other number only explicitly (unsafe); with a float it
    unifies to that float, at least float32."""

    def can_convert_to(self, typingctx, other):
        if isinstance(other, _types.Float):
            return Conversion.safe if other.bitwidth >= 32 else Conversion.unsafe
        if isinstance(other, (_types.Integer, Bfloat16, NarrowFloat)):
            return Conversion.unsafe
        return None

    def unify(self, typingctx, other):
        if isinstance(other, _types.Float):
            return other if other.bitwidth >= 32 else _types.float32
        return None


class NarrowFloat(_HeldAsFloat32, _types.Number):
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

    def __init__(self, name, dtype_name, bits, exponent, mantissa, bias, kind):
        super().__init__(name=name)
        self.bitwidth = bits
        self.dtype_name = dtype_name
        self.exponent_bits = exponent
        self.mantissa_bits = mantissa
        self.bias = bias
        self.kind = kind

    @property
    def signed(self):
        return self.kind != "e8m0"

    def can_convert_from(self, typingctx, other):
        if isinstance(other, (_types.Float, _types.Integer, Bfloat16, NarrowFloat)):
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


class Tf32(_HeldAsFloat32, _types.Number):
    """tf32 (``types.tf32``, numba-cuda-mlir's): TensorFloat-32, a float32 whose 13 low
    significand bits are zero (8 exponent bits, 10 stored significand bits). A value is that
    float32, 4 bytes in memory. As the narrow floats, a Number but not a numba Float: it
    converts to float32 and float64 exactly (safe), from every other number only explicitly
    (unsafe), rounded to nearest, ties away from zero, as PTX's ``cvt.rna.tf32.f32``."""

    def __init__(self):
        super().__init__(name="tf32")
        self.bitwidth = 32

    def can_convert_from(self, typingctx, other):
        if isinstance(other, (_types.Float, _types.Integer, _types.Boolean, Bfloat16, NarrowFloat)):
            return Conversion.unsafe
        return None


tf32 = Tf32()


class Complex32(_types.Complex):
    """complex32 (``cuda.complex32``): a complex number of two float16 parts, as
    numba-cuda-mlir names it. NumPy has no such dtype, so values are made in device code.

    float16 converts to it exactly (safe) and it to complex64 and complex128 exactly
    (promote); every other number converts to it only explicitly (unsafe), each part
    rounded to the nearest float16, ties to even (docs/semantics.md)."""

    def __init__(self):
        super().__init__("complex32", _types.float16)

    def can_convert_from(self, typingctx, other):
        if other == _types.float16:
            return Conversion.safe
        if isinstance(other, (_types.Integer, _types.Float, _types.Boolean, _types.Complex)):
            return Conversion.unsafe
        return None

    def can_convert_to(self, typingctx, other):
        if isinstance(other, _types.Complex) and other.bitwidth > self.bitwidth:
            return Conversion.promote
        return None

    def unify(self, typingctx, other):
        if other == _types.float16:
            return self
        if isinstance(other, _types.Integer):
            return _types.complex64 if other.bitwidth <= 16 else _types.complex128
        if isinstance(other, (_types.Float, _types.Complex)):
            return _types.complex128 if other in (_types.float64, _types.complex128) else _types.complex64
        return None


complex32 = Complex32()


class WideIntegerConstant(_types.Dummy):
    """An integer constant beyond every integer type (below -2**63 or from 2**64 on: numba
    types no such literal). It has no run-time value: converted to a float it is that float
    nearest to it, and converting it to an integer type is an error at its line, so that
    ``a[0] = 2**70`` stores 2**70 into a float array and is refused for an integer one."""

    def __init__(self, value):
        self.value = value
        super().__init__(name=f"integer constant {value}")

    def can_convert_to(self, typingctx, other):
        if isinstance(other, _types.Float):
            return Conversion.safe
        if isinstance(other, _types.Integer):
            return Conversion.unsafe  # refused when lowered, where the line is known
        return None


# ---- CUDA's vector types ------------------------------------------------------------------
#
# The numba types of CUDA's vector types (``float32x4``, ``int32x2``, ...).
#
# One type per base type and lane count (1 to 4), named ``<base>x<n>`` as Numba-CUDA
# names them. A value is a struct of its lanes ``x, y, z, w``; in memory it has the size
# and alignment CUDA gives the type (``float4``, ``int4`` and ``double2`` aligned to 16,
# ``float2`` to 8, a 3-lane vector to its base type), so that a whole vector is loaded or
# stored with one vector instruction (docs/vector_types.md).

BASE_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64")
LANES = ("x", "y", "z", "w")


class VectorType(_types.Type):
    """A CUDA vector type: *count* lanes of the numba scalar type *base*."""

    def __init__(self, base, count):
        self.base_type = base
        self.count = count
        super().__init__(name=f"{base}x{count}")

    @property
    def lanes(self):
        return LANES[: self.count]

    @property
    def base_size(self):
        return self.base_type.bitwidth // 8

    @property
    def alignment(self):
        """CUDA's alignment: 2 and 4 lanes together (at most 16 bytes), 1 and 3 lanes as the base type."""
        if self.count == 2:
            return 2 * self.base_size
        if self.count == 4:
            return min(4 * self.base_size, 16)
        return self.base_size

    @property
    def size(self):
        return self.count * self.base_size  # a multiple of the alignment for every type above

    def numpy_dtype(self):
        """The NumPy structured dtype holding one value (fields ``x``, ``y``, ... at CUDA's offsets)."""
        base = _np.dtype(str(self.base_type))
        offsets = [k * self.base_size for k in range(self.count)]
        fields = {"names": list(self.lanes), "formats": [base] * self.count, "offsets": offsets}
        return _np.dtype({**fields, "itemsize": self.size})


@_functools.cache
def vector_type(base_name, count):
    """The vector type of *count* lanes of the scalar named *base_name* ("float32")."""
    if base_name not in BASE_TYPES or count not in (1, 2, 3, 4):
        raise ValueError(f"there is no CUDA vector type of {count} lanes of {base_name}")
    return VectorType(getattr(_types, base_name), count)


# every vector type by its name: "float32x4" -> VectorType
vector_types = {f"{base}x{n}": vector_type(base, n) for base in BASE_TYPES for n in (1, 2, 3, 4)}


def matches_record(vty, record):
    """Whether the numba Record type *record* lays out exactly one value of *vty*: the NumPy
    structured arrays a kernel taking an array of *vty* accepts from the host."""
    if not isinstance(record, _types.Record) or record.size != vty.size:
        return False
    fields = record.dtype.fields
    expected = vty.numpy_dtype().fields
    return list(record.dtype.names) == list(vty.lanes) and all(fields[n][:2] == expected[n][:2] for n in vty.lanes)


# float32x4 and the rest by name, as Numba-CUDA's cuda namespace spells them
globals().update(vector_types)


class TensorMap(_types.Type):
    """A TMA tensor map (``cuda.bindings.driver.CUtensorMap``) passed to a kernel: a 128-byte
    descriptor the kernel receives by value as a ``__grid_constant__`` parameter aligned to
    64, and holds as the parameter's generic address, the operand TMA instructions take
    (docs/hopper.md). *rank* (1 to 5) is known for maps made by ``cuda.tensor_map.tiled``,
    so that a copy with another number of coordinates is a typing error; None otherwise."""

    size = 128
    alignment = 64

    def __init__(self, rank=None):
        self.rank = rank
        super().__init__(name="TensorMap" if rank is None else f"TensorMap({rank})")


tensor_map = TensorMap()
