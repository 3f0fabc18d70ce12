"""Helpers for lowering callbacks written against the extension API.

MLIR integers are signless: ``convert`` treats them as signed, as Numba's
default integer types are. Where the Numba types are known, prefer
``builder.cast(value, fromty, toty)``, which follows their signedness.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mlir import ir
from mlir.dialects import arith, bufferization, func, llvm, tensor
from mlir.dialects import complex as mlir_complex

from ..lazy import lazy
from . import type_conversions  # noqa: F401  (numba-cuda-mlir's lowering_utilities.type_conversions)
from .type_conversions import to_mlir_type, to_numba_type  # noqa: F401

# linalg's Python module builds its named operations when imported (~60 ms): only tensor
# broadcasts need it
linalg = lazy("mlir.dialects.linalg")

# ---- constants -----------------------------------------------------------------------


def constant(py_value: Any, target_type: ir.Type) -> ir.Value:
    """An MLIR constant of *target_type* (integer, index, float or complex) holding *py_value*."""
    if isinstance(target_type, ir.IntegerType):
        width = target_type.width
        value = int(py_value) & ((1 << width) - 1)
        if width > 1 and value >= 1 << (width - 1):  # IntegerAttr takes the signed reading
            value -= 1 << width
        return arith.constant(target_type, ir.IntegerAttr.get(target_type, value))
    if isinstance(target_type, ir.IndexType):
        return arith.constant(target_type, ir.IntegerAttr.get(target_type, int(py_value)))
    if isinstance(target_type, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return arith.constant(target_type, ir.FloatAttr.get(target_type, float(py_value)))
    if isinstance(target_type, ir.ComplexType):
        part = target_type.element_type
        value = complex(py_value)
        attr = ir.ArrayAttr.get([ir.FloatAttr.get(part, value.real), ir.FloatAttr.get(part, value.imag)])
        return mlir_complex.ConstantOp(target_type, attr).result
    raise TypeError(f"cannot build a constant of the MLIR type {target_type}")


def int_of(value: int) -> ir.Value:
    return constant(value, ir.IntegerType.get_signless(64))


def i32_of(value: int) -> ir.Value:
    return constant(value, ir.IntegerType.get_signless(32))


def i64_of(value: int) -> ir.Value:
    return int_of(value)


def index_of(value: int) -> ir.Value:
    return constant(value, ir.IndexType.get())


def f32_of(value: float) -> ir.Value:
    return constant(value, ir.F32Type.get())


def f64_of(value: float) -> ir.Value:
    return constant(value, ir.F64Type.get())


# ---- conversions ---------------------------------------------------------------------


def _kind(t: ir.Type) -> str | None:
    if isinstance(t, ir.IntegerType):
        return "int"
    if isinstance(t, ir.IndexType):
        return "index"
    if isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return "float"
    if isinstance(t, llvm.PointerType):
        return "ptr"
    return None


def _width(t: ir.Type) -> int:
    return t.width


def _int_to_int(value: ir.Value, to: ir.Type) -> ir.Value:
    src, dst = _width(value.type), _width(to)
    if src == dst:
        return value
    if src == 1:  # a bool widens to 0 or 1, not to -1
        return arith.extui(to, value)
    return arith.extsi(to, value) if dst > src else arith.trunci(to, value)


def _float_to_float(value: ir.Value, to: ir.Type) -> ir.Value:
    src, dst = _width(value.type), _width(to)
    if src == dst:
        return value
    return arith.extf(to, value) if dst > src else arith.truncf(to, value)


def _int_to_float(value: ir.Value, to: ir.Type) -> ir.Value:
    if _width(value.type) == 1:
        return arith.uitofp(to, value)
    return arith.sitofp(to, value)


def _float_to_int(value: ir.Value, to: ir.Type) -> ir.Value:
    if _width(to) == 1:
        zero = arith.constant(value.type, ir.FloatAttr.get(value.type, 0.0))
        return arith.cmpf(arith.CmpFPredicate.UNE, value, zero)
    return arith.fptosi(to, value)


_CONVERSIONS: dict[tuple[str | None, str | None], Callable[[ir.Value, ir.Type], ir.Value]] = {
    ("int", "int"): _int_to_int,
    ("float", "float"): _float_to_float,
    ("int", "float"): _int_to_float,
    ("float", "int"): _float_to_int,
    ("int", "index"): lambda v, to: arith.index_cast(to, v),
    ("index", "int"): lambda v, to: arith.index_cast(to, v),
    ("index", "float"): lambda v, to: _int_to_float(arith.index_cast(ir.IntegerType.get_signless(64), v), to),
    ("float", "index"): lambda v, to: arith.index_cast(to, _float_to_int(v, ir.IntegerType.get_signless(64))),
    ("ptr", "int"): lambda v, to: llvm.ptrtoint(to, v),
    ("int", "ptr"): lambda v, to: llvm.inttoptr(to, v),
}


def convert(value: ir.Value, target_type: ir.Type) -> ir.Value:
    """Convert the MLIR *value* to *target_type*, choosing the arith or LLVM cast for the pair."""
    if value.type == target_type:
        return value
    rule = _CONVERSIONS.get((_kind(value.type), _kind(target_type)))
    if rule is None:
        raise TypeError(f"no conversion from the MLIR type {value.type} to {target_type}")
    return rule(value, target_type)


# ---- functions -----------------------------------------------------------------------


def get_or_insert_function(name: str, fn_type: ir.FunctionType, gpu_module: ir.OpView) -> func.FuncOp:
    """The private ``func.func`` declaration *name* of type *fn_type* in *gpu_module*,
    declared on first use (libdevice routines, external device functions)."""
    body = gpu_module.bodyRegion.blocks[0]
    for op in body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            declared = ir.TypeAttr(op.attributes["function_type"]).value
            if declared != fn_type:
                raise TypeError(f"{name} is already declared as {declared}, not {fn_type}")
            return op
    with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(body):
        return func.FuncOp(name, fn_type, visibility="private")


# ---- tensors and memrefs -------------------------------------------------------------


def memref_to_tensor(value: ir.Value) -> ir.Value:
    """The tensor holding the contents of the memref *value*."""
    memref_type = ir.MemRefType(value.type)
    tensor_type = ir.RankedTensorType.get(memref_type.shape, memref_type.element_type)
    return bufferization.to_tensor(tensor_type, value, restrict=True)


def tensor_to_memref(value: ir.Value) -> ir.Value:
    """A memref holding the contents of the tensor *value*."""
    tensor_type = ir.RankedTensorType(value.type)
    return bufferization.to_buffer(ir.MemRefType.get(tensor_type.shape, tensor_type.element_type), value)


def broadcast_shapes_for_binary_op(lhs: ir.Value, rhs: ir.Value, builder: object = None) -> tuple[ir.Value, ir.Value]:
    """NumPy's broadcast of two ranked shaped values: (lhs, rhs) as tensors of one common static shape.

    Both operands must have static shapes (tensors or memrefs); a size-1 dimension is
    repeated along the other's, and missing leading dimensions are added.
    """
    lt, rt = ir.ShapedType(lhs.type), ir.ShapedType(rhs.type)
    if not (lt.has_static_shape and rt.has_static_shape):
        raise TypeError("broadcast_shapes_for_binary_op needs operands of static shape")
    shape = _broadcast_shape(list(lt.shape), list(rt.shape))

    def expand(value: ir.Value, vtype: ir.ShapedType) -> ir.Value:
        if isinstance(value.type, ir.MemRefType):
            value = memref_to_tensor(value)
        if list(vtype.shape) == shape:
            return value
        src = list(vtype.shape)
        offset = len(shape) - len(src)
        # drop the size-1 dimensions that grow, then broadcast along them and the new leading ones
        kept = [i for i, n in enumerate(src) if n == shape[offset + i]]
        collapsed_type = ir.RankedTensorType.get([src[i] for i in kept], vtype.element_type)
        groups: list[list[int]]
        group: list[int]
        groups, group = [], []
        for i in range(len(src)):
            group.append(i)
            if i in kept:
                groups.append(group)
                group = []
        if group:
            if groups:
                groups[-1].extend(group)
            # all dimensions grow: collapse to rank 0
        collapsed = tensor.collapse_shape(collapsed_type, value, groups) if src != [src[i] for i in kept] else value
        init = tensor.empty(shape, vtype.element_type)
        grown = [d for d in range(len(shape)) if d < offset or (d - offset) not in kept]
        op = linalg.broadcast(collapsed, outs=[init], dimensions=grown)
        return op.results[0] if hasattr(op, "results") else op[0]

    return expand(lhs, lt), expand(rhs, rt)


def _broadcast_shape(a: list[int], b: list[int]) -> list[int]:
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    shape: list[int] = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} cannot be broadcast together")
        shape.append(max(x, y))
    return shape
