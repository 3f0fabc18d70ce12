"""``elect_sync()`` and ``elect_sync_mask(mask)`` (sm_90), numba-cuda-mlir's names: PTX's
``elect.sync`` picks one lane among the warp's lanes in *mask* (all of them for
``elect_sync()``) that run the call; it returns True in that lane only.

The call is LLVM's ``llvm.nvvm.elect.sync``, a convergent intrinsic, so that no optimisation
moves it across a branch into code that other lanes reach (the lane elected depends on which
lanes run it); the LLVM 7 printer writes it as inline PTX marked convergent."""

from .. import Stub
from .._support.modules import arith, ir, llvm, templates, types
from .._support.ptx_asm import as_i32, check_integer, i32, require

elect_sync = Stub(
    "elect_sync", "elect_sync(): True in one lane of the warp's lanes running the call, False in the others (sm_90)."
)
elect_sync_mask = Stub(
    "elect_sync_mask",
    "elect_sync_mask(mask): True in one lane of the lanes in mask (which must all run the call), False in the others (sm_90).",
)


@elect_sync.cases
def _cases():
    return [templates.signature(types.boolean)]


@elect_sync_mask.typer
def _mask_typer(mask):
    check_integer("intrin.elect_sync_mask(mask): the mask", mask)
    return templates.signature(types.boolean, mask)


def _elect(lower, name, mask):
    require(lower, f"intrin.{name}", (9, 0), 80)
    pair = llvm.StructType.get_literal([i32(), ir.IntegerType.get_signless(1)])
    elected = llvm.call_intrinsic(pair, "llvm.nvvm.elect.sync", [mask], [], [])
    return llvm.extractvalue(ir.IntegerType.get_signless(1), elected, [1])


@elect_sync.lower
def _elect_sync(lower, sig, args):
    return _elect(lower, "elect_sync", arith.constant(i32(), -1))


@elect_sync_mask.lower("Any")
def _elect_sync_mask(lower, sig, args):
    return _elect(lower, "elect_sync_mask", as_i32(lower, sig.args[0], args[0]))
