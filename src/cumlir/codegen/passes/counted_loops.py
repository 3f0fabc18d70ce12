"""Counted loops with a runtime step (``while i < n: ... i += stride``, the grid-stride loop),
unrolled so that each thread has several loads in flight, as Numba-CUDA's and nvcc's code
does: eight times where the loop only reads memory (a maximum, a sum), four times where it
writes. Measured on an H200 against the twins' nvcc code, that took softmax (two reading
row loops, one writing) from 0.924x to 1.010x its twin, and the block and warp reductions
from 1.005x and 1.001x to 1.013x and 1.009x; the histogram's loop of shared-memory atomics
runs at 2.53x its twin with four copies, 1.70x with eight.

LLVM unrolls such a loop only if it can count its trips. Two things stop it: int64
additions wrap in Numba's semantics, so the counter might wrap past ``n`` (no count), and
with a step known only at run time the count needs a division, which LLVM's own
heuristics judge too costly. A single-block loop whose back edge is taken while
``i + step < n`` (signed), with ``step`` and ``n`` fixed in the loop, has that
addition marked as not wrapping (a counter that passes the int64 range is undefined, as a
C signed counter: docs/semantics.md) and its back edge asked to unroll. Loops
LLVM counts and unrolls by itself (constant bounds and step) and large bodies are left to
LLVM's heuristics.

Grid-stride loops (a step computed from the grid's size) that write global memory are not
marked: LLVM cannot move a later trip's loads above an earlier trip's store (it cannot
tell the arrays apart), so four copies keep one trip's loads in flight as before, and add
a division and a remainder loop to every thread, which pays where a thread runs few trips,
as it does in a grid sized to the data. Measured on an H100, a grid-stride
``o[i] = x[i] * y[i] + z[i]`` over 2**28 elements ran 1.18-1.49 times longer marked, with
one to 250 trips a thread. A loop stepping by a block's width or a constant (a row shared
by a block's threads: many trips each) is marked whatever it writes (softmax's
normalisation loop ran 1.06 times longer unmarked), and so is a grid-stride loop that
reads (a sum, a maximum) or writes only shared or local memory (a histogram in shared
memory): LLVM knows those address spaces apart from global memory once it has inferred
them. A write's address space is followed back from its pointer through address
arithmetic, casts and the array descriptors the loop carries; a write whose origin is
not found counts as global, as does inline assembly with side effects other than a load
(stores with cache hints).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mlir import ir

from ...libdevice_bitcode import ROUTINE_PREFIX
from ...marks import COUNTED_LOOP_COUNTER
from .cfg import Cfg, successor_operands

UNROLL = 4  # copies of a loop that writes memory
UNROLL_READING = 8  # copies of a loop that only reads it
LARGEST_BODY = 64  # operations: beyond this, four copies cost more than they hide
_SIGNED_LESS = 2  # llvm.icmp predicate slt (LLVM cannot count ``<=`` against a computed bound)
# operations whose result is the same on every trip when their operands are (a bound such as
# ``x.shape[1] - 1``, a step such as ``cuda.blockDim.x``): arithmetic, and the thread's
# launch coordinates
_PURE = frozenset(
    [
        f"llvm.{name}"
        for name in ("extractvalue", "add", "sub", "mul", "and", "or", "xor", "shl", "zext", "sext", "trunc")
    ]
    + [f"nvvm.read.ptx.sreg.{r}.{axis}" for r in ("tid", "ntid", "ctaid", "nctaid") for axis in "xyz"]
)


# operations that write memory, and the position of the pointer they write through
_WRITES = {
    "llvm.store": 1,
    "llvm.atomicrmw": 0,
    "llvm.cmpxchg": 0,
    "llvm.intr.memcpy": 0,
    "llvm.intr.memmove": 0,
    "llvm.intr.memset": 0,
}
_APART = (3, 5)  # shared and local memory: LLVM tells them apart from global memory
_FOLLOWED = 64  # values followed back from a written pointer or a step before giving up


def mark(gpu_module: ir.Operation) -> None:
    """Mark the counted loops of every function of *gpu_module* (in the LLVM dialect), in place."""
    annotations = {count: _unroll(count) for count in (UNROLL, UNROLL_READING)}
    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name != "llvm.func":
            continue
        cfg = Cfg(op.regions[0])
        counted = [(block, _counter_increment(block, cfg)) for block in cfg.blocks]
        for block, counter in counted:  # replaced once the function is read, as cfg holds them
            if counter is not None:
                count = UNROLL if _writes(block.operations) else UNROLL_READING
                _mark_not_wrapping(counter)
                cfg.terminator[block].attributes["loop_annotation"] = annotations[count]


def _unroll(count: int) -> ir.Attribute:
    return ir.Attribute.parse(f"#llvm.loop_annotation<unroll = <count = {count} : i32>>")


def _writes(operations: Iterable[ir.OpView]) -> bool:
    """Whether any of *operations* may write memory: a store or atomic, inline assembly, or a
    call of anything but a libdevice routine (which only computes)."""
    for op in operations:
        name = op.operation.name
        if name in _WRITES or name == "llvm.inline_asm":
            return True
        if name == "llvm.call" and not _calls_libdevice(op.operation):
            return True
    return False


def _calls_libdevice(call: ir.Operation) -> bool:
    callee = call.attributes["callee"] if "callee" in call.attributes else None
    return callee is not None and ir.FlatSymbolRefAttr(callee).value.startswith(ROUTINE_PREFIX)


def _mark_not_wrapping(add: ir.Operation) -> None:
    """Replace the counter's *add* by the same addition written ``overflow<nsw>``, marked
    for the libNVVM back end too. The flag is a property the Python bindings cannot set (a
    loop annotation is an attribute they can), so the replacement is parsed: one operation's
    text, where printing and parsing the whole module cost 5-9 ms per kernel."""
    kind = add.result.type
    template = ir.Module.parse(
        f"llvm.func @counter(%a: {kind}, %b: {kind}) {{\n"
        f"  %c = llvm.add %a, %b overflow<nsw> : {kind} {add.location}\n"
        "  llvm.return\n}"
    )
    marked = template.body.operations[0].regions[0].blocks[0].operations[0].operation
    marked.move_before(add)
    for position, operand in enumerate(add.operands):
        marked.operands[position] = operand
    marked.attributes[COUNTED_LOOP_COUNTER] = ir.UnitAttr.get()
    add.result.replace_all_uses_with(marked.result)
    add.erase()


def _counter_increment(block: ir.Block, cfg: Cfg) -> ir.Operation | None:
    """The ``llvm.add`` of the counter of the single-block loop *block*, or None where *block*
    is not such a loop, or one better left to LLVM."""
    operations = list(block.operations)
    branch = operations[-1].operation
    if branch.name != "llvm.cond_br" or len(operations) > LARGEST_BODY or "loop_annotation" in branch.attributes:
        return None
    if list(branch.successors)[0] != block:  # the loop goes on while the comparison holds
        return None
    carried = _back_edge_arguments(branch)
    compare = _defined_in(branch.operands[0], block)
    if compare is None or compare.name != "llvm.icmp":
        return None
    if ir.IntegerAttr(compare.attributes["predicate"]).value != _SIGNED_LESS:
        return None
    following, bound = compare.operands
    add = _defined_in(following, block)
    if add is None or add.name != "llvm.add" or not _invariant(bound, block, carried):
        return None
    counter, step = add.operands
    if _invariant(counter, block, carried):
        counter, step = step, counter
    if not _invariant(step, block, carried) or not isinstance(counter, ir.BlockArgument) or counter.owner != block:
        return None
    if counter.arg_number >= len(carried) or carried[counter.arg_number] != following:
        return None
    if _constant(step) and _constant(bound):
        return None  # LLVM counts it and unrolls it fully or not, as it judges
    if _reads_grid_size(step, set(), cfg) and _writes_global(operations, cfg):
        return None
    return add


def _writes_global(operations: Iterable[ir.OpView], cfg: Cfg) -> bool:
    for op in operations:
        name = op.operation.name
        at = _WRITES.get(name)
        if at is not None and _address_space(op.operation.operands[at], (), cfg) not in _APART:
            return True
        if name == "llvm.inline_asm" and _assembly_may_write(op.operation):
            return True  # a store with a cache hint (cuda.stcs...), a user's asm: where to, unknown
    return False


def _assembly_may_write(asm: ir.Operation) -> bool:
    """Whether inline assembly may write memory: it has side effects and is not a load."""
    if "has_side_effects" not in asm.attributes:
        return False
    text = ir.StringAttr(asm.attributes["asm_string"]).value.lstrip()
    return not text.startswith("ld.")


def _reads_grid_size(value: ir.Value, seen: set[ir.Value], cfg: Cfg) -> bool:
    """Whether *value* (a loop's step) is computed from the grid's size (``nctaid``); *seen*
    holds the values already looked at (a value may be reached by many paths)."""
    if value in seen or len(seen) > _FOLLOWED:
        return False
    seen.add(value)
    if isinstance(value, ir.BlockArgument):
        entering = _entering(value, cfg)
        return entering is not None and _reads_grid_size(entering, seen, cfg)
    op = value.owner.operation
    if op.name.startswith("nvvm.read.ptx.sreg.nctaid."):
        return True
    return any(_reads_grid_size(v, seen, cfg) for v in op.operands)


def _back_edge_arguments(branch: ir.Operation) -> list[ir.Value]:
    """The values the back edge of *branch* (its first successor) passes to the loop's block."""
    return successor_operands(branch)[0]  # type: ignore[return-value]  # a cond_br's operands are known


def _defined_in(value: ir.Value, block: ir.Block) -> ir.Operation | None:
    """The operation in *block* that defines *value*, or None (an argument, or defined elsewhere)."""
    if isinstance(value, ir.BlockArgument):
        return None
    op = value.owner.operation
    return op if op.block == block else None


def _invariant(
    value: ir.Value, block: ir.Block, carried: Sequence[ir.Value], known: dict[ir.Value, bool] | None = None
) -> bool:
    """Whether *value* is the same on every trip of the loop *block*: defined before it, an
    argument the back edge passes back unchanged (lowering carries array descriptors so),
    or computed in the loop from such values alone. *known* holds the answers found so far
    (a value may be reached by many paths)."""
    if isinstance(value, ir.BlockArgument):
        if value.owner != block:
            return True
        return value.arg_number < len(carried) and carried[value.arg_number] == value
    op = _defined_in(value, block)
    if op is None or op.name == "llvm.mlir.constant":
        return True
    known = {} if known is None else known
    if value not in known:
        known[value] = op.name in _PURE and all(_invariant(v, block, carried, known) for v in op.operands)
    return known[value]


def _constant(value: ir.Value) -> bool:
    return not isinstance(value, ir.BlockArgument) and value.owner.operation.name == "llvm.mlir.constant"


def _address_space(value: ir.Value, position: tuple[int, ...], cfg: Cfg, steps: int = _FOLLOWED) -> int | None:
    """The address space the pointer *value* (or the pointer at *position* of the aggregate
    *value*) points into, followed back through address arithmetic, casts, the insertions
    that built an array descriptor and the arguments a block is entered with; None where
    its origin is not found."""
    if steps == 0:
        return None
    text = str(value.type)
    if not position and text.startswith("!llvm.ptr<"):
        return int(text[len("!llvm.ptr<") : -1])
    if isinstance(value, ir.BlockArgument):
        entering = _entering(value, cfg)
        return None if entering is None else _address_space(entering, position, cfg, steps - 1)
    op = value.owner.operation
    name = op.name
    if position:
        if name != "llvm.insertvalue":
            return None
        container, inserted = op.operands
        if tuple(ir.DenseI64ArrayAttr(op.attributes["position"])) == position:
            return _address_space(inserted, (), cfg, steps - 1)
        return _address_space(container, position, cfg, steps - 1)
    if name == "llvm.extractvalue":
        position = tuple(ir.DenseI64ArrayAttr(op.attributes["position"]))
        return _address_space(op.operands[0], position, cfg, steps - 1)
    if name in ("llvm.getelementptr", "llvm.addrspacecast", "llvm.bitcast"):
        return _address_space(op.operands[0], (), cfg, steps - 1)
    if name == "llvm.inttoptr":  # of an llvm.ptrtoint: the pointer itself
        source = _defined_in(op.operands[0], op.block)
        if source is not None and source.name == "llvm.ptrtoint":
            return _address_space(source.operands[0], (), cfg, steps - 1)
    return None


def _entering(argument: ir.BlockArgument, cfg: Cfg) -> ir.Value | None:
    """The value a block's *argument* has on entry to the block: the one every branch from
    another block passes (branches from the block itself pass the argument on unchanged,
    or a value that is not the same on entry); None if they differ or cannot be read."""
    block = argument.owner
    found = None
    for source, passed in cfg.incoming[block]:
        if source == block:
            continue
        if passed is None:
            return None
        value = passed[argument.arg_number]
        if found is not None and value != found:
            return None
        found = value
    if found is not None:
        for source, passed in cfg.incoming[block]:
            if source == block and passed is not None and passed[argument.arg_number] != argument:
                return None  # changed on the way round: not the same on every trip
    return found
