"""The kernel parameter ABI: how each argument type is passed to a ``gpu.func`` kernel.

A scalar is one parameter of its in-memory type (bool and the narrow floats as one
byte; a datetime64 or timedelta64 an int64, the count of its unit); a complex number
two, its real and imaginary parts. An N-d array is 2 + 2N parameters, the memref
descriptor without its allocation pointer: ``data pointer, offset, size[0..N-1],
stride[0..N-1]``, offset and strides in elements (bytes for arrays of records and of
vectors), all i64. A record is one pointer to its bytes, a raw pointer (``CPointer``,
``voidptr``) one pointer, a CUDA vector (float32x4, ...) one parameter per lane. A TMA
tensor map is its 128 bytes by value (``byval``, aligned to 64), a grid constant: the
kernel holds the parameter's address, which TMA instructions read the descriptor at. A tuple
is its members' parameters in order, nested tuples flattened.
docs/abi.md describes this for callers; runtime/arguments.py writes arguments in
this layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from mlir import ir
from mlir.dialects import arith, llvm
from mlir.dialects import complex as mlir_complex
from numba.core import errors, types

from .. import typerecords
from ..marks import BY_VALUE_PARAMS
from ..models import parameter_shape
from ..operations._support.ptx_asm import require
from ..types import TensorMap
from .refcount import memref_from_descriptor

if TYPE_CHECKING:
    from numba.core import ir as nir

    from ..operations._support.builder import Lower, MLIRType, NumbaType, Value

    class _Builder(Lower, Protocol):
        """What these functions use of the MLIRLower they are given (function.py, which
        imports this module: named by this protocol, not imported)."""

        def has_value(self, numba_type: NumbaType) -> bool: ...

    class _Types(Protocol):
        """What memref_from_params uses of the builder (an MLIRLower, or its BuilderAPI)."""

        def get_mlir_type(self, numba_type: NumbaType) -> MLIRType: ...


_POINTERS = (types.Record, types.CPointer, types.RawPointer)
# types whose parameter is their in-memory value (the rest are extensions' types, by their models)
_KNOWN = (*_POINTERS, TensorMap, types.Number, types.Boolean, types.NPDatetime, types.NPTimedelta, types.EnumMember)


def _i64() -> ir.IntegerType:
    return ir.IntegerType.get_signless(64)


def kernel_params(lower: _Builder, argtypes: Sequence[types.Type], names: Sequence[str], loc: nir.Loc) -> list[ir.Type]:
    """The parameters of a kernel taking *argtypes*; a type it cannot take is an error naming
    the argument, at the kernel's definition."""
    params = []
    for name, ty in zip(names, argtypes):
        try:
            params += param_types(lower, ty)
        except (errors.UnsupportedError, TypeError) as e:
            text = str(e).split("\n")[0]
            raise errors.UnsupportedError(f"the kernel's argument {name!r} (of type {ty}): {text}", loc) from None
    return params


def param_types(lower: _Builder, ty: types.Type) -> list[ir.Type]:
    """The MLIR types of the kernel parameters that carry an argument of Numba type *ty*."""
    if isinstance(ty, types.Array):
        return [llvm.PointerType.get()] + [_i64()] * (1 + 2 * ty.ndim)
    if isinstance(ty, (*_POINTERS, TensorMap)):  # a record by reference: the launcher copies it in and out
        return [llvm.PointerType.get()]
    if isinstance(ty, (types.Integer, types.Float, types.Boolean, types.NPDatetime, types.NPTimedelta)):
        return [lower.dmm.lookup(ty).get_data_type()]
    record = typerecords.record_of(ty)
    if record is not None and record.parameters == "value":
        return [lower.dmm.lookup(ty).get_data_type()]
    if record is not None and record.parameters == "members":  # one parameter per member (a vector's lanes)
        return [lower.get_mlir_type(member) for _, member in record.members(ty)]  # type: ignore[misc]  # it has members
    if isinstance(ty, types.Complex) or (record is not None and record.parameters == "parts"):
        return [lower.dmm.lookup(ty.underlying_float).get_data_type()] * 2  # type: ignore[attr-defined]  # a complex
    if isinstance(ty, types.EnumMember):  # its value's parameter
        return param_types(lower, ty.dtype)
    if isinstance(ty, types.BaseTuple):
        return [t for member in ty.types for t in param_types(lower, member)]  # type: ignore[attr-defined]  # numba's stubs
    if not lower.has_value(ty):
        return []
    shape = _extension_shape(lower, ty)
    if shape == "pointer":
        return [llvm.PointerType.get()]
    if shape == "members":
        return [t for member in lower.dmm.lookup(ty).member_types() for t in param_types(lower, member)]
    return param_types(lower, shape)  # type: ignore[arg-type]  # a number type


def _extension_shape(lower: _Builder, ty: types.Type) -> str | types.Type:
    """How a kernel takes an argument of a type an extension declared: from its data model
    (models.parameter_shape), as numba passes it: a pointer or opaque handle as one pointer,
    a struct as its members, a scalar as itself."""
    shape = parameter_shape(lower.dmm.lookup(ty))
    if shape is None:
        raise errors.UnsupportedError(
            f"kernel arguments of type {ty} are not supported: its data model ({type(lower.dmm.lookup(ty)).__name__}) "
            "is neither a pointer, a struct of named members nor an integer or float"
        )
    return shape


def mark_by_value_params(lower: _Builder, op: ir.OpView, argtypes: Iterable[types.Type]) -> None:
    """Mark the kernel *op*'s parameters passed by value (tensor maps) with BY_VALUE_PARAMS,
    ``[index, bytes, alignment]`` each: the llvm stage makes them ``byval`` grid constants
    (MLIR's conversion of gpu.func to llvm.func keeps no ``llvm.byval``, and accepts
    ``nvvm.grid_constant`` on llvm.func kernels only)."""
    marked, index = [], 0
    for ty in argtypes:
        marked += _by_value(lower, ty, index)
        index += len(param_types(lower, ty))
    if marked:
        # read through cvta.param (PTX 7.7), and of use to TMA instructions only
        require(lower, "a tensor map argument", (9, 0), 80)
        op.attributes[BY_VALUE_PARAMS] = ir.ArrayAttr.get([ir.DenseI64ArrayAttr.get(m) for m in marked])


def _by_value(lower: _Builder, ty: types.Type, index: int) -> list[list[int]]:
    if isinstance(ty, TensorMap):
        return [[index, ty.size, ty.alignment]]
    if isinstance(ty, types.BaseTuple):
        found = []
        for member in ty.types:  # type: ignore[attr-defined]
            found += _by_value(lower, member, index)
            index += len(param_types(lower, member))
        return found
    return []


def value_from_params(lower: _Builder, ty: types.Type, params: Sequence[ir.Value]) -> Value:
    """Rebuild the argument's value from its kernel parameters (inside the kernel's entry block)."""
    if isinstance(ty, types.Array):
        if lower.options.narrow_addresses:  # launches pass offset 0: known, the offsets fold (abi.md)
            params = [params[0], arith.constant(params[1].type, 0), *params[2:]]
        return memref_from_params(lower, ty, params)
    if isinstance(ty, types.BaseTuple):
        return _tuple_from_params(lower, ty, params)
    if not params:
        return None
    record = typerecords.record_of(ty)
    if record is not None and record.parameters == "members":
        return lower.make_struct(ty, params)
    if isinstance(ty, types.Complex) or (record is not None and record.parameters == "parts"):
        return mlir_complex.CreateOp(lower.get_mlir_type(ty), params[0], params[1]).result
    if isinstance(ty, _KNOWN) or record is not None:
        return lower.dmm.lookup(ty).from_data(params[0])
    shape = _extension_shape(lower, ty)
    if shape == "members":
        return _members_from_params(lower, ty, lower.dmm.lookup(ty).member_types(), params)
    if shape == "pointer":
        return params[0]
    return lower.dmm.lookup(shape).from_data(params[0])  # the scalar's i1 from its byte, say


def _tuple_from_params(lower: _Builder, ty: types.BaseTuple, params: Sequence[ir.Value]) -> Value:
    return _members_from_params(lower, ty, ty.types, params)  # type: ignore[attr-defined]  # numba's stubs


def _members_from_params(
    lower: _Builder, ty: types.Type, member_types: Sequence[types.Type], params: Sequence[ir.Value]
) -> Value:
    members = []
    for member in member_types:
        n = len(param_types(lower, member))
        members.append(value_from_params(lower, member, params[:n]))
        params = params[n:]
    return lower.make_struct(ty, members)


def memref_from_params(lower: _Types, ty: types.Type, params: Sequence[ir.Value]) -> ir.Value:
    """A memref of Numba array type *ty* from (pointer, offset, sizes..., strides...) as i64s."""
    ptr, offset = params[0], params[1]
    sizes, strides = params[2 : 2 + ty.ndim], params[2 + ty.ndim :]  # type: ignore[attr-defined]  # an Array
    # the allocated pointer is the data pointer: the device runtime does not own the memory
    return memref_from_descriptor(lower.get_mlir_type(ty), ptr, ptr, offset, sizes, strides)
