"""Lowering of CUDA vector types (vector_types.py): reading lanes, and loading and storing
whole vectors as array elements.

A vector is an LLVM struct of its lanes in registers. Arrays of vectors are byte-strided
memrefs, as arrays of records are; an element is loaded or stored as LLVM vectors of as
many lanes as the type's alignment covers, each access stating that alignment, so NVPTX
and libNVVM emit one ``ld.v4.f32``/``st.v4.f32`` for a float4, one ``.v2`` for a float2
or a double2, two ``.v2.f64`` for a double4, and one access per lane for 3-lane vectors
(aligned only to their base type, as in CUDA).
"""

from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import errors

from ...vector_types import VectorType
from ..elements import ELEMENT_ACCESS
from ..registry import lower_getattr_generic, lower_setattr_generic
from .records import advance, element_pointer


@lower_getattr_generic(VectorType)
def vector_lane(lower, vty, value, attr):
    return lower.extract(value, vty, vty.lanes.index(attr))


@lower_setattr_generic(VectorType)
def vector_lane_store(lower, sig, args, attr):
    raise errors.UnsupportedError(f"the lanes of {sig.args[0]} cannot be assigned (build a new vector)", lower.loc)


def _chunks(lower, vty):
    """(lanes per access, MLIR type of one access): the widest access the alignment allows."""
    per_access = vty.alignment // vty.base_size
    base = lower.get_mlir_type(vty.base_type)
    return per_access, (base if per_access == 1 else ir.VectorType.get([per_access], base))


def load_vector(lower, vty, pointer):
    per_access, access_type = _chunks(lower, vty)
    lanes = []
    for first in range(0, vty.count, per_access):
        chunk = llvm.load(access_type, advance(pointer, first * vty.base_size), alignment=vty.alignment)
        if per_access == 1:
            lanes.append(chunk)
            continue
        for k in range(per_access):
            position = arith.constant(ir.IntegerType.get_signless(32), k)
            lanes.append(llvm.extractelement(chunk, position))
    return lower.make_struct(vty, lanes)


def store_vector(lower, vty, value, pointer):
    per_access, access_type = _chunks(lower, vty)
    lanes = [lower.extract(value, vty, k) for k in range(vty.count)]
    for first in range(0, vty.count, per_access):
        if per_access == 1:
            chunk = lanes[first]
        else:
            chunk = llvm.mlir_poison(access_type)
            for k in range(per_access):
                position = arith.constant(ir.IntegerType.get_signless(32), k)
                chunk = llvm.insertelement(chunk, lanes[first + k], position)
        llvm.store(chunk, advance(pointer, first * vty.base_size), alignment=vty.alignment)


def _load_element(lower, vty, target, indices):
    return load_vector(lower, vty, element_pointer(target, indices))


def _store_element(lower, vty, value, target, indices):
    store_vector(lower, vty, value, element_pointer(target, indices))


ELEMENT_ACCESS[VectorType] = (_load_element, _store_element)
