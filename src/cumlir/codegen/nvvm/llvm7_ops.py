"""One printer per LLVM-dialect op for the LLVM 7 printer (llvm7.py), kept in PRINTERS.

Each printer gets the FunctionPrinter ``p`` and the op, and emits LLVM 7 instructions.
Pointers are ``i8 addrspace(N)*`` everywhere, so memory ops bitcast to the element type
first (``p.cast_pointer``) and GEP results are cast back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ...marks import COUNTED_LOOP_COUNTER
from . import intrinsics_nvvm as intrinsics
from . import llvm7_types
from .llvm7_constants import float_literal, int_literal
from .llvm7_errors import Llvm7Error

if TYPE_CHECKING:
    from typing import TypeAlias

    from mlir import ir

    from .llvm7_debug import LineTables
    from .llvm7_types import Type

    class _Module(Protocol):
        """What the op printers use of the module's printer (llvm7.ModulePrinter, which imports this module)."""

        functions: dict[str, Type]  # symbol -> function Type
        line_tables: LineTables | None

        def use_intrinsic(self, name: str, declaration: str) -> None: ...

        def range_node(self, low: int, high: int) -> str: ...

        def loop_unroll_node(self, count: int | None) -> str: ...

    class _Function(Protocol):
        """What they use of the function's printer ``p`` (llvm7.FunctionPrinter)."""

        names: dict[ir.Value, str]  # Value -> operand text
        allocas: dict[ir.Value, str]  # the pointer Value of an alloca -> the typed alloca
        scope: str  # its DISubprogram, where there are line tables

        @property
        def module(self) -> _Module: ...

        def fresh(self, hint: str = "t") -> str: ...

        def value(self, v: ir.Value) -> str: ...

        def type_of(self, v: ir.Value) -> Type: ...

        def typed(self, v: ir.Value) -> str: ...

        def emit(self, text: str) -> None: ...

        def define(self, result: ir.Value, text: str) -> None: ...

        def cast_pointer(self, v: ir.Value, elem: Type) -> str: ...

        def target(self, terminator: ir.Operation, index: int, block: ir.Block) -> str: ...

    _OpPrinter: TypeAlias = Callable[[_Function, ir.Operation], None]

PRINTERS: dict[str, _OpPrinter] = {}

_INT_MIN = -(2**31)  # GEP index slot taken by the next dynamic operand
ICMP = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FCMP = (
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
)
_FASTMATH = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")


def _rule(*names: str) -> Callable[[_OpPrinter], _OpPrinter]:
    def register(fn: _OpPrinter) -> _OpPrinter:
        for name in names:
            PRINTERS[name] = fn
        return fn

    return register


def fastmath(op: ir.Operation) -> str:
    if "fastmathFlags" not in op.attributes:
        return ""
    text = str(op.attributes["fastmathFlags"]).removeprefix("#llvm.fastmath<").removesuffix(">")
    flags = [f.strip() for f in text.split(",") if f.strip() not in ("", "none")]
    if "fast" in flags:
        return "fast "
    return "".join(f"{f} " for f in flags if f in _FASTMATH)


def _attr_int(op: ir.Operation, name: str, default: int | None = None) -> Any:
    return op.attributes[name].value if name in op.attributes else default


# -- arithmetic --------------------------------------------------------------------------
_INT_BINARY = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "and", "or", "xor", "shl", "lshr", "ashr")
_FLOAT_BINARY = ("fadd", "fsub", "fmul", "fdiv", "frem")


@_rule(*(f"llvm.{name}" for name in _INT_BINARY))
def _int_binary(p: _Function, op: ir.Operation) -> None:
    # nsw/nuw/exact only license optimisations, so leaving them out is always correct; a
    # counted loop's counter (codegen/passes/counted_loops.py) gets nsw, which lets LLVM count its trips
    a, b = op.operands
    flags = "nsw " if COUNTED_LOOP_COUNTER in op.attributes else ""
    p.define(op.results[0], f"{op.name[5:]} {flags}{p.typed(a)}, {p.value(b)}")


@_rule(*(f"llvm.{name}" for name in _FLOAT_BINARY))
def _float_binary(p: _Function, op: ir.Operation) -> None:
    a, b = op.operands
    p.define(op.results[0], f"{op.name[5:]} {fastmath(op)}{p.typed(a)}, {p.value(b)}")


@_rule("llvm.fneg")
def _fneg(p: _Function, op: ir.Operation) -> None:
    # LLVM 7 has no fneg instruction; -0.0 - x is its exact equivalent
    (a,) = op.operands
    ty = p.type_of(a)
    if ty.kind != "float":
        raise Llvm7Error(f"llvm.fneg of {ty.text} is not supported by the LLVM 7 printer")
    p.define(op.results[0], f"fsub {fastmath(op)}{ty.text} {float_literal(-0.0, ty)}, {p.value(a)}")


_CASTS = (
    "zext",
    "sext",
    "trunc",
    "fpext",
    "fptrunc",
    "sitofp",
    "uitofp",
    "fptosi",
    "fptoui",
    "bitcast",
    "ptrtoint",
    "inttoptr",
    "addrspacecast",
)


@_rule(*(f"llvm.{name}" for name in _CASTS))
def _cast(p: _Function, op: ir.Operation) -> None:
    (a,) = op.operands
    result = op.results[0]
    p.define(result, f"{op.name[5:]} {p.typed(a)} to {p.type_of(result).text}")


@_rule("llvm.freeze")
def _freeze(p: _Function, op: ir.Operation) -> None:
    # LLVM 7 has no freeze; its undef is already what freeze would give
    p.names[op.results[0]] = p.value(op.operands[0])


_PREDICATES = {"llvm.icmp": ICMP, "llvm.fcmp": FCMP}


@_rule(*_PREDICATES)
def _compare(p: _Function, op: ir.Operation) -> None:
    a, b = op.operands
    predicate = _PREDICATES[op.name][_attr_int(op, "predicate")]
    p.define(op.results[0], f"{op.name[5:]} {fastmath(op)}{predicate} {p.typed(a)}, {p.value(b)}")


@_rule("llvm.select", "llvm.extractelement", "llvm.insertelement")
def _all_operands_typed(p: _Function, op: ir.Operation) -> None:
    p.define(op.results[0], f"{op.name[5:]} {', '.join(p.typed(x) for x in op.operands)}")


# -- aggregates --------------------------------------------------------------------------
def _position(op: ir.Operation) -> str:
    return ", ".join(str(i) for i in op.attributes["position"])


@_rule("llvm.extractvalue")
def _extractvalue(p: _Function, op: ir.Operation) -> None:
    (agg,) = op.operands
    p.define(op.results[0], f"extractvalue {p.typed(agg)}, {_position(op)}")


@_rule("llvm.insertvalue")
def _insertvalue(p: _Function, op: ir.Operation) -> None:
    agg, value = op.operands
    p.define(op.results[0], f"insertvalue {p.typed(agg)}, {p.typed(value)}, {_position(op)}")


# -- memory ------------------------------------------------------------------------------
def _align(op: ir.Operation) -> str:
    align = _attr_int(op, "alignment")
    return f", align {align}" if align else ""


def _plain_memory_op(op: ir.Operation) -> str:
    if _attr_int(op, "ordering", 0) != 0:
        raise Llvm7Error(f"atomic {op.name} is not supported by the LLVM 7 printer")
    return "volatile " if "volatile_" in op.attributes else ""


@_rule("llvm.load")
def _load(p: _Function, op: ir.Operation) -> None:
    volatile = _plain_memory_op(op)
    (ptr,) = op.operands
    result = op.results[0]
    ty = p.type_of(result)
    typed = p.cast_pointer(ptr, ty)
    space = p.type_of(ptr).bits
    p.define(result, f"load {volatile}{ty.text}, {llvm7_types.typed_pointer(ty, space)} {typed}{_align(op)}")


@_rule("llvm.store")
def _store(p: _Function, op: ir.Operation) -> None:
    volatile = _plain_memory_op(op)
    value, ptr = op.operands
    ty = p.type_of(value)
    typed = p.cast_pointer(ptr, ty)
    space = p.type_of(ptr).bits
    p.emit(f"store {volatile}{ty.text} {p.value(value)}, {llvm7_types.typed_pointer(ty, space)} {typed}{_align(op)}")


@_rule("llvm.getelementptr")
def _getelementptr(p: _Function, op: ir.Operation) -> None:
    base, *dynamic = op.operands
    elem = llvm7_types.of(op.attributes["elem_type"].value)
    space = p.type_of(base).bits
    typed = p.cast_pointer(base, elem)
    indices, current = [], elem
    for position, raw in enumerate(op.attributes["rawConstantIndices"]):
        if raw == _INT_MIN:
            index = dynamic.pop(0)
            indices.append(p.typed(index))
        else:
            # struct fields need i32 constants; i32 serves for the other levels too
            indices.append(f"i32 {raw}")
        if position > 0:
            current = llvm7_types.member(current, raw if raw != _INT_MIN else 0)
    gep = p.fresh("g")
    ptr_ty = llvm7_types.typed_pointer(elem, space)
    p.emit(f"{gep} = getelementptr {elem.text}, {ptr_ty} {typed}, {', '.join(indices)}")
    result = op.results[0]
    p.define(result, f"bitcast {llvm7_types.typed_pointer(current, space)} {gep} to {p.type_of(result).text}")


@_rule("llvm.alloca")
def _alloca(p: _Function, op: ir.Operation) -> None:
    (count,) = op.operands
    elem = llvm7_types.of(op.attributes["elem_type"].value)
    slot = p.fresh("a")
    p.emit(f"{slot} = alloca {elem.text}, {p.typed(count)}{_align(op)}")
    result = op.results[0]
    space = p.type_of(result).bits
    if space:
        raise Llvm7Error("allocas outside the generic address space are not supported by the LLVM 7 printer")
    p.define(result, f"bitcast {elem.text}* {slot} to i8*")
    p.allocas[result] = f"{elem.text}* {slot}"


@_rule("llvm.intr.dbg.declare")
def _dbg_declare(p: _Function, op: ir.Operation) -> None:
    """debug=True's variable in its stack slot, which LLVM 7 wants named as the alloca itself."""
    (slot,) = op.operands
    tables = p.module.line_tables
    if tables is None or slot not in p.allocas:
        return  # no variables without full debug information, nor for a slot that is no alloca
    variable = tables.variable(str(op.attributes["varInfo"]), p.scope)
    p.module.use_intrinsic("llvm.dbg.declare", "declare void @llvm.dbg.declare(metadata, metadata, metadata)")
    p.emit(f"call void @llvm.dbg.declare(metadata {p.allocas[slot]}, metadata {variable}, metadata !DIExpression())")


# -- calls and control flow --------------------------------------------------------------
def _produce(p: _Function, op: ir.Operation, text: str) -> None:
    """Emit *text* as the definition of the op's result, or on its own for a void op."""
    if len(op.results):
        p.define(op.results[0], text)
    else:
        p.emit(text)


@_rule("llvm.call")
def _call(p: _Function, op: ir.Operation) -> None:
    if "callee" not in op.attributes:
        _indirect_call(p, op)
        return
    callee = str(op.attributes["callee"]).lstrip("@")
    if callee.startswith("llvm.") and callee not in intrinsics.known_calls():
        raise Llvm7Error(f"the LLVM 7 printer does not know the intrinsic {callee!r}")
    fn = p.module.functions[callee]
    shape = f"{fn.text} " if fn.vararg else f"{fn.members[0].text} "
    _emit_call(p, op, shape, f"@{callee}", list(op.operands))


def _indirect_call(p: _Function, op: ir.Operation) -> None:
    """A call through a function pointer (the device runtime's destructors): LLVM 7's pointers
    are typed, so the ``i8*`` is cast to a pointer to the function type first."""
    target, *args = op.operands
    result = p.type_of(op.results[0]).text if len(op.results) else "void"
    function_type = f"{result} ({', '.join(p.type_of(a).text for a in args)})"
    pointer = p.type_of(target)
    if pointer.kind != "ptr":
        raise Llvm7Error(f"an indirect call needs a function pointer, got {pointer.text}")
    callee = p.fresh("f")
    p.emit(f"{callee} = bitcast {pointer.text} {p.value(target)} to {function_type}*")
    _emit_call(p, op, f"{result} ", callee, args)


def _emit_call(
    p: _Function, op: ir.Operation, shape: str, callee: str, args: Sequence[ir.Value], extra: str = ""
) -> None:
    text = f"call {fastmath(op)}{shape}{callee}({', '.join([p.typed(a) for a in args] + ([extra] if extra else []))})"
    _produce(p, op, text)


@_rule("llvm.call_intrinsic")
def _call_intrinsic(p: _Function, op: ir.Operation) -> None:
    name = str(op.attributes["intrin"]).strip('"')
    if name in intrinsics.CONVERGENT_ASM_CALLS:
        template, constraints = intrinsics.CONVERGENT_ASM_CALLS[name]
        _asm_call(p, op, template, constraints, True, convergent=True)
        return
    if name not in intrinsics.known_calls():
        raise Llvm7Error(f"the LLVM 7 printer does not know the intrinsic {name!r}")
    result = p.type_of(op.results[0]) if len(op.results) else llvm7_types.VOID
    args = list(op.operands)
    p.module.use_intrinsic(name, f"declare {result.text} @{name}({', '.join(p.type_of(a).text for a in args)})")
    _emit_call(p, op, f"{result.text} ", f"@{name}", args)


@_rule("llvm.br")
def _br(p: _Function, op: ir.Operation) -> None:
    p.emit(f"br label {p.target(op, 0, op.successors[0])}{_loop_metadata(p, op)}")


@_rule("llvm.cond_br")
def _cond_br(p: _Function, op: ir.Operation) -> None:
    cond = op.operands[0]
    true, false = op.successors
    loop = _loop_metadata(p, op)
    p.emit(f"br {p.typed(cond)}, label {p.target(op, 0, true)}, label {p.target(op, 1, false)}{loop}")


def _loop_metadata(p: _Function, op: ir.Operation) -> str:
    """The ``!llvm.loop`` of a back edge's unroll annotation (codegen/passes/counted_loops.py
    and constant_trip_loops.py set them: a count, or a full unroll); empty without one."""
    if "loop_annotation" not in op.attributes:
        return ""
    annotation = str(op.attributes["loop_annotation"])
    if "full = true" in annotation:
        return f", !llvm.loop {p.module.loop_unroll_node(None)}"
    count = re.search(r"count = (\d+)", annotation)
    if count is None:
        raise Llvm7Error(f"the LLVM 7 printer does not know the loop annotation {annotation}")
    return f", !llvm.loop {p.module.loop_unroll_node(int(count.group(1)))}"


@_rule("llvm.switch")
def _switch(p: _Function, op: ir.Operation) -> None:
    value = op.operands[0]
    ty = p.type_of(value)
    blocks = list(op.successors)
    cases = " ".join(
        f"{ty.text} {int_literal(int(v), ty)}, label {p.target(op, i + 1, b)}"
        for i, (v, b) in enumerate(zip(op.attributes["case_values"], blocks[1:]))
    )
    p.emit(f"switch {p.typed(value)}, label {p.target(op, 0, blocks[0])} [ {cases} ]")


@_rule("llvm.return")
def _return(p: _Function, op: ir.Operation) -> None:
    p.emit(f"ret {p.typed(op.operands[0])}" if len(op.operands) else "ret void")


@_rule("llvm.unreachable")
def _unreachable(p: _Function, op: ir.Operation) -> None:
    p.emit("unreachable")


# -- inline PTX --------------------------------------------------------------------------


def _quoted(text: str) -> str:
    return '"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else f"\\{ord(c):02X}" for c in text) + '"'


def _asm_call(
    p: _Function, op: ir.Operation, template: str, constraints: str, side_effects: bool, convergent: bool = False
) -> None:
    result = p.type_of(op.results[0]) if len(op.results) else llvm7_types.VOID
    effects = "sideeffect " if side_effects else ""
    args = list(op.operands)
    asm = f"asm {effects}{_quoted(template)}, {_quoted(constraints)}"
    # convergent: no optimisation moves the call across a branch (hoists both arms' copies)
    attributes = " convergent" if convergent else ""
    text = f"call {result.text} {asm}({', '.join(p.typed(a) for a in args)}){attributes}"
    _produce(p, op, text)
