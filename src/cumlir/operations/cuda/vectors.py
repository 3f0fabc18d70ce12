"""CUDA's vector types as Numba-CUDA exposes them: ``cuda.float32x4(x, y, z, w)``, with the
C names as aliases of the same objects (``cuda.float4``, ``cuda.int2``, ``cuda.double3``).

For each of the eleven base types (int8 ... uint64, float16, float32, float64) and 1 to 4 lanes, a
stub ``cuda.<base>x<n>`` builds a vector from scalars and smaller vectors whose lanes add up
to n (``float32x4(float32x2(a, b), c, d)``, ``float32x3(v2, z)``), from one scalar given to
every lane (``float32x4(0.0)``), or, with two lanes, from a complex number (its real and
imaginary parts); every lane is converted to the base type as Numba converts numbers. The
lanes are read as ``.x``, ``.y``, ``.z``, ``.w``; a lane the vector does not have is a
typing error naming the lanes it has. As in Numba-CUDA lanes cannot be assigned. Arithmetic
is ``vector_arithmetic.py``'s, conversions to and from complex numbers ``vector_complex.py``'s;
the numba types themselves, and their names, are in ``typerecords/vectors.py``.

A vector is an LLVM struct of its lanes in registers. Arrays of vectors are byte-strided
memrefs, as arrays of records are; an element is loaded or stored as LLVM vectors of as
many lanes as the type's alignment covers, each access stating that alignment, so NVPTX
and libNVVM emit one ``ld.v4.f32``/``st.v4.f32`` for a float4, one ``.v2`` for a float2
or a double2, two ``.v2.f64`` for a double4, and one access per lane for 3-lane vectors
(aligned only to their base type, as in CUDA).
"""

from ...typerecords._vector_names import BASE_TYPES, c_names
from .._support.api import Stub, attribute
from .._support.elements import ELEMENT_ACCESS
from .._support.modules import arith, cx, errors, ir, llvm, templates, types
from ..python.records import advance, element_pointer


class VectorConstructor(Stub):
    """``cuda.<base>x<n>``: builds a vector of n lanes of *base*; also known by its C names."""

    def __init__(self, base, n):
        name = f"{base}x{n}"
        lanes = ", ".join("xyzw"[:n])
        super().__init__(
            name,
            f"{name}({lanes}): a CUDA vector of {n} {base} lanes, from scalars and "
            f"smaller {base} vectors whose lanes add up to {n}.",
        )
        self.base = base
        self.count = n
        self.aliases = c_names(base, n)

    def names_type(self):
        """The vector type this constructor names where a dtype is taken (``a.view(cuda.float32x2)``)."""
        return types.vector_type(self.base, self.count)


constructors = {}
for _base in BASE_TYPES:
    for _n in (1, 2, 3, 4):
        constructors[f"{_base}x{_n}"] = VectorConstructor(_base, _n)


def _real_number(ty):
    return isinstance(ty, types.Number) and not isinstance(ty, types.Complex)


def _constructor_typing(stub):
    def typer(*args):
        result = types.vector_type(stub.base, stub.count)
        if len(args) == 1 and stub.count > 1 and _real_number(args[0]):
            return templates.signature(result, args[0])  # one scalar for every lane
        if len(args) == 1 and isinstance(args[0], types.Complex):
            if stub.count != 2:
                raise errors.TypingError(
                    f"cuda.{stub.__name__}: a complex number gives 2 lanes (real, imaginary), {result} has {stub.count}"
                )
            return templates.signature(result, args[0])
        lanes = 0
        for position, ty in enumerate(args, 1):
            if isinstance(ty, types.VectorType):
                lanes += ty.count
            elif isinstance(ty, types.Complex):
                raise errors.TypingError(
                    f"cuda.{stub.__name__}: argument {position} is a {ty}; a complex number makes a 2-lane "
                    f"vector on its own (cuda.{stub.base}x2(z))"
                )
            elif isinstance(ty, (types.Number, types.Boolean)):
                lanes += 1
            else:
                raise errors.TypingError(f"cuda.{stub.__name__}: argument {position} is a {ty}, not a number or vector")
        if lanes != stub.count:
            given = ", ".join(str(a) for a in args) or "nothing"
            raise errors.TypingError(f"cuda.{stub.__name__} needs {stub.count} lanes, got {lanes} (from {given})")
        return templates.signature(
            result, *(ty if isinstance(ty, types.VectorType) else result.base_type for ty in args)
        )

    return typer


def _lanes_of(lower, ty, value, base):
    """The lanes an argument of a constructor gives, each converted to *base*."""
    if isinstance(ty, types.VectorType):
        return [lower.cast(lower.extract(value, ty, k), ty.base_type, base) for k in range(ty.count)]
    if isinstance(ty, types.Complex):
        part = ty.underlying_float
        return [lower.cast(cx.re(value), part, base), lower.cast(cx.im(value), part, base)]
    return [lower.cast(value, ty, base)]


def _lower_constructor(lower, sig, args):
    result = sig.return_type
    lanes = [lane for ty, value in zip(sig.args, args) for lane in _lanes_of(lower, ty, value, result.base_type)]
    if len(lanes) == 1:
        lanes *= result.count
    return lower.make_struct(result, lanes)


for _stub in constructors.values():
    _stub.typer(_constructor_typing(_stub))
    _stub.lower()(_lower_constructor)


# ---- lanes and whole-vector loads and stores ------------------------------------------------


@attribute("VectorType").typer
def _lane_typing(vty, attr):
    if attr in vty.lanes:
        return vty.base_type
    if attr in ("x", "y", "z", "w"):
        lanes = f"{vty.count} lane{'s' * (vty.count > 1)} ({', '.join(vty.lanes)})"
        raise errors.TypingError(f"{vty} has {lanes}: no '{attr}'")
    return None


@attribute("VectorType").lower
def vector_lane(lower, vty, value, attr):
    return lower.extract(value, vty, vty.lanes.index(attr))


@attribute("VectorType").lower_set
def vector_lane_store(lower, sig, args, attr):
    raise errors.UnsupportedError(f"the lanes of {sig.args[0]} cannot be assigned (build a new vector)", lower.loc)


def _chunks(lower, vty, alignment):
    """(lanes per access, MLIR type of one access): the widest access *alignment* allows, a
    power of two lanes dividing the vector's."""
    per_access = 1
    while per_access * 2 <= min(alignment // vty.base_size, vty.count) and vty.count % (per_access * 2) == 0:
        per_access *= 2
    base = lower.get_mlir_type(vty.base_type)
    return per_access, (base if per_access == 1 else ir.VectorType.get([per_access], base))


def load_vector(lower, vty, pointer, alignment=None):
    """The vector at *pointer*, aligned to *alignment* bytes (the type's own by default)."""
    alignment = alignment or vty.alignment
    per_access, access_type = _chunks(lower, vty, alignment)
    lanes = []
    for first in range(0, vty.count, per_access):
        chunk = llvm.load(access_type, advance(pointer, first * vty.base_size), alignment=alignment)
        if per_access == 1:
            lanes.append(chunk)
            continue
        for k in range(per_access):
            position = arith.constant(ir.IntegerType.get_signless(32), k)
            lanes.append(llvm.extractelement(chunk, position))
    return lower.make_struct(vty, lanes)


def store_vector(lower, vty, value, pointer, alignment=None):
    """Store the vector *value* at *pointer*, aligned to *alignment* bytes (the type's own by default)."""
    alignment = alignment or vty.alignment
    per_access, access_type = _chunks(lower, vty, alignment)
    lanes = [lower.extract(value, vty, k) for k in range(vty.count)]
    for first in range(0, vty.count, per_access):
        if per_access == 1:
            chunk = lanes[first]
        else:
            chunk = llvm.mlir_poison(access_type)
            for k in range(per_access):
                position = arith.constant(ir.IntegerType.get_signless(32), k)
                chunk = llvm.insertelement(chunk, lanes[first + k], position)
        llvm.store(chunk, advance(pointer, first * vty.base_size), alignment=alignment)


def _load_element(lower, vty, target, indices):
    return load_vector(lower, vty, element_pointer(target, indices))


def _store_element(lower, vty, value, target, indices):
    store_vector(lower, vty, value, element_pointer(target, indices))


ELEMENT_ACCESS["VectorType"] = (_load_element, _store_element)
