"""``debug=True``: DWARF for a kernel's local variables, so that cuda-gdb prints them.

The kernel gets its own debug subprogram (its location fused with it), and every
assignment to a named variable of a scalar or array type an ``llvm.intr.dbg.value``
saying which value the variable holds from there on. Arrays are described as the
descriptor they are (docs/abi.md): ``data`` points at element [0, ...], ``shape`` and
``strides`` count elements, so cuda-gdb prints ``a.data[i]`` for ``a[i]`` of a
C-contiguous 1-d array. Variables of other types (records, tuples, shared and local
arrays), and those of device functions (inlined into the kernel), are not described; line
tables cover every line. A variable held only where DWARF cannot name it (a boolean kept
in a predicate register and nowhere else) is dropped by NVPTX.

Every attribute of one kernel is parsed from one text, since the subprogram is a
distinct attribute that the variables must share.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from mlir import ir
from mlir.dialects import arith, builtin, llvm
from numba.core import ir as nir
from numba.core import types


def wanted(lowerer: Any) -> bool:
    """Whether *lowerer*'s function gets variables: a kernel compiled with debug=True by
    the nvptx code generator (the nvvm one prints line tables only)."""
    options = lowerer.options
    return bool(options.debug) and options.backend == "nvptx" and lowerer.kind == "kernel"


def _display(name: str) -> str | None:
    """The user's name of a Numba IR variable (``i.2`` -> ``i``); None for temporaries."""
    if name.startswith("$") or name.startswith("arg."):
        return None
    return name.split(".", 1)[0]


def _basic(name: str, bits: int, encoding: str) -> str:
    return f'#llvm.di_basic_type<tag = DW_TAG_base_type, name = "{name}", sizeInBits = {bits}, encoding = {encoding}>'


def _scalar_type(ty: Any) -> str | None:  # a numba type (numba declares no bitwidth)
    if isinstance(ty, types.Boolean):
        return _basic("bool", 32, "DW_ATE_boolean")  # described widened: see DebugVariables.assigned
    if isinstance(ty, types.Integer):
        signed = np.dtype(str(ty)).kind == "i"
        return _basic(str(ty), _bits(ty), "DW_ATE_signed" if signed else "DW_ATE_unsigned")
    if isinstance(ty, types.Float):
        return _basic(str(ty), _bits(ty), "DW_ATE_float")
    return None


def _member(name: str, base: str, bits: int, offset: int) -> str:
    return (
        f'#llvm.di_derived_type<tag = DW_TAG_member, name = "{name}", baseType = {base}, '
        f"sizeInBits = {bits}, offsetInBits = {offset}>"
    )


def _array_type(ty: types.Type) -> str | None:
    if not isinstance(ty, types.Array) or _scalar_type(ty.dtype) is None or ty.ndim == 0:
        return None
    pointer = f"#llvm.di_derived_type<tag = DW_TAG_pointer_type, baseType = {_scalar_type(ty.dtype)}, sizeInBits = 64>"
    extents = (
        f"#llvm.di_composite_type<tag = DW_TAG_array_type, baseType = {_basic('int64', 64, 'DW_ATE_signed')}, "
        f"sizeInBits = {64 * ty.ndim}, elements = #llvm.di_subrange<count = {ty.ndim} : i64>>"
    )
    members = [
        _member("allocated", pointer, 64, 0),
        _member("data", pointer, 64, 64),
        _member("offset", _basic("int64", 64, "DW_ATE_signed"), 64, 128),
        _member("shape", extents, 64 * ty.ndim, 192),
        _member("strides", extents, 64 * ty.ndim, 192 + 64 * ty.ndim),
    ]
    return (
        f'#llvm.di_composite_type<tag = DW_TAG_structure_type, name = "{ty}", '
        f"sizeInBits = {192 + 128 * ty.ndim}, elements = {', '.join(members)}>"
    )


def _descriptor(ndim: int) -> ir.Type:
    """The LLVM struct an array's memref becomes (MLIR's memref descriptor)."""
    return ir.Type.parse(f"!llvm.struct<(ptr, ptr, i64, array<{ndim} x i64>, array<{ndim} x i64>)>")


class DebugVariables:
    """The subprogram and variables of one kernel, and the dbg.value of each assignment."""

    def __init__(self, lowerer: Any) -> None:
        func_ir = lowerer.func_ir
        loc = func_ir.loc
        path = os.path.abspath(loc.filename or "<unknown>")
        file = f'#llvm.di_file<"{os.path.basename(path)}" in "{os.path.dirname(path)}">'
        unit = (
            f"#llvm.di_compile_unit<id = distinct[0]<>, sourceLanguage = DW_LANG_C_plus_plus, file = {file}, "
            'producer = "cumlir", isOptimized = false, emissionKind = Full>'
        )
        line = loc.line or 0
        name = func_ir.func_id.func_name
        subprogram = (
            f"#llvm.di_subprogram<id = distinct[1]<>, compileUnit = {unit}, scope = {file}, "
            f'name = "{name}", linkageName = "{lowerer.symbol}", file = {file}, line = {line}, '
            f"scopeLine = {line}, subprogramFlags = Definition, type = #llvm.di_subroutine_type<>>"
        )
        self._types: dict[str, types.Type] = {}  # shown name -> the type it is described with
        texts = [subprogram]
        for shown, (ty, first_line, text) in self._variables(lowerer, func_ir).items():
            self._types[shown] = ty
            texts.append(
                f'#llvm.di_local_variable<scope = {subprogram}, name = "{shown}", file = {file}, '
                f"line = {first_line}, type = {text}>"
            )
        parsed = ir.ArrayAttr(ir.Attribute.parse(f"[{', '.join(texts)}]"))
        self.subprogram = parsed[0]
        self._attributes = dict(zip(self._types, list(parsed)[1:]))

    @staticmethod
    def _variables(lowerer: Any, func_ir: nir.FunctionIR) -> dict[str, tuple[types.Type, int, str]]:
        """Shown name -> (its type, the line of its first assignment, its DWARF type), for
        each named variable of a type that can be described (the type of its first one)."""
        found: dict[str, tuple[types.Type, int, str]] = {}
        for block in func_ir.blocks.values():
            for stmt in block.find_insts(nir.Assign):
                shown = _display(stmt.target.name)
                ty = lowerer.typemap.get(stmt.target.name)
                if shown is None or shown in found or ty is None:
                    continue
                text = _scalar_type(ty) or _array_type(ty)
                if text is not None:
                    found[shown] = (ty, stmt.loc.line or 0, text)
        return found

    def location(self, loc: ir.Location) -> ir.Location:
        """The function's location, carrying its subprogram."""
        return ir.Location.fused([loc], metadata=self.subprogram)

    def assigned(self, name: str, value: Any) -> None:
        """Say at the insertion point that variable *name* (a Numba IR name) holds *value*."""
        shown = _display(name)
        if shown is None or shown not in self._types or not isinstance(value, ir.Value):
            return
        ty = self._types[shown]
        variable = self._attributes[shown]
        if isinstance(ty, types.Array):
            if isinstance(value.type, ir.MemRefType) and value.type.memory_space is None:
                _describe_descriptor(variable, value, ty.ndim)
            return  # shared and local arrays: other descriptors
        if isinstance(value.type, ir.MemRefType) or not _same_width(value.type, ty):
            return
        if isinstance(ty, types.Boolean):
            # NVPTX has no DWARF register for a predicate (i1) nor a byte: the variable would be dropped
            value = arith.ExtUIOp(ir.IntegerType.get_signless(32), value).result
        llvm.DbgValueOp(value, variable)


def _describe_descriptor(variable: ir.Attribute, value: ir.Value, ndim: int) -> None:
    """An array variable, member by member (each a DWARF piece of the descriptor): an
    aggregate value has no register of its own, and NVPTX drops what it cannot place."""
    descriptor = builtin.UnrealizedConversionCastOp([_descriptor(ndim)], [value]).result
    i64 = ir.IntegerType.get_signless(64)
    pieces = [([0], None), ([1], None), ([2], None)]
    pieces += [([3, d], None) for d in range(ndim)] + [([4, d], None) for d in range(ndim)]
    for k, (position, _) in enumerate(pieces):
        kind = ir.Type.parse("!llvm.ptr") if k < 2 else i64
        member = llvm.ExtractValueOp(kind, descriptor, position).result
        fragment = ir.Attribute.parse(f"#llvm.di_expression<[DW_OP_LLVM_fragment({64 * k}, 64)]>")
        llvm.DbgValueOp(member, variable, locationExpr=fragment)


def _same_width(mlir_type: ir.Type, ty: Any) -> bool:
    """Whether a value of *mlir_type* carries the variable's type (a version of the
    variable of another type is not described)."""
    if isinstance(ty, types.Boolean):
        return isinstance(mlir_type, ir.IntegerType) and mlir_type.width in (1, 8)
    if isinstance(ty, types.Integer):
        return isinstance(mlir_type, ir.IntegerType) and mlir_type.width == _bits(ty)
    bits = {"f16": 16, "f32": 32, "f64": 64}
    return bits.get(str(mlir_type)) == _bits(ty)


def _bits(ty: Any) -> int:
    """The width of a numba integer or float type, from its NumPy dtype."""
    return 8 * np.dtype(str(ty)).itemsize
