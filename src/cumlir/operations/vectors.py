"""CUDA's vector types as Numba-CUDA exposes them: ``cuda.float32x4(x, y, z, w)``, with the
C names as aliases of the same objects (``cuda.float4``, ``cuda.int2``, ``cuda.double3``).

For each of the ten base types (int8 ... uint64, float32, float64) and 1 to 4 lanes, a
stub ``cuda.<base>x<n>`` builds a vector from scalars and smaller vectors of the same base
type whose lanes add up to n (``float32x4(float32x2(a, b), c, d)``, ``float32x3(v2, z)``);
scalars are converted to the base type as Numba-CUDA's constructors convert them. The
lanes are read as ``.x``, ``.y``, ``.z``, ``.w`` (typing/declarations/vectordecl.py,
lowering/rules/vectors.py); as in Numba-CUDA they cannot be assigned, and vectors have
no arithmetic. The numba types themselves are in ``cumlir/vector_types.py``.
"""

from . import Stub
from ._api import lazy
from ._modules import errors, templates, types

vector_types = lazy("cumlir.vector_types")

BASE_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")

# the C names of the base types, sized as NumPy sizes the C types on 64-bit Linux (long and
# unsigned long are 64 bits), as Numba-CUDA derives its aliases
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
    "float": "float32",
    "double": "float64",
}


def _aliases(base, n):
    return tuple(f"{c_name}{n}" for c_name, of in C_NAMES.items() if of == base)


class VectorConstructor(Stub):
    """``cuda.<base>x<n>``: builds a vector of n lanes of *base*; also known by its C names."""

    def __init__(self, base, n):
        name = f"{base}x{n}"
        lanes = ", ".join("xyzw"[:n])
        super().__init__(name, f"{name}({lanes}): a CUDA vector of {n} {base} lanes, from scalars and "
                         f"smaller {base} vectors whose lanes add up to {n}.")
        self.base = base
        self.count = n
        self.aliases = _aliases(base, n)


constructors = {}
for _base in BASE_TYPES:
    for _n in (1, 2, 3, 4):
        constructors[f"{_base}x{_n}"] = VectorConstructor(_base, _n)


def _constructor_typing(stub):
    def typer(*args):
        result = vector_types.vector_type(stub.base, stub.count)
        formal, lanes = [], 0
        for position, ty in enumerate(args, 1):
            if isinstance(ty, vector_types.VectorType):
                if ty.base_type != result.base_type:
                    raise errors.TypingError(
                        f"cuda.{stub.__name__}: argument {position} is a {ty}, not a vector of {stub.base}"
                    )
                formal.append(ty)
                lanes += ty.count
            elif isinstance(ty, (types.Number, types.Boolean)) and not isinstance(ty, types.Complex):
                formal.append(result.base_type)
                lanes += 1
            else:
                raise errors.TypingError(f"cuda.{stub.__name__}: argument {position} is a {ty}, not a number or vector")
        if lanes != stub.count:
            given = ", ".join(str(a) for a in args) or "nothing"
            raise errors.TypingError(
                f"cuda.{stub.__name__} needs {stub.count} lanes, got {lanes} (from {given})"
            )
        return templates.signature(result, *formal)

    return typer


def _lower_constructor(lower, sig, args):
    lanes = []
    for ty, value in zip(sig.args, args):
        if isinstance(ty, vector_types.VectorType):
            lanes += [lower.extract(value, ty, k) for k in range(ty.count)]
        else:
            lanes.append(value)
    return lower.make_struct(sig.return_type, lanes)


for _stub in constructors.values():
    _stub.typer(_constructor_typing(_stub))
    _stub.lower()(_lower_constructor)
