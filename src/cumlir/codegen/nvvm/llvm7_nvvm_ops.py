"""The LLVM 7 printer's rules for what the NVVM dialect and inline PTX become (llvm7_ops.py
holds the rules of the LLVM dialect's own ops, and the table both fill): inline assembly, the
special registers, the NVVM ops named in op_tables.py (through intrinsics_nvvm.py), the warp
intrinsics, and atomics as the NVVM atomic intrinsics spell them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import intrinsics_nvvm as intrinsics
from . import llvm7_types
from .llvm7_errors import Llvm7Error
from .llvm7_ops import PRINTERS, _asm_call, _attr_int, _produce, _rule, fastmath

if TYPE_CHECKING:
    from mlir import ir

    from .llvm7_ops import _Function


@_rule("llvm.inline_asm")
def _inline_asm(p: _Function, op: ir.Operation) -> None:
    template = op.attributes["asm_string"].value
    constraints = op.attributes["constraints"].value
    _asm_call(p, op, template, constraints, "has_side_effects" in op.attributes)


# -- NVVM and LLVM intrinsics ------------------------------------------------------------
def _intrinsic_call(
    p: _Function, op: ir.Operation, name: str, args: Sequence[ir.Value], extra: Sequence[str] = ()
) -> None:
    """``call @name(args, extra)``, declaring @name from the operand and result types."""
    result = p.type_of(op.results[0]) if len(op.results) else llvm7_types.VOID
    params = [p.type_of(a).text for a in args] + [e.split(" ")[0] for e in extra]
    p.module.use_intrinsic(name, f"declare {result.text} @{name}({', '.join(params)})")
    text = f"call {fastmath(op)}{result.text} @{name}({', '.join([p.typed(a) for a in args] + list(extra))})"
    _produce(p, op, text)


# [low, high) of the launch coordinates (CUDA's limits), as !range metadata: libNVVM then
# knows a block size or grid size is never 0 nor negative, and can count grid-stride loops
_LAUNCH_RANGES = {
    **{f"nvvm.read.ptx.sreg.tid.{a}": (0, 1024 if a != "z" else 64) for a in "xyz"},
    **{f"nvvm.read.ptx.sreg.ntid.{a}": (1, 1025 if a != "z" else 65) for a in "xyz"},
    **{f"nvvm.read.ptx.sreg.ctaid.{a}": (0, 2**31 - 1 if a == "x" else 65535) for a in "xyz"},
    **{f"nvvm.read.ptx.sreg.nctaid.{a}": (1, 2**31 if a == "x" else 65536) for a in "xyz"},
}


def _special_register(p: _Function, op: ir.Operation) -> None:
    bounds = _LAUNCH_RANGES.get(op.name)
    if bounds is None:
        _intrinsic_call(p, op, intrinsics.SPECIAL_REGISTERS[op.name], [])
        return
    name = intrinsics.SPECIAL_REGISTERS[op.name]
    p.module.use_intrinsic(name, f"declare i32 @{name}()")
    p.define(op.results[0], f"call i32 @{name}(), !range {p.module.range_node(*bounds)}")


def _asm_register(p: _Function, op: ir.Operation) -> None:
    _read_register(p, op, intrinsics.ASM_REGISTERS[op.name], False)


def _volatile_register(p: _Function, op: ir.Operation) -> None:
    _read_register(p, op, intrinsics.VOLATILE_REGISTERS[op.name], True)


def _read_register(p: _Function, op: ir.Operation, register: str, volatile: bool) -> None:
    width = p.type_of(op.results[0]).bits
    _asm_call(p, op, f"mov.u{width} $0, {register};", "=r" if width == 32 else "=l", volatile)


def _nullary(p: _Function, op: ir.Operation) -> None:
    _intrinsic_call(p, op, intrinsics.NULLARY[op.name], [])


def _asm_statement(p: _Function, op: ir.Operation) -> None:
    _asm_call(p, op, intrinsics.ASM_STATEMENTS[op.name], "", True)


def _asm_operation(p: _Function, op: ir.Operation) -> None:
    template, constraints = intrinsics.ASM_OPERATIONS[op.name]
    # an instruction without a result is there for its effect (nanosleep): keep it
    _asm_call(p, op, template, constraints, not len(op.results))


def _operand_call(p: _Function, op: ir.Operation) -> None:
    _intrinsic_call(p, op, intrinsics.CALLS[op.name], list(op.operands))


def _by_attribute(p: _Function, op: ir.Operation) -> None:
    attribute, operands, names = intrinsics.BY_ATTRIBUTE[op.name]
    value = str(op.attributes[attribute]) if attribute in op.attributes else None
    if value not in names or len(op.operands) != operands:
        raise Llvm7Error(
            f"the LLVM 7 printer does not support {op.name} with {attribute} {value} and {len(op.operands)} operands"
        )
    _intrinsic_call(p, op, names[value], list(op.operands))


def _overloaded(p: _Function, op: ir.Operation) -> None:
    ty = p.type_of(op.results[0])
    _intrinsic_call(p, op, f"{intrinsics.OVERLOADED[op.name]}.{intrinsics.suffix(ty)}", list(op.operands))


def _flagged(p: _Function, op: ir.Operation) -> None:
    base, flag = intrinsics.FLAGGED[op.name]
    ty = p.type_of(op.results[0])
    value = "true" if flag in op.attributes and op.attributes[flag].value else "false"
    _intrinsic_call(p, op, f"{base}.{intrinsics.suffix(ty)}", list(op.operands), [f"i1 {value}"])


def _min_max(p: _Function, op: ir.Operation) -> None:
    a, b = op.operands
    test = p.fresh("c")
    p.emit(f"{test} = icmp {intrinsics.MIN_MAX[op.name]} {p.typed(a)}, {p.value(b)}")
    p.define(op.results[0], f"select i1 {test}, {p.typed(a)}, {p.typed(b)}")


def _abs(p: _Function, op: ir.Operation) -> None:
    a = op.operands[0]
    ty = p.type_of(a)
    negative, negated = p.fresh("c"), p.fresh("n")
    p.emit(f"{negative} = icmp slt {p.typed(a)}, 0")
    p.emit(f"{negated} = sub {ty.text} 0, {p.value(a)}")
    p.define(op.results[0], f"select i1 {negative}, {ty.text} {negated}, {p.typed(a)}")


for _table, _printer in (
    (intrinsics.SPECIAL_REGISTERS, _special_register),
    (intrinsics.ASM_REGISTERS, _asm_register),
    (intrinsics.VOLATILE_REGISTERS, _volatile_register),
    (intrinsics.NULLARY, _nullary),
    (intrinsics.CALLS, _operand_call),
    (intrinsics.BY_ATTRIBUTE, _by_attribute),
    (intrinsics.ASM_STATEMENTS, _asm_statement),
    (intrinsics.ASM_OPERATIONS, _asm_operation),
    (intrinsics.OVERLOADED, _overloaded),
    (intrinsics.FLAGGED, _flagged),
    (intrinsics.MIN_MAX, _min_max),
):
    for _name in _table:
        PRINTERS[_name] = _printer
PRINTERS["llvm.intr.abs"] = _abs


# -- warp shuffles, votes and matches: NVVM ops whose intrinsic is named by their kind ----
def _kind(op: ir.Operation) -> str:
    return str(op.attributes["kind"]).rstrip(">").rsplit(" ", 1)[-1]  # #nvvm<shfl_kind bfly>


_WARP_INTRINSICS = {  # op -> the intrinsic name from the op's kind and its value's type
    "nvvm.shfl.sync": lambda op, ty: f"llvm.nvvm.shfl.sync.{_kind(op)}.{intrinsics.suffix(ty)}",
    "nvvm.vote.sync": lambda op, ty: f"llvm.nvvm.vote.{_kind(op)}.sync",
    "nvvm.match.sync": lambda op, ty: f"llvm.nvvm.match.{_kind(op)}.sync.{ty.text}{'p' if _kind(op) == 'all' else ''}",
}


@_rule(*_WARP_INTRINSICS)
def _warp_intrinsic(p: _Function, op: ir.Operation) -> None:
    name = _WARP_INTRINSICS[op.name](op, p.type_of(op.operands[1]))
    if name not in intrinsics.known_calls() or "return_value_and_is_valid" in op.attributes:
        raise Llvm7Error(f"the LLVM 7 printer does not know the intrinsic {name!r} (from {op.name})")
    _intrinsic_call(p, op, name, list(op.operands))


# -- atomics -----------------------------------------------------------------------------
# the MLIR enums, by value (LLVM::AtomicOrdering leaves out 3)
_ORDERINGS = {2: "monotonic", 4: "acquire", 5: "release", 6: "acq_rel", 7: "seq_cst"}
_RMW_OPS = ("xchg", "add", "sub", "and", "nand", "or", "xor", "max", "min", "umax", "umin")  # values 0-10, in LLVM 7
# operations LLVM 7's atomicrmw lacks but PTX has, as the NVVM 7 intrinsics libNVVM knows:
# MLIR bin_op value -> (intrinsic name for a type suffix and an address space, the types it takes)
_RMW_INTRINSICS = {
    11: ("llvm.nvvm.atomic.load.add.{t}.p{space}{t}", ("f32", "f64")),  # fadd
    15: ("llvm.nvvm.atomic.load.inc.32.p{space}{t}", ("i32",)),  # uinc_wrap
    16: ("llvm.nvvm.atomic.load.dec.32.p{space}{t}", ("i32",)),  # udec_wrap
}
_INTRINSIC_SPACES = (0, 1, 3)  # the NVVM atomic intrinsics come for generic, global and shared pointers


def _ordering(op: ir.Operation, name: str) -> str:
    ordering = _ORDERINGS.get(_attr_int(op, name))
    if ordering is None:
        raise Llvm7Error(f"{op.name} with ordering {_attr_int(op, name)} is not supported by the LLVM 7 printer")
    return ordering


def _atomic_prefix(op: ir.Operation) -> str:
    # libNVVM's atomics are GPU-scoped, which the "device" scope names; other scopes are not spelled
    scope = op.attributes["syncscope"].value if "syncscope" in op.attributes else "device"
    if scope != "device":
        raise Llvm7Error(f"{op.name} with syncscope {scope!r} is not supported by the LLVM 7 printer")
    return "volatile " if "volatile_" in op.attributes else ""


@_rule("llvm.atomicrmw")
def _atomicrmw(p: _Function, op: ir.Operation) -> None:
    ptr, value = op.operands
    volatile, ordering = _atomic_prefix(op), _ordering(op, "ordering")
    ty, space, bin_op = p.type_of(value), p.type_of(ptr).bits, _attr_int(op, "bin_op")
    typed = p.cast_pointer(ptr, ty)
    if bin_op < len(_RMW_OPS):
        pointer = f"{llvm7_types.typed_pointer(ty, space)} {typed}"
        p.define(op.results[0], f"atomicrmw {volatile}{_RMW_OPS[bin_op]} {pointer}, {p.typed(value)} {ordering}")
        return
    template, suffixes = _RMW_INTRINSICS.get(bin_op, (None, ()))
    suffix = intrinsics.suffix(ty)
    if suffix not in suffixes or space not in _INTRINSIC_SPACES or ordering != "monotonic" or volatile:
        raise Llvm7Error(f"llvm.atomicrmw {bin_op} on {ty.text} ({ordering}) is not supported by the LLVM 7 printer")
    name = template.format(t=suffix, space=space)  # type: ignore[union-attr]  # None: no suffixes, refused above
    pointer_type = llvm7_types.typed_pointer(ty, space)
    p.module.use_intrinsic(name, f"declare {ty.text} @{name}({pointer_type}, {ty.text})")
    p.define(op.results[0], f"call {ty.text} @{name}({pointer_type} {typed}, {p.typed(value)})")


@_rule("llvm.cmpxchg")
def _cmpxchg(p: _Function, op: ir.Operation) -> None:
    ptr, expected, new = op.operands
    volatile = _atomic_prefix(op)
    orderings = f"{_ordering(op, 'success_ordering')} {_ordering(op, 'failure_ordering')}"
    weak = "weak " if "weak" in op.attributes else ""
    ty, space = p.type_of(expected), p.type_of(ptr).bits
    typed = p.cast_pointer(ptr, ty)
    pointer = f"{llvm7_types.typed_pointer(ty, space)} {typed}"
    p.define(op.results[0], f"cmpxchg {weak}{volatile}{pointer}, {p.typed(expected)}, {p.typed(new)} {orderings}")
