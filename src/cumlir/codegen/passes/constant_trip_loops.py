"""Loops over a ``range`` of a compile-time length (``for k in range(8)``), unrolled as
libNVVM and nvcc unroll them: fully where the copies stay small, twice where the body is
large.

LLVM's NVPTX back end judges these loops with thresholds set for CPUs: a 32-trip loop of
two shared loads and an FMA (a tile of a matrix product) is unrolled four times where
nvcc unrolls it fully (each load then has a constant offset), and a loop whose body calls
libdevice's ``sin`` stays rolled where nvcc unrolls it twice, two independent sines in
flight. A loop whose trips times body size is at most FULL_UNROLL_BUDGET is asked to
unroll fully; one whose body alone exceeds LARGE_BODY (LLVM leaves such a body rolled) to
unroll twice; loops between are left to LLVM's own partial unrolling.

The trip count is read from the range's state as lowering makes it: three i64 slots of
an ``llvm.alloca`` (next value, trips left, step), the loop's header loading the trips
left, testing them ``!= 0`` and storing them less one. The count is the constant stored
in that slot before the loop. The loop is marked only where every access to the state is
understood (reached through constant offsets, the array descriptors and the block
arguments that carry it), the state's address is not passed anywhere else, and the slot
is written only there and by the header: any other write could change the count. The
annotation goes on the branch of the loop's single latch, as LLVM reads it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from mlir import ir

from .cfg import Cfg, successor_operands

FULL_UNROLL_BUDGET = 1024  # weighted operations of the fully unrolled loop
LARGE_BODY = 75  # weighted operations: LLVM's partial-unroll limit on NVPTX (its threshold / 4)
CALL_WEIGHT = 40  # a libdevice function is tens of instructions once inlined
_FREE = frozenset(
    [
        "llvm.mlir.constant",
        "llvm.mlir.poison",
        "llvm.mlir.undef",
        "llvm.extractvalue",
        "llvm.insertvalue",
        "llvm.bitcast",
        # integer width changes: the 32-bit offsets of arrays (operations/_support/elements.py) add them
        # around index arithmetic that LLVM then does in one width
        "llvm.trunc",
        "llvm.sext",
        "llvm.zext",
    ]
)
_NOT_EQUAL = 1  # llvm.icmp predicate ne
_TRIPS_LEFT = 1  # the slot of the range's state holding the trips left
_FOLLOWED = 64  # values followed back from a pointer before giving up
_UNKNOWN = object()  # a pointer whose origin is not found
_ANY = object()  # a value seen again on a cycle of block arguments: it constrains nothing

if TYPE_CHECKING:
    from typing import TypeAlias

    # the origin of a pointer: (the alloca, the slot it points to), or _UNKNOWN, or _ANY
    _Root: TypeAlias = Any


def mark(gpu_module: ir.Operation) -> int:
    """Annotate the latch of every constant-trip loop of *gpu_module*'s functions (in the
    LLVM dialect) for unrolling; the number of loops marked."""
    full = ir.Attribute.parse("#llvm.loop_annotation<unroll = <full = true>>")
    twice = ir.Attribute.parse("#llvm.loop_annotation<unroll = <count = 2 : i32>>")
    marked = 0
    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name != "llvm.func" or not len(op.regions[0].blocks):
            continue
        cfg = Cfg(op.regions[0])
        for latch, trips, size in _constant_trip_loops(cfg):
            if size > LARGE_BODY:
                annotation = twice
            elif trips * size <= FULL_UNROLL_BUDGET:
                annotation = full
            else:
                continue
            cfg.terminator[latch].attributes["loop_annotation"] = annotation
            marked += 1
    return marked


def _constant_trip_loops(cfg: Cfg) -> Iterator[tuple[ir.Block, int, int]]:
    """(latch block, trips, weighted body size) of each loop over a range of constant length.
    The header only steps the range (loads and stores of its state LLVM turns into
    registers): it is not counted."""
    roots = _Roots(cfg)
    for header in cfg.blocks:
        state = _range_state(header, cfg, roots)
        if state is None:
            continue
        loop = _loop_blocks(header, cfg)
        latches = [b for b in cfg.predecessors[header] if b in loop]
        entries = [b for b in cfg.predecessors[header] if b not in loop]
        if len(latches) != 1 or len(entries) != 1:
            continue
        branch = cfg.terminator[latches[0]]
        if "loop_annotation" in branch.attributes:
            continue
        trips = _trips(state, header, entries[0], roots)
        if trips is not None and trips > 1:
            yield latches[0], trips, sum(_weight(b) for b in loop if b != header)


def _range_state(header: ir.Block, cfg: Cfg, roots: _Roots) -> ir.Operation | None:
    """The alloca holding the range's state that *header* tests (``trips left != 0``), or None."""
    branch = cfg.terminator[header]
    if branch.name != "llvm.cond_br":
        return None
    test = _defined_in(branch.operands[0], header)
    if test is None or test.name != "llvm.icmp" or ir.IntegerAttr(test.attributes["predicate"]).value != _NOT_EQUAL:
        return None
    left, zero = test.operands
    if _constant_value(zero) != 0:
        return None
    load = _defined_in(left, header)
    if load is None or load.name != "llvm.load":
        return None
    root = roots.of(load.operands[0])
    if root is _UNKNOWN or root is _ANY or root[1] != _TRIPS_LEFT:
        return None
    return root[0]


def _trips(state: ir.Operation, header: ir.Block, entry: ir.Block, roots: _Roots) -> int | None:
    """The constant number of trips *entry* stores in *state* before entering *header*;
    None unless every use of the state is understood and the trips left are written only
    there and by the header's decrement."""
    stores = _stores_into(state)
    if stores is None:
        return None
    count = None
    for store in stores:
        root = roots.of(store.operands[1])
        if root is _UNKNOWN:
            return None
        if root[1] != _TRIPS_LEFT or store.block == header:
            continue  # another slot, or the decrement
        if store.block != entry or count is not None:
            return None
        count = _constant_value(store.operands[0])
    return count


def _stores_into(state: ir.Operation) -> list[ir.Operation] | None:
    """The stores through pointers into *state*, followed forward from the alloca through
    the descriptors and block arguments that carry it; None where it escapes (passed to a
    call, stored, offset by a computed index, converted to an integer)."""
    stores, seen, pending = [], set(), [state.result]
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in value.uses:
            op, number = use.owner, use.operand_number
            name = op.name
            if name == "llvm.load":
                continue
            if name == "llvm.store" and number == 1:
                stores.append(op.operation)
            elif name in ("llvm.insertvalue", "llvm.extractvalue") or (
                name == "llvm.getelementptr" and len(op.operands) == 1
            ):
                if name != "llvm.insertvalue" or number == 1:
                    pending.extend(r for r in op.results if _holds_pointer(r))
                else:
                    pending.append(op.result)
            elif name in ("llvm.br", "llvm.cond_br"):
                pending.extend(_arguments_given(op, number))
            else:
                return None
    return stores


def _arguments_given(branch: ir.Operation, number: int) -> list[ir.BlockArgument]:
    """The block arguments operand *number* of *branch* becomes."""
    arguments = []
    at = 0 if branch.name == "llvm.br" else 1
    # a branch's operands are known for each successor (None is for other terminators)
    for successor, passed in zip(branch.successors, successor_operands(branch)):
        if at <= number < at + len(passed):  # type: ignore[arg-type]
            arguments.append(successor.arguments[number - at])
        at += len(passed)  # type: ignore[arg-type]
    return arguments


def _loop_blocks(header: ir.Block, cfg: Cfg) -> set[ir.Block]:
    """The blocks of the natural loop of *header*: those from which a back edge (a branch
    to it from a block it dominates) is reached without passing through it."""
    loop = {header}
    pending = [b for b in cfg.predecessors[header] if _dominated(b, header, cfg)]
    while pending:
        b = pending.pop()
        if b not in loop:
            loop.add(b)
            pending.extend(cfg.predecessors[b])
    return loop


def _dominated(block: ir.Block, header: ir.Block, cfg: Cfg) -> bool:
    """Whether every path from the function's entry to *block* passes through *header*."""
    seen, pending = {header}, [cfg.blocks[0]]
    while pending:
        b = pending.pop()
        if b == block:
            return False
        if b in seen:
            continue
        seen.add(b)
        pending.extend(cfg.terminator[b].successors)
    return True


def _weight(block: ir.Block) -> int:
    weight = 0
    for op in block.operations:
        name = op.operation.name
        if name not in _FREE:
            weight += CALL_WEIGHT if name == "llvm.call" else 1
    return weight


class _Roots:
    """The origin of pointers: (alloca, slot) where a pointer is reached from an alloca of
    i64 through constant offsets, the array descriptors that hold it and the block
    arguments that carry it; _UNKNOWN otherwise. Answers are kept (many uses share them)."""

    def __init__(self, cfg: Cfg) -> None:
        self.cfg = cfg
        self.known: dict[tuple[ir.Value, tuple[int, ...]], _Root] = {}
        self.in_progress: set[tuple[ir.Value, tuple[int, ...]]] = set()
        self.met_cycle = False

    def of(self, value: ir.Value, position: tuple[int, ...] = ()) -> _Root:
        """The origin of *value* (of the pointer at *position* of the aggregate *value*);
        _ANY while it is being found (a cycle back to it)."""
        key = (value, position)
        if key in self.known:
            return self.known[key]
        if key in self.in_progress:
            self.met_cycle = True
            return _ANY
        if len(self.in_progress) > _FOLLOWED:
            return _UNKNOWN
        outer, self.met_cycle = self.met_cycle, False
        self.in_progress.add(key)
        root = self._follow(value, position, _FOLLOWED)
        self.in_progress.discard(key)
        if not self.in_progress:  # the first question: its answer is complete
            root = _UNKNOWN if root is _ANY else root
            self.known[key] = root
        elif not self.met_cycle:  # found without a value still being found: final
            self.known[key] = root
        self.met_cycle = outer or self.met_cycle
        return root

    def _follow(self, value: ir.Value, position: tuple[int, ...], steps: int) -> _Root:
        if steps == 0:
            return _UNKNOWN
        if isinstance(value, ir.BlockArgument):
            return self._argument(value, position)
        op = value.owner.operation
        name = op.name
        if position:
            if name != "llvm.insertvalue":
                return _UNKNOWN
            container, inserted = op.operands
            if tuple(ir.DenseI64ArrayAttr(op.attributes["position"])) == position:
                return self.of(inserted)
            return self._follow(container, position, steps - 1)
        if name == "llvm.alloca":
            return (op, 0) if str(op.attributes["elem_type"]) == "i64" else _UNKNOWN
        if name == "llvm.extractvalue":
            return self._follow(op.operands[0], tuple(ir.DenseI64ArrayAttr(op.attributes["position"])), steps - 1)
        if name == "llvm.getelementptr":
            indices = list(ir.DenseI32ArrayAttr(op.attributes["rawConstantIndices"]))
            if len(op.operands) != 1 or len(indices) != 1 or str(op.attributes["elem_type"]) != "i64":
                return _UNKNOWN
            base = self.of(op.operands[0])
            return base if base is _UNKNOWN or base is _ANY else (base[0], base[1] + indices[0])
        return _UNKNOWN

    def _argument(self, argument: ir.BlockArgument, position: tuple[int, ...]) -> _Root:
        """The origin every branch into *argument*'s block agrees on."""
        found = _ANY
        for _, passed in self.cfg.incoming[argument.owner]:
            if passed is None:
                return _UNKNOWN
            root = self.of(passed[argument.arg_number], position)
            if root is _UNKNOWN or (found is not _ANY and root is not _ANY and root != found):
                return _UNKNOWN
            if root is not _ANY:
                found = root
        return found


def _holds_pointer(value: ir.Value) -> bool:
    text = str(value.type)
    return text.startswith("!llvm.ptr") or text.startswith("!llvm.struct")


def _defined_in(value: ir.Value, block: ir.Block) -> ir.Operation | None:
    if isinstance(value, ir.BlockArgument):
        return None
    op = value.owner.operation
    return op if op.block == block else None


def _constant_value(value: ir.Value) -> int | None:
    if isinstance(value, ir.BlockArgument) or value.owner.operation.name != "llvm.mlir.constant":
        return None
    attribute = value.owner.operation.attributes["value"]
    return ir.IntegerAttr(attribute).value if isinstance(attribute, ir.IntegerAttr) else None
