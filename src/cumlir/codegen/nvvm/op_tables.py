"""What the NVVM dialect ops of cumlir's operations print as for libNVVM: the nvvm code
generator's own tables, read by its LLVM 7 printer (llvm7_ops.py, through
intrinsics_nvvm.py) at every print, so that what an extension adds with
``cumlir.extending.nvvm_ops`` counts from its next compile (docs/extending.md).

libNVVM accepts any intrinsic name without complaint and ptxas fails much later on the
result: every op the printer meets must be named in one of these tables (or in
intrinsics_nvvm.py's tables of MLIR's own LLVM intrinsics), else the printer refuses it.

The tables (``declare(table={op: ...})``):

- ``special_registers``, ``nullary``: op -> intrinsic;
- ``calls``: op -> intrinsic taking the op's operands and giving its result;
- ``asm_registers``: op -> PTX register NVVM 7 has no intrinsic for, read through inline PTX;
- ``volatile_registers``: op -> PTX register whose value changes between reads (a clock),
  read with ``asm volatile`` so that no read is merged with another or moved;
- ``by_attribute``: op -> (its enum attribute, how many operands the intrinsic takes,
  {attribute value as printed: intrinsic});
- ``asm_statements``: op -> PTX; ``asm_operations``: op -> (PTX, constraints);
- ``convergent_asm_calls``: an intrinsic NVVM 7 lacks, called through
  ``llvm.call_intrinsic`` -> (PTX, constraints): inline PTX marked convergent, for the
  warp-level instructions no optimisation may move across a branch;
- ``known_calls``: intrinsic names called through ``llvm.call_intrinsic``.
"""

from __future__ import annotations

import threading
from typing import Any

NAMES = (
    "special_registers",
    "asm_registers",
    "volatile_registers",
    "nullary",
    "calls",
    "by_attribute",
    "asm_statements",
    "asm_operations",
    "convergent_asm_calls",
    "known_calls",
)
TABLES: dict[str, dict[str, Any]] = {name: {} for name in NAMES}
_lock = threading.Lock()
_generation = [0]  # bumped by each declaration: what is derived from the tables is made again


def declare(**tables: Any) -> None:
    """Add entries to the tables named by the keywords; an op declared twice must mean the
    same thing both times."""
    with _lock:
        for table, entries in tables.items():
            if table not in TABLES:
                raise ValueError(f"nvvm_ops: unknown table {table!r}; one of {', '.join(NAMES)}")
            if table == "known_calls":
                entries = dict.fromkeys(entries, True)
            for op, target in entries.items():
                if TABLES[table].setdefault(op, target) != target:
                    raise ValueError(f"nvvm_ops: {op} is declared as both {TABLES[table][op]} and {target}")
        _generation[0] += 1


def generation() -> int:
    """How many declarations there have been (caches of what the tables give compare it)."""
    return _generation[0]


# ---- the ops cumlir's operations emit, by the area that emits them ----------------------------

# the end of a thread that raised with debug=False (operations/_support/elements.py)
declare(asm_statements={"nvvm.exit": "exit;"})

# thread indexing (operations/cuda/indexing.py)
declare(
    special_registers={
        f"nvvm.read.ptx.sreg.{reg}.{axis}": f"llvm.nvvm.read.ptx.sreg.{reg}.{axis}"
        for reg in ("tid", "ctaid", "ntid", "nctaid")
        for axis in "xyz"
    }
)

# barriers, fences and sleeping (operations/cuda/sync.py): the block-wide barrier, the one
# reducing a predicate (no barrier id, no thread count), the warp's, the memory barriers
declare(nullary={"nvvm.barrier0": "llvm.nvvm.barrier0"})
declare(
    by_attribute={
        "nvvm.barrier": (
            "reductionOp",
            1,
            {f"#nvvm.reduction<{k}>": f"llvm.nvvm.barrier0.{k}" for k in ("popc", "and", "or")},
        ),
        "nvvm.memory.barrier": (
            "scope",
            0,
            {
                f"#nvvm.mem_scope<{s}>": f"llvm.nvvm.membar.{m}"
                for s, m in (("cta", "cta"), ("gpu", "gl"), ("sys", "sys"))
            },
        ),
    }
)
declare(calls={"nvvm.bar.warp.sync": "llvm.nvvm.bar.warp.sync"})
declare(asm_operations={"nvvm.nanosleep": ("nanosleep.u32 $0;", "r")})

# warp intrinsics (operations/cuda/warp.py); the printer spells nvvm.shfl/vote/match.sync by
# their kind (llvm7_ops.py)
declare(
    special_registers={
        f"nvvm.read.ptx.sreg.{r}": f"llvm.nvvm.read.ptx.sreg.{r}" for r in ("laneid", "warpsize", "lanemask.lt")
    },
    known_calls=[
        *(f"llvm.nvvm.shfl.sync.{kind}.i32" for kind in ("idx", "up", "down", "bfly")),
        *(f"llvm.nvvm.vote.{kind}.sync" for kind in ("all", "any", "uni", "ballot")),
        "llvm.nvvm.match.any.sync.i32",
        "llvm.nvvm.match.any.sync.i64",
        "llvm.nvvm.match.all.sync.i32p",
        "llvm.nvvm.match.all.sync.i64p",
    ],
    convergent_asm_calls={"llvm.nvvm.activemask": ("activemask.b32 $0;", "=r")},  # not in NVVM 7
)

# the size of dynamic shared memory (operations/cuda/memory.py)
declare(asm_registers={"nvvm.read.ptx.sreg.dynamic.smem.size": "%dynamic_smem_size"})

# clocks and the global timer (operations/cuda/timers.py)
declare(
    volatile_registers={
        "nvvm.read.ptx.sreg.clock": "%clock",
        "nvvm.read.ptx.sreg.clock64": "%clock64",
        "nvvm.read.ptx.sreg.globaltimer": "%globaltimer",
    }
)

# elect.sync (operations/hopper/elect.py), which NVVM 7 lacks
declare(convergent_asm_calls={"llvm.nvvm.elect.sync": ("elect.sync $0|$1, $2;", "=r,=b,r")})
