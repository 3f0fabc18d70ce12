"""Synchronization: ``syncthreads()``, the block barriers that reduce a predicate
(``syncthreads_count/and/or``), ``syncwarp(mask)``, the memory fences
``threadfence[_block|_system]()`` and ``nanosleep(ns)``, typed as Numba-CUDA types them."""

from .. import Stub
from .._support.modules import arith, errors, ir, nvvm, templates, types


def _i32():
    return ir.IntegerType.get_signless(32)


syncthreads = Stub(
    "syncthreads",
    "syncthreads(): wait until every thread of the block has reached this point and the "
    "block's shared and global memory accesses made before it are visible to all of them.",
)


@syncthreads.cases
def _syncthreads_cases():
    return [templates.signature(types.none)]


@syncthreads.lower
def _syncthreads(lower, sig, args):
    nvvm.Barrier0Op()


# ---- barriers reducing a predicate over the block ------------------------------------------

# stub name -> (the reduction of nvvm.barrier, what the result is)
_REDUCTIONS = {
    "syncthreads_count": ("POPC", "the number of threads of the block whose predicate is non-zero"),
    "syncthreads_and": ("AND", "1 if the predicate is non-zero in every thread of the block, else 0"),
    "syncthreads_or": ("OR", "1 if the predicate is non-zero in any thread of the block, else 0"),
}


def _reduction_typer(name):
    # Numba-CUDA takes any integer and answers int32; a bool is an integer here too
    def typer(predicate):
        if not isinstance(predicate, (types.Integer, types.Boolean)):
            raise errors.TypingError(f"cuda.{name}(predicate) needs an integer or bool predicate, got {predicate}")
        return templates.signature(types.int32, types.unliteral(predicate))

    return typer


# the block-wide barrier reducing a predicate (no barrier id, no thread count)


def _reduction_rule(kind):
    def rule(lower, sig, args):
        # non-zero, not truncated to 32 bits: an int64 predicate of 2**32 counts as true
        value = args[0]
        nonzero = arith.cmpi(arith.CmpIPredicate.ne, value, arith.constant(value.type, 0))
        predicate = arith.extui(_i32(), nonzero)
        reduction = ir.Attribute.parse(f"#nvvm.reduction<{kind.lower()}>")
        return nvvm.BarrierOp(_i32(), reductionOp=reduction, reductionPredicate=predicate).result

    return rule


for _name, (_kind, _doc) in _REDUCTIONS.items():
    _stub = globals()[_name] = Stub(_name, f"{_name}(predicate): syncthreads(), answering {_doc} (int32).")
    _stub.typer(_reduction_typer(_name))
    _stub.lower(_reduction_rule(_kind))


# ---- warps, fences, sleeping ---------------------------------------------------------------

syncwarp = Stub(
    "syncwarp",
    "syncwarp(mask=0xFFFFFFFF): wait until the lanes of the warp named in mask have reached it.",
)


@syncwarp.cases
def _syncwarp_cases():
    return [templates.signature(types.none), templates.signature(types.none, types.int32)]


@syncwarp.lower
def _syncwarp(lower, sig, args):
    mask = args[0] if args else arith.constant(_i32(), -1)
    nvvm.SyncWarpOp(mask)


# stub name -> (memory scope of nvvm.memory.barrier: membar.gl/.cta/.sys, who sees the order)
_FENCES = {
    "threadfence": ("GPU", "the device"),
    "threadfence_block": ("CTA", "the block"),
    "threadfence_system": ("SYS", "the device, the host and peer devices"),
}


def _fence_rule(scope):
    def rule(lower, sig, args):
        nvvm.MembarOp(getattr(nvvm.MemScopeKind, scope))

    return rule


for _name, (_scope, _where) in _FENCES.items():
    _stub = globals()[_name] = Stub(
        _name, f"{_name}(): the thread's memory writes before it are seen by {_where} before those after it."
    )
    _stub.cases(lambda: [templates.signature(types.none)])
    _stub.lower(_fence_rule(_scope))


# libNVVM 7 has no nanosleep intrinsic: inline PTX, kept for its effect

nanosleep = Stub("nanosleep", "nanosleep(ns): suspend the thread for about ns nanoseconds (uint32; sm_70 and newer).")


@nanosleep.cases
def _nanosleep_cases():
    return [templates.signature(types.none, types.uint32)]


@nanosleep.lower
def _nanosleep(lower, sig, args):
    nvvm.NanosleepOp(args[0])
