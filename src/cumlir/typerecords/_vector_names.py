"""The names of CUDA's vector types, without numba: the eleven base types and the C names
Numba-CUDA gives the vectors of each (``float4`` is ``float32x4``), for the types' record
(vectors.py) and their constructors (operations/cuda/vectors.py) alike."""

from __future__ import annotations

BASE_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64")

# the C names of the base types, sized as NumPy sizes the C types on 64-bit Linux (long and
# unsigned long are 64 bits), as Numba-CUDA derives its aliases (cuda.float4 is cuda.float32x4)
C_NAMES = {
    "char": "int8",
    "short": "int16",
    "int": "int32",
    "long": "int64",
    "longlong": "int64",
    "uchar": "uint8",
    "ushort": "uint16",
    "uint": "uint32",
    "ulong": "uint64",
    "ulonglong": "uint64",
    "half": "float16",
    "float": "float32",
    "double": "float64",
}


def c_names(base: str, n: int) -> tuple[str, ...]:
    """The C names of the vector of *n* lanes of *base* ("float32", 4 -> ("float4",))."""
    return tuple(f"{c_name}{n}" for c_name, of in C_NAMES.items() if of == base)
