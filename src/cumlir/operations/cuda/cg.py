"""Cooperative groups: ``cuda.cg.this_grid()``, whose ``.sync()`` waits for every thread
of the grid.

A grid barrier only works when every block of the grid is resident at once, which only a
cooperative launch guarantees: the sync rule marks the module (``lower.require_cooperative_launch``),
the compiler records it on the Compilation and the runtime then launches with
``cuLaunchCooperativeKernel`` after checking the grid fits on the device.

The barrier is the one CUDA C++'s ``grid.sync()`` compiles to: a block barrier, one thread
of each block arriving at the grid barrier (in PTX; see docs/cooperative.md for why not
libcudadevrt), a block barrier. For a cooperative launch the driver hands
every kernel a zeroed per-launch workspace whose address is in ``%envreg1`` (high word)
and ``%envreg2`` (low word); its second 32-bit word counts arrivals. Each block's first
thread adds 1 to it, except block 0's, which adds 0x80000000 - (blocks - 1): once every
block has arrived the sum is 0x80000000, so the word's top bit flips and its low bits are
back where they started, ready for the next barrier. Each adder then waits until the top
bit differs from what its own add saw. The add releases and the polling load acquires at
GPU scope, and the block barriers on each side spread that to the rest of the block.
"""

from .. import Namespace
from .._support.modules import arith, ir, llvm, nvvm, scf, templates, types

cg = Namespace("cg", "Cooperative groups: cuda.cg.this_grid() is the group of every thread of the grid.")
this_grid = cg.function(
    "this_grid",
    "this_grid(): the grid group of the calling thread; its .sync() is a grid-wide barrier "
    "(the kernel is then launched cooperatively).",
)
grid_group = cg.namespace("grid_group", "What cuda.cg.this_grid() returns: the group of every thread of the grid.")
grid_sync = grid_group.function(
    "sync",
    "sync(): wait until every thread of the grid has reached this point; memory accesses made "
    "before it are visible to all of them after it.",
)

# what one thread of each block does (see the module's docstring); one PTX block, its
# registers and labels local to the braces, so that it may appear many times in a kernel
GRID_ARRIVE_AND_WAIT_PTX = """{
.reg .pred %first, %flipped;
.reg .b32 %t, %u, %blocks, %add, %seen, %now;
.reg .b64 %word;
mov.u32 %t, %envreg2;
mov.u32 %u, %envreg1;
mov.b64 %word, {%t, %u};
add.u64 %word, %word, 4;
mov.u32 %blocks, %nctaid.x;
mov.u32 %t, %nctaid.y;
mul.lo.u32 %blocks, %blocks, %t;
mov.u32 %t, %nctaid.z;
mul.lo.u32 %blocks, %blocks, %t;
mov.u32 %t, %ctaid.x;
mov.u32 %u, %ctaid.y;
or.b32 %t, %t, %u;
mov.u32 %u, %ctaid.z;
or.b32 %t, %t, %u;
setp.eq.u32 %first, %t, 0;
sub.u32 %add, 0x80000001, %blocks;
selp.u32 %add, %add, 1, %first;
atom.add.release.gpu.u32 %seen, [%word], %add;
WAIT:
ld.acquire.gpu.u32 %now, [%word];
xor.b32 %now, %now, %seen;
setp.lt.s32 %flipped, %now, 0;
@!%flipped bra WAIT;
}"""


@this_grid.typer
def _this_grid_typing():
    return templates.signature(grid_group.numba_type)


@this_grid.lower
def _this_grid(lower, sig, args):
    return None  # the group has no runtime value: its sync reads what it needs


@grid_sync.cases
def _grid_sync_cases():
    return [templates.signature(types.none)]


@grid_sync.lower
def _grid_sync(lower, sig, args):
    lower.require_cooperative_launch()
    # the block barriers are LLVM's convergent intrinsic, so that no optimisation copies
    # them into diverging paths (a block whose threads wait at two copies never meets);
    # between them one thread per block arrives at the grid barrier and waits
    nvvm.Barrier0Op()
    i32 = ir.IntegerType.get_signless(32)
    tid = arith.ori(arith.ori(nvvm.ThreadIdXOp(i32).result, nvvm.ThreadIdYOp(i32).result), nvvm.ThreadIdZOp(i32).result)
    master = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, tid, arith.constant(i32, 0)))
    with ir.InsertionPoint(master.then_block):
        llvm.inline_asm(None, [], GRID_ARRIVE_AND_WAIT_PTX, "~{memory}", has_side_effects=True)
        scf.YieldOp([])
    nvvm.Barrier0Op()
