"""The intrinsics the LLVM 7 printer knows, and what each MLIR op becomes.

libNVVM accepts any intrinsic name without complaint and ptxas fails much later on the
result, so everything here is an explicit list: an op or intrinsic not named below is
rejected by the printer with an error naming it.

What the NVVM ops of cumlir's operations print as is in op_tables.py, tables this code
generator owns and extensions add to (``cumlir.extending.nvvm_ops``); the names below are
those tables themselves, read at each print. This module adds only what no operation
emits: the LLVM intrinsics MLIR's own conversions emit (``llvm.intr.*``) and the NVVM ops
offered to extensions' MLIR (docs/extending.md).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .op_tables import TABLES, declare, generation

if TYPE_CHECKING:
    from .llvm7_types import Type

# the ops of each table of op_tables.py (what each is: see there)
SPECIAL_REGISTERS = TABLES["special_registers"]
ASM_REGISTERS = TABLES["asm_registers"]
VOLATILE_REGISTERS = TABLES["volatile_registers"]
NULLARY = TABLES["nullary"]
CALLS = TABLES["calls"]
BY_ATTRIBUTE = TABLES["by_attribute"]
ASM_STATEMENTS = TABLES["asm_statements"]
ASM_OPERATIONS = TABLES["asm_operations"]
CONVERGENT_ASM_CALLS = TABLES["convergent_asm_calls"]

# the reciprocals, for extensions' MLIR (docs/extending.md)
declare(
    asm_operations={
        "nvvm.rcp.approx.ftz.f": ("rcp.approx.ftz.f32 $0, $1;", "=f,f"),
        "nvvm.rcp.approx.ftz.d": ("rcp.approx.ftz.f64 $0, $1;", "=d,d"),
    }
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


def known_calls() -> frozenset[str]:
    """The full names accepted in llvm.call_intrinsic and in calls to declared llvm.*
    functions, from the tables as they are now."""
    return _known_calls(generation())


@functools.lru_cache(maxsize=1)
def _known_calls(_generation: int) -> frozenset[str]:
    return frozenset(
        set(SPECIAL_REGISTERS.values())
        | set(NULLARY.values())
        | set(CALLS.values())
        | {name for _, _, names in BY_ATTRIBUTE.values() for name in names.values()}
        | set(TABLES["known_calls"])
        | {"llvm.trap"}  # the device runtime's end of a kernel whose heap is exhausted (nrt.mlir)
    )


# type suffixes of overloaded intrinsic names, by LLVM 7 type spelling
SUFFIX = {"half": "f16", "float": "f32", "double": "f64"}


def suffix(ty: Type) -> str:
    if ty.kind == "vector":
        return f"v{ty.bits}{suffix(ty.members[0])}"
    return SUFFIX.get(ty.text, ty.text)
