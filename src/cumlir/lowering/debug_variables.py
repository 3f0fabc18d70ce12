"""``debug=True``: DWARF for a kernel's local variables, so that cuda-gdb prints them.

The kernel gets its own debug subprogram (its location fused with it), and each named
variable of a scalar or array type a stack slot declared to DWARF (``llvm.intr.dbg.declare``),
into which every assignment stores, as C compilers do without optimisation: the value stays
readable for the variable's whole life. Arrays are described as the
descriptor they are (docs/abi.md): ``data`` points at element [0, ...], ``shape`` and
``strides`` count elements, so cuda-gdb prints ``a.data[i]`` for ``a[i]`` of a
C-contiguous 1-d array (shared and local arrays alike: their descriptors hold generic
addresses). A record is the pointer it is held as (models.RecordModel), to a structure
of its fields at their offsets, so that ``r.x`` prints a field; in an array of records
``data`` points at records and ``strides`` count bytes (``recs.data[i].x``). Variables
of other types (tuples), and those of device functions (inlined into the kernel), are
not described; line tables cover every line.

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
    """Whether *lowerer*'s function gets variables: a kernel compiled with debug=True."""
    return bool(lowerer.options.debug) and lowerer.kind == "kernel"


def _display(name: str) -> str | None:
    """The user's name of a Numba IR variable (``i.2`` -> ``i``); None for temporaries."""
    if name.startswith("$") or name.startswith("arg."):
        return None
    return name.split(".", 1)[0]


def _basic(name: str, bits: int, encoding: str) -> str:
    return f'#llvm.di_basic_type<tag = DW_TAG_base_type, name = "{name}", sizeInBits = {bits}, encoding = {encoding}>'


def _scalar_type(ty: Any) -> str | None:  # a numba type (numba declares no bitwidth)
    if isinstance(ty, types.Boolean):
        return _basic("bool", 8, "DW_ATE_boolean")
    if isinstance(ty, types.Integer):
        signed = np.dtype(str(ty)).kind == "i"
        return _basic(str(ty), _bits(ty), "DW_ATE_signed" if signed else "DW_ATE_unsigned")
    if isinstance(ty, types.Float):
        return _basic(str(ty), _bits(ty), "DW_ATE_float")
    return None


def _element_type(ty: Any) -> str | None:
    """The DWARF type of a value held in memory: a scalar, a record or a nested array."""
    if isinstance(ty, types.Record):
        return _record_type(ty)
    if isinstance(ty, types.NestedArray):
        element = _element_type(ty.dtype)
        if element is None:
            return None
        extents = ", ".join(f"#llvm.di_subrange<count = {n} : i64>" for n in ty.shape)
        return (
            f"#llvm.di_composite_type<tag = DW_TAG_array_type, baseType = {element}, "
            f"sizeInBits = {8 * ty.size}, elements = {extents}>"
        )
    if isinstance(ty, types.Complex):  # in memory only: a complex variable is not described
        return _basic(str(ty), _bits(ty), "DW_ATE_complex_float")
    return _scalar_type(ty)


def _record_type(ty: types.Record) -> str | None:
    members = []
    for name, field in ty.fields.items():
        text = _element_type(field.type)
        if text is None:
            return None
        size = field.type.size if isinstance(field.type, (types.Record, types.NestedArray)) else _bits(field.type) // 8
        members.append(_member(name, text, 8 * size, 8 * field.offset))
    return (
        f'#llvm.di_composite_type<tag = DW_TAG_structure_type, name = "record({", ".join(ty.fields)})", '
        f"sizeInBits = {8 * ty.size}, elements = {', '.join(members)}>"
    )


def _pointer(base: str) -> str:
    return f"#llvm.di_derived_type<tag = DW_TAG_pointer_type, baseType = {base}, sizeInBits = 64>"


def _variable_type(ty: Any) -> str | None:
    """The DWARF type of a variable of numba type *ty*, or None where it is not described."""
    if isinstance(ty, types.Record):
        record = _record_type(ty)
        return None if record is None else _pointer(record)
    return _scalar_type(ty) or _array_type(ty)


def _member(name: str, base: str, bits: int, offset: int) -> str:
    return (
        f'#llvm.di_derived_type<tag = DW_TAG_member, name = "{name}", baseType = {base}, '
        f"sizeInBits = {bits}, offsetInBits = {offset}>"
    )


def _array_type(ty: types.Type) -> str | None:
    if not isinstance(ty, types.Array) or ty.ndim == 0:
        return None
    element = _record_type(ty.dtype) if isinstance(ty.dtype, types.Record) else _scalar_type(ty.dtype)
    if element is None:
        return None
    pointer = _pointer(element)
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
        self._lowerer = lowerer
        self._slots: dict[str, ir.Value] = {}  # shown name -> its stack slot, declared to DWARF
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
                ty = types.unliteral(ty)  # x = 1 types x as Literal[int](1): described as its int64
                text = _variable_type(ty)
                if text is not None:
                    found[shown] = (ty, stmt.loc.line or 0, text)
        return found

    def location(self, loc: ir.Location) -> ir.Location:
        """The function's location, carrying its subprogram."""
        return ir.Location.fused([loc], metadata=self.subprogram)

    def assigned(self, name: str, value: Any) -> None:
        """Store *value*, which variable *name* (a Numba IR name) now holds, in the
        variable's stack slot (made and declared on its first assignment): a slot keeps the
        value readable for the variable's whole life, where a register is reused and a
        constant has no location at all."""
        shown = _display(name)
        if shown is None or shown not in self._types or not isinstance(value, ir.Value):
            return
        ty = self._types[shown]
        if isinstance(ty, types.Array):
            if not isinstance(value.type, ir.MemRefType) or value.type.memory_space is not None:
                return  # a descriptor of another address space
            value = builtin.UnrealizedConversionCastOp([_descriptor(ty.ndim)], [value]).result
        elif isinstance(ty, types.Record):
            if not isinstance(value.type, llvm.PointerType):
                return
        elif isinstance(value.type, ir.MemRefType) or not _same_width(value.type, ty):
            return
        elif isinstance(ty, types.Boolean):
            value = arith.ExtUIOp(ir.IntegerType.get_signless(8), value).result
        llvm.StoreOp(value, self._slot(shown, value.type))

    def _slot(self, shown: str, kind: ir.Type) -> ir.Value:
        slot = self._slots.get(shown)
        if slot is None:
            with self._lowerer.alloca_insertion_point():
                one = llvm.ConstantOp(
                    ir.IntegerType.get_signless(64), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
                )
                slot = llvm.AllocaOp(ir.Type.parse("!llvm.ptr"), one.result, kind).result
                llvm.DbgDeclareOp(slot, self._attributes[shown])
            self._slots[shown] = slot
        return slot


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
