"""Constants for the LLVM 7 printer: literals folded into their uses, and global variables.

LLVM IR spells a constant at each use, where MLIR has an op defining a value; the ops in
FOLDED give their result a literal instead of an instruction.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from . import llvm7_types
from .llvm7_errors import Llvm7Error
from .llvm7_linkage import linkage_of

if TYPE_CHECKING:
    import numpy.typing as npt
    from mlir import ir

    from .llvm7_types import Type

    class _Module(Protocol):
        """What constants use of the module's printer (llvm7.ModulePrinter, which imports this module)."""

        globals: dict[str, tuple[Type, int]]  # symbol -> (value Type, address space)
        functions: dict[str, Type]  # symbol -> function Type

    class _Printer(Protocol):
        """What folding uses of a function's printer (llvm7.FunctionPrinter), or of a _Folding."""

        names: dict[ir.Value, str]

        @property
        def module(self) -> _Module: ...


FOLDED = ("llvm.mlir.constant", "llvm.mlir.poison", "llvm.mlir.undef", "llvm.mlir.zero", "llvm.mlir.addressof")


def fold(printer: _Printer, blocks: Iterable[ir.Block]) -> None:
    """Give every constant-like result in *blocks* its literal (before any use is printed)."""
    for block in blocks:
        for op in block.operations:
            op = op.operation
            rule = _FOLDERS.get(op.name)
            if rule is not None:
                result = op.results[0]
                printer.names[result] = rule(printer, op, llvm7_types.of(result.type))


def _constant(printer: _Printer, op: ir.Operation, ty: Type) -> str:
    return literal(op.attributes["value"], ty)


def _undef(printer: _Printer, op: ir.Operation, ty: Type) -> str:
    # LLVM 7 has no poison: undef is the weaker promise and so a correct replacement
    return "undef"


def _zero(printer: _Printer, op: ir.Operation, ty: Type) -> str:
    return zero(ty)


def _addressof(printer: _Printer, op: ir.Operation, ty: Type) -> str:
    name = str(op.attributes["global_name"]).lstrip("@")
    return address_of(printer.module, name)


_FOLDERS = {
    "llvm.mlir.constant": _constant,
    "llvm.mlir.poison": _undef,
    "llvm.mlir.undef": _undef,
    "llvm.mlir.zero": _zero,
    "llvm.mlir.addressof": _addressof,
}


def address_of(module: _Module, name: str) -> str:
    """``@name`` as an ``i8 addrspace(N)*`` constant expression."""
    if name in module.globals:
        ty, space = module.globals[name]
        return f"bitcast ({llvm7_types.typed_pointer(ty, space)} @{name} to {llvm7_types.pointer(space).text})"
    if name in module.functions:
        return f"bitcast ({module.functions[name].text}* @{name} to i8*)"
    raise Llvm7Error(f"address of an unknown symbol @{name}")


def zero(ty: Type) -> str:
    if ty.kind in ("struct", "array", "vector"):
        return "zeroinitializer"
    if ty.kind == "ptr":
        return "null"
    return "0" if ty.kind == "int" else float_literal(0.0, ty)


def float_literal(value: float, ty: Type) -> str:
    """LLVM's exact hexadecimal spelling: half as 0xH...; float and double as the double's bits."""
    if ty.bits == 16:
        return f"0xH{int(np.array(value, dtype=np.float16).view(np.uint16)):04X}"
    if ty.bits == 32:
        value = float(np.float32(value))
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def int_literal(value: int, ty: Type) -> str:
    if ty.bits == 1:
        return "true" if value else "false"
    value &= (1 << ty.bits) - 1
    return str(value - (1 << ty.bits) if value >> (ty.bits - 1) else value)


def scalar_literal(value: float | np.number[Any] | np.bool_, ty: Type) -> str:
    if ty.kind == "int":
        return int_literal(int(value), ty)
    if ty.kind == "float":
        return float_literal(float(value), ty)
    raise Llvm7Error(f"cannot spell a constant of type {ty.text}")


def literal(attr: ir.Attribute, ty: Type) -> str:
    """The LLVM 7 literal of an MLIR attribute given the value's type."""
    kind = type(attr).__name__
    if kind == "IntegerAttr" or kind == "BoolAttr":
        return scalar_literal(attr.value, ty)
    if kind == "FloatAttr":
        return scalar_literal(attr.value, ty)
    if kind in ("DenseIntElementsAttr", "DenseFPElementsAttr", "DenseElementsAttr"):
        if attr.is_splat and _is_zero(attr):
            return "zeroinitializer"
        return aggregate(np.array(attr), ty)
    if kind == "StringAttr":
        return string_literal(attr.value_bytes)
    raise Llvm7Error(f"the LLVM 7 printer cannot spell the constant {attr} as {ty.text}")


def _is_zero(attr: ir.Attribute) -> bool:
    return not np.any(np.array(attr))


def aggregate(values: npt.ArrayLike, ty: Type) -> str:
    """An array or vector literal from a NumPy array holding as many scalars as *ty*."""
    return _spell(np.asarray(values).reshape(-1), ty)


def _spell(flat: np.ndarray, ty: Type) -> str:
    if ty.kind not in ("array", "vector"):
        return scalar_literal(flat[0], ty)
    elem = ty.members[0]
    per = len(flat) // ty.bits
    items = [f"{elem.text} {_spell(flat[i * per : (i + 1) * per], elem)}" for i in range(ty.bits)]
    return ("[%s]" if ty.kind == "array" else "<%s>") % ", ".join(items)


def string_literal(data: bytes) -> str:
    return 'c"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data) + '"'


class _Folding:
    """The part of a FunctionPrinter that folding needs, for a global's initializer region."""

    def __init__(self, module: _Module) -> None:
        self.module = module
        self.names: dict[ir.Value, str] = {}


def _region_initializer(module: _Module, name: str, block: ir.Block) -> str:
    """The literal an initializer region returns; only constant-like ops may build it."""
    folding = _Folding(module)
    ops = [op.operation for op in block.operations]
    for op in ops[:-1]:
        if op.name not in _FOLDERS:
            raise Llvm7Error(f"global @{name}: the LLVM 7 printer cannot fold {op.name!r} in its initializer")
    fold(folding, [block])
    if ops[-1].name != "llvm.return" or len(ops[-1].operands) != 1:
        raise Llvm7Error(f"global @{name}: its initializer region does not return one value")
    return folding.names[ops[-1].operands[0]]


def global_definition(module: _Module, op: ir.Operation) -> str:
    name = str(op.attributes["sym_name"]).strip('"')
    ty, space = module.globals[name]
    linkage = linkage_of(op)
    kind = "constant" if "constant" in op.attributes else "global"
    if len(op.regions) and list(op.regions[0].blocks):
        init = " " + _region_initializer(module, name, op.regions[0].blocks[0])
    elif "value" in op.attributes:
        init = " " + literal(op.attributes["value"], ty)
    elif linkage == "external":
        init = ""  # a declaration, such as extern dynamic shared memory
    else:
        init = " undef"
    addrspace = f"addrspace({space}) " if space else ""
    link = "external " if linkage == "external" and not init else ("" if linkage == "external" else linkage + " ")
    align = f", align {op.attributes['alignment'].value}" if "alignment" in op.attributes else ""
    return f"@{name} = {link}{addrspace}{kind} {ty.text}{init}{align}\n"
