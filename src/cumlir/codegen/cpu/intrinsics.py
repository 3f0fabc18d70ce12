"""What becomes of each NVVM intrinsic a kernel calls when it runs on the CPU: read from
the simulated thread's state (the runtime defines it), a point where the thread waits for
others (a barrier or a warp operation: ``Waiting``), a generic LLVM operation, or refused
by name."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ... import simulation as sim

# defined by runtime.ll under __sim.nvvm.<name>
IN_RUNTIME = re.compile(
    r"read\.ptx\.sreg\.(tid|ntid|ctaid|nctaid)\.[xyz]|read\.ptx\.sreg\.(laneid|warpid|nwarpid|warpsize|smid|nsmid"
    r"|gridid|clock|clock64|globaltimer|dynamic_smem_size|lanemask\.(eq|lt|le|gt|ge))"
    r"|membar\.(cta|gl|sys)|fence\.sc\.cluster|nanosleep"
    r"|rcp\.approx\.ftz\.[fd]|div\.(approx(\.ftz)?\.f|full(\.ftz)?)|rsqrt\.approx\.(ftz\.f|f|d)"
    r"|(ex2|lg2|sin|cos)\.approx\.(ftz\.)?f"
)

# NVVM intrinsics with a generic LLVM equivalent of the same signature
GENERIC = {
    "fabs.f32": "llvm.fabs.f32",
    "fabs.f64": "llvm.fabs.f64",
    "fabs.f": "llvm.fabs.f32",
    "fabs.d": "llvm.fabs.f64",
    "fma.rn.f": "llvm.fma.f32",
    "fma.rn.d": "llvm.fma.f64",
    "sqrt.rn.f": "llvm.sqrt.f32",
    "sqrt.rn.d": "llvm.sqrt.f64",
    "sqrt.f": "llvm.sqrt.f32",
    "sqrt.approx.f": "llvm.sqrt.f32",
    "floor.f": "llvm.floor.f32",
    "floor.d": "llvm.floor.f64",
    "ceil.f": "llvm.ceil.f32",
    "ceil.d": "llvm.ceil.f64",
    "trunc.f": "llvm.trunc.f32",
    "trunc.d": "llvm.trunc.f64",
    "fmin.f": "llvm.minnum.f32",
    "fmin.d": "llvm.minnum.f64",
    "fmax.f": "llvm.maxnum.f32",
    "fmax.d": "llvm.maxnum.f64",
}


# the grid barrier's call (inline_ptx's form of cooperative groups' arrive-and-wait): the
# thread waits, and its block with it, until the host's cooperative launch resumes them
GRID_SYNC_CALL = "@__sim.op.grid_sync()"
GRID_SYNC_DECLARATION = "declare void @__sim.op.grid_sync()"


@dataclass(frozen=True)
class Waiting:
    """A call after which the thread waits: which operation, and where its mask, value and
    shfl operands (b, c) are among the call's arguments; ``result`` is how the scheduler's
    64-bit result becomes the call's (``void``, ``int``, ``float``, or ``pair`` for a
    value and a predicate)."""

    op: int
    name: str  # the operation as the user wrote it, for reports
    mask: int | None = None
    value: int | None = None
    b: int | None = None
    c: int | None = None
    result: str = "int"


_BARRIERS = {
    "barrier0": Waiting(sim.BARRIER, "syncthreads", result="void"),
    "barrier.sync": Waiting(sim.BARRIER, "syncthreads", result="void"),
    "barrier.cta.sync.aligned.all": Waiting(sim.BARRIER, "syncthreads", result="void"),
    "barrier.cta.sync.all": Waiting(sim.BARRIER, "syncthreads", result="void"),
    "barrier.cta.red.popc.aligned.all": Waiting(sim.BARRIER_POPC, "syncthreads_count", value=1),
    "barrier.cta.red.and.aligned.all": Waiting(sim.BARRIER_AND, "syncthreads_and", value=1),
    "barrier.cta.red.or.aligned.all": Waiting(sim.BARRIER_OR, "syncthreads_or", value=1),
    "barrier0.popc": Waiting(sim.BARRIER_POPC, "syncthreads_count", value=0),
    "barrier0.and": Waiting(sim.BARRIER_AND, "syncthreads_and", value=0),
    "barrier0.or": Waiting(sim.BARRIER_OR, "syncthreads_or", value=0),
    "bar.warp.sync": Waiting(sim.SYNCWARP, "syncwarp", mask=0, result="void"),
    "activemask": Waiting(sim.ACTIVEMASK, "activemask"),
    "grid_sync": Waiting(sim.GRID_BARRIER, "grid.sync", result="void"),  # inline_ptx's form of it
}
_SHFL = {"idx": sim.SHFL_IDX, "up": sim.SHFL_UP, "down": sim.SHFL_DOWN, "bfly": sim.SHFL_BFLY}
_VOTE = {"all": sim.VOTE_ALL, "any": sim.VOTE_ANY, "uni": sim.VOTE_UNI, "ballot": sim.BALLOT}
_REDUX = {
    "add": sim.REDUX_ADD,
    "min": sim.REDUX_MIN,
    "max": sim.REDUX_MAX,
    "umin": sim.REDUX_UMIN,
    "umax": sim.REDUX_UMAX,
    "and": sim.REDUX_AND,
    "or": sim.REDUX_OR,
    "xor": sim.REDUX_XOR,
}


def waiting(name: str) -> Waiting | None:
    """The Waiting of the intrinsic ``llvm.nvvm.<name>``, or None if a thread calling it
    does not wait."""
    if name in _BARRIERS:
        return _BARRIERS[name]
    m = re.fullmatch(r"shfl\.sync\.(idx|up|down|bfly)\.(i32|f32)(p?)", name)
    if m:
        kind, ty, pair = m.groups()
        result = "pair" if pair else ("float" if ty == "f32" else "int")
        return Waiting(_SHFL[kind], f"shfl_{kind}_sync", mask=0, value=1, b=2, c=3, result=result)
    m = re.fullmatch(r"vote\.(all|any|uni|ballot)\.sync", name)
    if m:
        return Waiting(_VOTE[m.group(1)], f"{m.group(1)}_sync", mask=0, value=1)
    m = re.fullmatch(r"match\.(any|all)\.sync\.i(32|64)(p?)", name)
    if m:
        op = sim.MATCH_ANY if m.group(1) == "any" else sim.MATCH_ALL
        return Waiting(op, f"match_{m.group(1)}_sync", mask=0, value=1, result="pair" if m.group(3) else "int")
    m = re.fullmatch(r"redux\.sync\.(add|min|max|umin|umax|and|or|xor)", name)
    if m:
        return Waiting(_REDUX[m.group(1)], f"reduce_{m.group(1)}_sync", mask=1, value=0)
    return None


def in_runtime(name: str) -> bool:
    return IN_RUNTIME.fullmatch(name) is not None
