"""The intrinsics the LLVM 7 printer knows, and what each MLIR op becomes.

libNVVM accepts any intrinsic name without complaint and ptxas fails much later on the
result, so everything here is an explicit list: an op or intrinsic not named below is
rejected by the printer with an error naming it.

What an NVVM op an operation emits prints as is declared by its operation module
(``nvvm_ops(...)`` in cumlir/operations), and ``_declared`` gathers those tables. This
module holds only what no operation module owns: the LLVM intrinsics MLIR's own
conversions emit (``llvm.intr.*``) and the NVVM ops offered to extensions' MLIR
(docs/extending.md).
"""

from ... import operations


def _declared(table, entries=None):
    declared = operations.nvvm_table(table)
    for op, target in declared.items():
        if (entries or {}).get(op, target) != target:
            raise ValueError(f"the NVVM op {op} is declared by an operation module as {target}, here as {entries[op]}")
    return {**(entries or {}), **declared}


# NVVM dialect ops read a special register: op name -> intrinsic name
SPECIAL_REGISTERS = _declared("special_registers")

# registers NVVM 7 has no intrinsic for: read through inline PTX (op name -> PTX register)
ASM_REGISTERS = _declared("asm_registers")

# registers whose value changes between reads (clocks), read through inline PTX marked
# volatile: libNVVM would merge two reads of a register intrinsic (op name -> PTX register)
VOLATILE_REGISTERS = _declared("volatile_registers")

# NVVM dialect ops with no operands and no result -> intrinsic
NULLARY = _declared("nullary")

# NVVM dialect ops that are one intrinsic call on their operands -> intrinsic
CALLS = _declared("calls")

# NVVM dialect ops whose intrinsic depends on an enum attribute: op name -> (attribute,
# number of operands the intrinsic takes, {attribute value as printed: intrinsic})
BY_ATTRIBUTE = _declared("by_attribute")

# NVVM dialect ops spelled as one PTX instruction
ASM_STATEMENTS = _declared("asm_statements")

# NVVM dialect ops on values that map to one PTX instruction whose intrinsic NVVM 7 lacks:
# op name -> (inline PTX, constraints); the reciprocals are for extensions (docs/extending.md)
ASM_OPERATIONS = _declared(
    "asm_operations",
    {
        "nvvm.rcp.approx.ftz.f": ("rcp.approx.ftz.f32 $0, $1;", "=f,f"),
        "nvvm.rcp.approx.ftz.d": ("rcp.approx.ftz.f64 $0, $1;", "=d,d"),
    },
)

# intrinsics NVVM 7 lacks whose value depends on which lanes run them (activemask):
# intrinsic -> (inline PTX, constraints), called with side effects and marked convergent
CONVERGENT_ASM_CALLS = _declared("convergent_asm_calls")

# llvm.intr.* ops overloaded on their result type: op name -> intrinsic base name
OVERLOADED = {
    f"llvm.intr.{name}": f"llvm.{name}"
    for name in (
        "fabs",
        "sqrt",
        "fma",
        "fmuladd",
        "copysign",
        "minnum",
        "maxnum",
        "floor",
        "ceil",
        "trunc",
        "round",
        "rint",
        "nearbyint",
        "ctpop",
        "bswap",
        "bitreverse",
        "fshl",
        "fshr",
    )
}

# overloaded intrinsics that take a trailing i1 flag held by the MLIR op as an attribute
FLAGGED = {
    "llvm.intr.ctlz": ("llvm.ctlz", "is_zero_poison"),
    "llvm.intr.cttz": ("llvm.cttz", "is_zero_poison"),
}

# integer min/max and abs came after LLVM 7: compare and select instead (op -> icmp predicate)
MIN_MAX = {
    "llvm.intr.smax": "sgt",
    "llvm.intr.smin": "slt",
    "llvm.intr.umax": "ugt",
    "llvm.intr.umin": "ult",
}

# full names accepted in llvm.call_intrinsic and in calls to declared llvm.* functions
KNOWN_CALLS = frozenset(
    set(SPECIAL_REGISTERS.values())
    | set(NULLARY.values())
    | set(CALLS.values())
    | {name for _, _, names in BY_ATTRIBUTE.values() for name in names.values()}
    | set(operations.nvvm_table("known_calls"))
    | {"llvm.trap"}  # the device runtime's end of a kernel whose heap is exhausted (nrt.mlir)
)

# type suffixes of overloaded intrinsic names, by LLVM 7 type spelling
SUFFIX = {"half": "f16", "float": "f32", "double": "f64"}


def suffix(ty):
    if ty.kind == "vector":
        return f"v{ty.bits}{suffix(ty.members[0])}"
    return SUFFIX.get(ty.text, ty.text)
