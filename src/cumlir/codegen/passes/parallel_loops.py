"""Parallel loops in kernels (the loops of GPU ufuncs) spread over the threads of the grid.

``linalg`` ops are first lowered to ``scf.parallel`` by MLIR's
``convert-linalg-to-parallel-loops`` (pipeline.py). MLIR's own route from there
(``gpu-map-parallel-loops``, ``convert-parallel-loops-to-gpu``) makes a ``gpu.launch`` in
host code, whose grid is computed on the host from the loop bounds; our loops are already
inside a ``gpu.func`` kernel launched by the runtime, so each ``scf.parallel`` becomes a
grid-stride loop instead: thread ``t`` of ``T`` runs the iterations ``t, t + T, ...`` of the
flattened iteration space, each one's position recovered axis by axis (the last axis
fastest, so neighbouring threads touch neighbouring elements of C-ordered arrays). Any
grid size computes every iteration once. A loop with reductions (``scf.parallel`` with
results) would need the partial results of every thread of the grid combined and handed
back to each: it is left to ``convert-scf-to-cf``, which runs it whole, in order, in each
thread, so that every thread has the loop's result.

An elementwise loop (its body loads, computes and ends in one store) first runs
``ELEMENTS_PER_THREAD`` iterations ``t, t + T, ...`` at a time with the loads of all of them issued
before the first computation: memory-bound ufuncs need loads in flight, and LLVM cannot
move a load above another iteration's store itself (it cannot tell the arrays apart).
Each iteration writes only its own element, so the order changes no result. The
iterations left over run one at a time. GPU ufuncs launch ``1 / ELEMENTS_PER_THREAD`` of a thread
per element (cuda/ufunc_api.py).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from ...operations._support.registers import read_register
from ...ufunc_geometry import ELEMENTS_PER_THREAD as TOGETHER

# operations an iteration's loads may be moved above another iteration's work with
_MOVABLE = ("memref.load", "memref.dim")
_MOVABLE_DIALECTS = ("arith", "index")


def distribute(gpu_module: ir.Operation) -> None:
    """Turn every outermost scf.parallel of the kernels of *gpu_module* into a grid-stride
    loop, in place."""
    loops: list[ir.Operation] = []

    def collect(op: ir.Operation) -> ir.WalkResult:
        if op.name == "scf.parallel":
            if not op.results:  # one with reductions is left whole to each thread (below)
                loops.append(op)
            return ir.WalkResult.SKIP  # nested loops run inside their thread's iteration
        return ir.WalkResult.ADVANCE

    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name == "gpu.func" and "gpu.kernel" in op.attributes:
            op.operation.walk(collect, ir.WalkOrder.PRE_ORDER)
    for loop in loops:
        _grid_stride(loop)


def _as_index(value: ir.Value) -> ir.Value:
    return arith.index_castui(ir.IndexType.get(), value)


def _register(register: str) -> ir.Value:
    return _as_index(read_register(register, "x"))


def _index_constant(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


class _Space:
    """The flattened iteration space of an scf.parallel: each flat index's induction values."""

    def __init__(self, loop: ir.Operation) -> None:
        rank = len(loop.regions[0].blocks[0].arguments)
        self.lower, upper, self.step = (list(loop.operands[k * rank : (k + 1) * rank]) for k in range(3))
        self.trips = [arith.ceildivui(arith.subi(u, low), s) for low, u, s in zip(self.lower, upper, self.step)]
        self.total = self.trips[0]
        for trip in self.trips[1:]:
            self.total = arith.muli(self.total, trip)

    def ivs(self, flat: ir.Value) -> list[ir.Value]:
        positions: list[ir.Value | None] = [None] * len(self.trips)
        for axis in reversed(range(len(self.trips))):
            if axis:
                positions[axis] = arith.remui(flat, self.trips[axis])
                flat = arith.divui(flat, self.trips[axis])
            else:
                positions[axis] = flat
        return [arith.addi(low, arith.muli(p, s)) for low, p, s in zip(self.lower, positions, self.step)]


def _grid_stride(loop: ir.Operation) -> None:
    with ir.InsertionPoint(loop), loop.location:
        space = _Space(loop)
        block_size = _register("blockDim")
        first = arith.addi(arith.muli(_register("blockIdx"), block_size), _register("threadIdx"))
        stride = arith.muli(block_size, _register("gridDim"))
        if _elementwise(loop):
            first = _together(loop, space, first, stride)
        rest = scf.ForOp(first, space.total, stride)
        with ir.InsertionPoint(rest.body):
            end = scf.YieldOp([])
    with ir.InsertionPoint(end), loop.location:
        ivs = space.ivs(rest.induction_variable)
    body = loop.regions[0].blocks[0]
    for arg, iv in zip(body.arguments, ivs):
        arg.replace_all_uses_with(iv)
    for op in list(body.operations)[:-1]:  # all but the scf.reduce terminator
        op.move_before(end)
    loop.erase()


def _elementwise(loop: ir.Operation) -> bool:
    operations = list(loop.regions[0].blocks[0].operations)
    return len(operations) > 1 and operations[-2].name == "memref.store"


def _movable(op: ir.OpView) -> bool:
    name = op.name
    return name in _MOVABLE or name.split(".", 1)[0] in _MOVABLE_DIALECTS


def _together(loop: ir.Operation, space: _Space, first: ir.Value, stride: ir.Value) -> ir.Value:
    """The loop running TOGETHER iterations a thread at a time while all of them exist;
    the flat index of its thread's first iteration left to do."""
    spread = arith.muli(stride, _index_constant(TOGETHER - 1))
    bound = arith.subi(space.total, spread)  # may be negative: scf.for compares signed
    step = arith.muli(stride, _index_constant(TOGETHER))
    main = scf.ForOp(first, bound, step, [first])
    with ir.InsertionPoint(main.body), loop.location:
        flat = main.induction_variable
        end = scf.YieldOp([arith.addi(flat, step)])
    with ir.InsertionPoint(end), loop.location:
        copies = [space.ivs(flat)]
        for _ in range(TOGETHER - 1):
            flat = arith.addi(flat, stride)
            copies.append(space.ivs(flat))
    later = []
    for ivs in copies:
        clone = loop.operation.clone(ir.InsertionPoint(end))
        block = clone.regions[0].blocks[0]
        for arg, iv in zip(block.arguments, ivs):
            arg.replace_all_uses_with(iv)
        operations = list(block.operations)[:-1]
        split = 0
        while split < len(operations) and _movable(operations[split]):
            split += 1
        for op in operations[:split]:  # this iteration's loads, before any iteration's work
            op.move_before(end)
        later.append((clone, operations[split:]))
    for clone, operations in later:
        for op in operations:
            op.move_before(end)
        clone.erase()
    return main.results[0]
