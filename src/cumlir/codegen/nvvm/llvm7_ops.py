"""One printer per LLVM-dialect op for the LLVM 7 printer (llvm7.py), kept in PRINTERS.

Each printer gets the FunctionPrinter ``p`` and the op, and emits LLVM 7 instructions.
Pointers are ``i8 addrspace(N)*`` everywhere, so memory ops bitcast to the element type
first (``p.cast_pointer``) and GEP results are cast back.
"""

import re

from ...marks import COUNTED_LOOP_COUNTER
from . import intrinsics_nvvm as intrinsics
from . import llvm7_types
from .llvm7_constants import float_literal, int_literal
from .llvm7_errors import Llvm7Error

PRINTERS = {}

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


def _rule(*names):
    def register(fn):
        for name in names:
            PRINTERS[name] = fn
        return fn

    return register


def fastmath(op):
    if "fastmathFlags" not in op.attributes:
        return ""
    text = str(op.attributes["fastmathFlags"]).removeprefix("#llvm.fastmath<").removesuffix(">")
    flags = [f.strip() for f in text.split(",") if f.strip() not in ("", "none")]
    if "fast" in flags:
        return "fast "
    return "".join(f"{f} " for f in flags if f in _FASTMATH)


def _attr_int(op, name, default=None):
    return op.attributes[name].value if name in op.attributes else default


# -- arithmetic --------------------------------------------------------------------------
_INT_BINARY = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "and", "or", "xor", "shl", "lshr", "ashr")
_FLOAT_BINARY = ("fadd", "fsub", "fmul", "fdiv", "frem")


@_rule(*(f"llvm.{name}" for name in _INT_BINARY))
def _int_binary(p, op):
    # nsw/nuw/exact only license optimisations, so leaving them out is always correct; a
    # counted loop's counter (codegen/passes/counted_loops.py) gets nsw, which lets LLVM count its trips
    a, b = op.operands
    flags = "nsw " if COUNTED_LOOP_COUNTER in op.attributes else ""
    p.define(op.results[0], f"{op.name[5:]} {flags}{p.typed(a)}, {p.value(b)}")


@_rule(*(f"llvm.{name}" for name in _FLOAT_BINARY))
def _float_binary(p, op):
    a, b = op.operands
    p.define(op.results[0], f"{op.name[5:]} {fastmath(op)}{p.typed(a)}, {p.value(b)}")


@_rule("llvm.fneg")
def _fneg(p, op):
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
def _cast(p, op):
    (a,) = op.operands
    result = op.results[0]
    p.define(result, f"{op.name[5:]} {p.typed(a)} to {p.type_of(result).text}")


@_rule("llvm.freeze")
def _freeze(p, op):
    # LLVM 7 has no freeze; its undef is already what freeze would give
    p.names[op.results[0]] = p.value(op.operands[0])


_PREDICATES = {"llvm.icmp": ICMP, "llvm.fcmp": FCMP}


@_rule(*_PREDICATES)
def _compare(p, op):
    a, b = op.operands
    predicate = _PREDICATES[op.name][_attr_int(op, "predicate")]
    p.define(op.results[0], f"{op.name[5:]} {fastmath(op)}{predicate} {p.typed(a)}, {p.value(b)}")


@_rule("llvm.select", "llvm.extractelement", "llvm.insertelement")
def _all_operands_typed(p, op):
    p.define(op.results[0], f"{op.name[5:]} {', '.join(p.typed(x) for x in op.operands)}")


# -- aggregates --------------------------------------------------------------------------
def _position(op):
    return ", ".join(str(i) for i in op.attributes["position"])


@_rule("llvm.extractvalue")
def _extractvalue(p, op):
    (agg,) = op.operands
    p.define(op.results[0], f"extractvalue {p.typed(agg)}, {_position(op)}")


@_rule("llvm.insertvalue")
def _insertvalue(p, op):
    agg, value = op.operands
    p.define(op.results[0], f"insertvalue {p.typed(agg)}, {p.typed(value)}, {_position(op)}")


# -- memory ------------------------------------------------------------------------------
def _align(op):
    align = _attr_int(op, "alignment")
    return f", align {align}" if align else ""


def _plain_memory_op(op):
    if _attr_int(op, "ordering", 0) != 0:
        raise Llvm7Error(f"atomic {op.name} is not supported by the LLVM 7 printer")
    return "volatile " if "volatile_" in op.attributes else ""


@_rule("llvm.load")
def _load(p, op):
    volatile = _plain_memory_op(op)
    (ptr,) = op.operands
    result = op.results[0]
    ty = p.type_of(result)
    typed = p.cast_pointer(ptr, ty)
    space = p.type_of(ptr).bits
    p.define(result, f"load {volatile}{ty.text}, {llvm7_types.typed_pointer(ty, space)} {typed}{_align(op)}")


@_rule("llvm.store")
def _store(p, op):
    volatile = _plain_memory_op(op)
    value, ptr = op.operands
    ty = p.type_of(value)
    typed = p.cast_pointer(ptr, ty)
    space = p.type_of(ptr).bits
    p.emit(f"store {volatile}{ty.text} {p.value(value)}, {llvm7_types.typed_pointer(ty, space)} {typed}{_align(op)}")


@_rule("llvm.getelementptr")
def _getelementptr(p, op):
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
def _alloca(p, op):
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
def _dbg_declare(p, op):
    """debug=True's variable in its stack slot, which LLVM 7 wants named as the alloca itself."""
    (slot,) = op.operands
    tables = p.module.line_tables
    if tables is None or slot not in p.allocas:
        return  # no variables without full debug information, nor for a slot that is no alloca
    variable = tables.variable(str(op.attributes["varInfo"]), p.scope)
    p.module.use_intrinsic("llvm.dbg.declare", "declare void @llvm.dbg.declare(metadata, metadata, metadata)")
    p.emit(f"call void @llvm.dbg.declare(metadata {p.allocas[slot]}, metadata {variable}, metadata !DIExpression())")


# -- calls and control flow --------------------------------------------------------------
def _produce(p, op, text):
    """Emit *text* as the definition of the op's result, or on its own for a void op."""
    if len(op.results):
        p.define(op.results[0], text)
    else:
        p.emit(text)


@_rule("llvm.call")
def _call(p, op):
    if "callee" not in op.attributes:
        _indirect_call(p, op)
        return
    callee = str(op.attributes["callee"]).lstrip("@")
    if callee.startswith("llvm.") and callee not in intrinsics.known_calls():
        raise Llvm7Error(f"the LLVM 7 printer does not know the intrinsic {callee!r}")
    fn = p.module.functions[callee]
    shape = f"{fn.text} " if fn.vararg else f"{fn.members[0].text} "
    _emit_call(p, op, shape, f"@{callee}", list(op.operands))


def _indirect_call(p, op):
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


def _emit_call(p, op, shape, callee, args, extra=""):
    text = f"call {fastmath(op)}{shape}{callee}({', '.join([p.typed(a) for a in args] + ([extra] if extra else []))})"
    _produce(p, op, text)


@_rule("llvm.call_intrinsic")
def _call_intrinsic(p, op):
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
def _br(p, op):
    p.emit(f"br label {p.target(op, 0, op.successors[0])}{_loop_metadata(p, op)}")


@_rule("llvm.cond_br")
def _cond_br(p, op):
    cond = op.operands[0]
    true, false = op.successors
    loop = _loop_metadata(p, op)
    p.emit(f"br {p.typed(cond)}, label {p.target(op, 0, true)}, label {p.target(op, 1, false)}{loop}")


def _loop_metadata(p, op):
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
def _switch(p, op):
    value = op.operands[0]
    ty = p.type_of(value)
    blocks = list(op.successors)
    cases = " ".join(
        f"{ty.text} {int_literal(int(v), ty)}, label {p.target(op, i + 1, b)}"
        for i, (v, b) in enumerate(zip(op.attributes["case_values"], blocks[1:]))
    )
    p.emit(f"switch {p.typed(value)}, label {p.target(op, 0, blocks[0])} [ {cases} ]")


@_rule("llvm.return")
def _return(p, op):
    p.emit(f"ret {p.typed(op.operands[0])}" if len(op.operands) else "ret void")


@_rule("llvm.unreachable")
def _unreachable(p, op):
    p.emit("unreachable")


# -- inline PTX --------------------------------------------------------------------------
def _quoted(text):
    return '"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else f"\\{ord(c):02X}" for c in text) + '"'


def _asm_call(p, op, template, constraints, side_effects, convergent=False):
    result = p.type_of(op.results[0]) if len(op.results) else llvm7_types.VOID
    effects = "sideeffect " if side_effects else ""
    args = list(op.operands)
    asm = f"asm {effects}{_quoted(template)}, {_quoted(constraints)}"
    # convergent: no optimisation moves the call across a branch (hoists both arms' copies)
    attributes = " convergent" if convergent else ""
    text = f"call {result.text} {asm}({', '.join(p.typed(a) for a in args)}){attributes}"
    _produce(p, op, text)


@_rule("llvm.inline_asm")
def _inline_asm(p, op):
    template = op.attributes["asm_string"].value
    constraints = op.attributes["constraints"].value
    _asm_call(p, op, template, constraints, "has_side_effects" in op.attributes)


# -- NVVM and LLVM intrinsics ------------------------------------------------------------
def _intrinsic_call(p, op, name, args, extra=()):
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


def _special_register(p, op):
    bounds = _LAUNCH_RANGES.get(op.name)
    if bounds is None:
        _intrinsic_call(p, op, intrinsics.SPECIAL_REGISTERS[op.name], [])
        return
    name = intrinsics.SPECIAL_REGISTERS[op.name]
    p.module.use_intrinsic(name, f"declare i32 @{name}()")
    p.define(op.results[0], f"call i32 @{name}(), !range {p.module.range_node(*bounds)}")


def _asm_register(p, op):
    _read_register(p, op, intrinsics.ASM_REGISTERS[op.name], False)


def _volatile_register(p, op):
    _read_register(p, op, intrinsics.VOLATILE_REGISTERS[op.name], True)


def _read_register(p, op, register, volatile):
    width = p.type_of(op.results[0]).bits
    _asm_call(p, op, f"mov.u{width} $0, {register};", "=r" if width == 32 else "=l", volatile)


def _nullary(p, op):
    _intrinsic_call(p, op, intrinsics.NULLARY[op.name], [])


def _asm_statement(p, op):
    _asm_call(p, op, intrinsics.ASM_STATEMENTS[op.name], "", True)


def _asm_operation(p, op):
    template, constraints = intrinsics.ASM_OPERATIONS[op.name]
    # an instruction without a result is there for its effect (nanosleep): keep it
    _asm_call(p, op, template, constraints, not len(op.results))


def _operand_call(p, op):
    _intrinsic_call(p, op, intrinsics.CALLS[op.name], list(op.operands))


def _by_attribute(p, op):
    attribute, operands, names = intrinsics.BY_ATTRIBUTE[op.name]
    value = str(op.attributes[attribute]) if attribute in op.attributes else None
    if value not in names or len(op.operands) != operands:
        raise Llvm7Error(
            f"the LLVM 7 printer does not support {op.name} with {attribute} {value} and {len(op.operands)} operands"
        )
    _intrinsic_call(p, op, names[value], list(op.operands))


def _overloaded(p, op):
    ty = p.type_of(op.results[0])
    _intrinsic_call(p, op, f"{intrinsics.OVERLOADED[op.name]}.{intrinsics.suffix(ty)}", list(op.operands))


def _flagged(p, op):
    base, flag = intrinsics.FLAGGED[op.name]
    ty = p.type_of(op.results[0])
    value = "true" if flag in op.attributes and op.attributes[flag].value else "false"
    _intrinsic_call(p, op, f"{base}.{intrinsics.suffix(ty)}", list(op.operands), [f"i1 {value}"])


def _min_max(p, op):
    a, b = op.operands
    test = p.fresh("c")
    p.emit(f"{test} = icmp {intrinsics.MIN_MAX[op.name]} {p.typed(a)}, {p.value(b)}")
    p.define(op.results[0], f"select i1 {test}, {p.typed(a)}, {p.typed(b)}")


def _abs(p, op):
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
def _kind(op):
    return str(op.attributes["kind"]).rstrip(">").rsplit(" ", 1)[-1]  # #nvvm<shfl_kind bfly>


_WARP_INTRINSICS = {  # op -> the intrinsic name from the op's kind and its value's type
    "nvvm.shfl.sync": lambda op, ty: f"llvm.nvvm.shfl.sync.{_kind(op)}.{intrinsics.suffix(ty)}",
    "nvvm.vote.sync": lambda op, ty: f"llvm.nvvm.vote.{_kind(op)}.sync",
    "nvvm.match.sync": lambda op, ty: f"llvm.nvvm.match.{_kind(op)}.sync.{ty.text}{'p' if _kind(op) == 'all' else ''}",
}


@_rule(*_WARP_INTRINSICS)
def _warp_intrinsic(p, op):
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


def _ordering(op, name):
    ordering = _ORDERINGS.get(_attr_int(op, name))
    if ordering is None:
        raise Llvm7Error(f"{op.name} with ordering {_attr_int(op, name)} is not supported by the LLVM 7 printer")
    return ordering


def _atomic_prefix(op):
    # libNVVM's atomics are GPU-scoped, which the "device" scope names; other scopes are not spelled
    scope = op.attributes["syncscope"].value if "syncscope" in op.attributes else "device"
    if scope != "device":
        raise Llvm7Error(f"{op.name} with syncscope {scope!r} is not supported by the LLVM 7 printer")
    return "volatile " if "volatile_" in op.attributes else ""


@_rule("llvm.atomicrmw")
def _atomicrmw(p, op):
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
    name = template.format(t=suffix, space=space)
    pointer_type = llvm7_types.typed_pointer(ty, space)
    p.module.use_intrinsic(name, f"declare {ty.text} @{name}({pointer_type}, {ty.text})")
    p.define(op.results[0], f"call {ty.text} @{name}({pointer_type} {typed}, {p.typed(value)})")


@_rule("llvm.cmpxchg")
def _cmpxchg(p, op):
    ptr, expected, new = op.operands
    volatile = _atomic_prefix(op)
    orderings = f"{_ordering(op, 'success_ordering')} {_ordering(op, 'failure_ordering')}"
    weak = "weak " if "weak" in op.attributes else ""
    ty, space = p.type_of(expected), p.type_of(ptr).bits
    typed = p.cast_pointer(ptr, ty)
    pointer = f"{llvm7_types.typed_pointer(ty, space)} {typed}"
    p.define(op.results[0], f"cmpxchg {weak}{volatile}{pointer}, {p.typed(expected)}, {p.typed(new)} {orderings}")
