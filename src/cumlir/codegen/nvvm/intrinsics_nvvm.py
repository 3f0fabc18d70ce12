"""The intrinsics the LLVM 7 printer knows, and what each MLIR intrinsic op becomes.

libNVVM accepts any intrinsic name without complaint and ptxas fails much later on the
result, so everything here is an explicit list: an op or intrinsic not named below is
rejected by the printer with an error naming it.

Each table below holds the entries no intrinsic area declares yet; an area declares the
NVVM ops it emits in its own file (``nvvm_ops(...)`` in cumlir/operations), and
``_with_areas`` adds them here.
"""

from ... import operations as _areas


def _with_areas(table, entries):
    declared = _areas.nvvm_table(table)
    for op, target in declared.items():
        if entries.get(op, target) != target:
            raise ValueError(f"the NVVM op {op} is declared by an intrinsic area as {target}, here as {entries[op]}")
    return {**entries, **declared}


# NVVM dialect ops read a special register: op name -> intrinsic name
SPECIAL_REGISTERS = _with_areas(
    "special_registers",
    {
        "nvvm.read.ptx.sreg.laneid": "llvm.nvvm.read.ptx.sreg.laneid",
        "nvvm.read.ptx.sreg.warpsize": "llvm.nvvm.read.ptx.sreg.warpsize",
        "nvvm.read.ptx.sreg.lanemask.eq": "llvm.nvvm.read.ptx.sreg.lanemask.eq",
        "nvvm.read.ptx.sreg.lanemask.le": "llvm.nvvm.read.ptx.sreg.lanemask.le",
        "nvvm.read.ptx.sreg.lanemask.lt": "llvm.nvvm.read.ptx.sreg.lanemask.lt",
        "nvvm.read.ptx.sreg.lanemask.ge": "llvm.nvvm.read.ptx.sreg.lanemask.ge",
        "nvvm.read.ptx.sreg.lanemask.gt": "llvm.nvvm.read.ptx.sreg.lanemask.gt",
    },
)

# registers NVVM 7 has no intrinsic for: read through inline PTX (op name -> PTX register)
ASM_REGISTERS = _with_areas(
    "asm_registers",
    {"nvvm.read.ptx.sreg.total.smem.size": "%total_smem_size"},
)

# registers whose value changes between reads (clocks), read through inline PTX marked
# volatile: libNVVM would merge two reads of a register intrinsic (op name -> PTX register)
VOLATILE_REGISTERS = _with_areas("volatile_registers", {})

# NVVM dialect ops with no operands and no result -> intrinsic
NULLARY = _with_areas(
    "nullary",
    {
        "nvvm.membar.cta": "llvm.nvvm.membar.cta",
        "nvvm.membar.gl": "llvm.nvvm.membar.gl",
        "nvvm.membar.sys": "llvm.nvvm.membar.sys",
    },
)

# NVVM dialect ops that are one intrinsic call on their operands -> intrinsic
CALLS = _with_areas("calls", {})

# NVVM dialect ops whose intrinsic depends on an enum attribute: op name -> (attribute,
# number of operands the intrinsic takes, {attribute value as printed: intrinsic})
BY_ATTRIBUTE = {
    # only the block-wide form reducing a predicate (no barrier id, no thread count)
    "nvvm.barrier": (
        "reductionOp",
        1,
        {
            "#nvvm.reduction<popc>": "llvm.nvvm.barrier0.popc",
            "#nvvm.reduction<and>": "llvm.nvvm.barrier0.and",
            "#nvvm.reduction<or>": "llvm.nvvm.barrier0.or",
        },
    ),
    "nvvm.memory.barrier": (
        "scope",
        0,
        {
            "#nvvm.mem_scope<cta>": "llvm.nvvm.membar.cta",
            "#nvvm.mem_scope<gpu>": "llvm.nvvm.membar.gl",
            "#nvvm.mem_scope<sys>": "llvm.nvvm.membar.sys",
        },
    ),
}

# NVVM dialect ops spelled as one PTX instruction
ASM_STATEMENTS = _with_areas(
    "asm_statements",
    {
        "nvvm.exit": "exit;",
        "nvvm.trap": "trap;",
    },
)

# NVVM dialect ops on values that map to one PTX instruction whose intrinsic NVVM 7 lacks:
# op name -> (inline PTX, constraints)
ASM_OPERATIONS = _with_areas(
    "asm_operations",
    {
        "nvvm.rcp.approx.ftz.f": ("rcp.approx.ftz.f32 $0, $1;", "=f,f"),
        "nvvm.rcp.approx.ftz.d": ("rcp.approx.ftz.f64 $0, $1;", "=d,d"),
    },
)

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
    | set(_areas.nvvm_table("known_calls"))
    | {
        "llvm.nvvm.barrier0.popc",
        "llvm.nvvm.barrier0.and",
        "llvm.nvvm.barrier0.or",
        "llvm.nvvm.bar.warp.sync",
        "llvm.nvvm.vote.all.sync",
        "llvm.nvvm.vote.any.sync",
        "llvm.nvvm.vote.uni.sync",
        "llvm.nvvm.vote.ballot.sync",
        "llvm.nvvm.shfl.sync.idx.i32",
        "llvm.nvvm.shfl.sync.up.i32",
        "llvm.nvvm.shfl.sync.down.i32",
        "llvm.nvvm.shfl.sync.bfly.i32",
        "llvm.nvvm.shfl.sync.idx.f32",
        "llvm.nvvm.shfl.sync.up.f32",
        "llvm.nvvm.shfl.sync.down.f32",
        "llvm.nvvm.shfl.sync.bfly.f32",
        "llvm.nvvm.match.any.sync.i32",
        "llvm.nvvm.match.any.sync.i64",
    }
)

# type suffixes of overloaded intrinsic names, by LLVM 7 type spelling
SUFFIX = {"half": "f16", "float": "f32", "double": "f64"}


def suffix(ty):
    if ty.kind == "vector":
        return f"v{ty.bits}{suffix(ty.members[0])}"
    return SUFFIX.get(ty.text, ty.text)
