"""Parallel loops in kernels (the loops of GPU ufuncs) spread over the threads of the grid.

``linalg`` ops are first lowered to ``scf.parallel`` by MLIR's
``convert-linalg-to-parallel-loops`` (pipeline.py). MLIR's own route from there
(``gpu-map-parallel-loops``, ``convert-parallel-loops-to-gpu``) makes a ``gpu.launch`` in
host code, whose grid is computed on the host from the loop bounds; our loops are already
inside a ``gpu.func`` kernel launched by the runtime, so each ``scf.parallel`` becomes a
grid-stride loop instead: thread ``t`` of ``T`` runs the iterations ``t, t + T, ...`` of the
flattened iteration space, each one's position recovered axis by axis (the last axis
fastest, so neighbouring threads touch neighbouring elements of C-ordered arrays). Any
grid size computes every iteration once.
"""

from mlir import ir
from mlir.dialects import arith, scf

from ..intrinsics.indexing import read_register


def distribute(gpu_module):
    """Turn every outermost scf.parallel of the kernels of *gpu_module* into a grid-stride
    loop, in place."""
    loops = []

    def collect(op):
        if op.name == "scf.parallel":
            loops.append(op)
            return ir.WalkResult.SKIP  # nested loops run inside their thread's iteration
        return ir.WalkResult.ADVANCE

    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name == "gpu.func" and "gpu.kernel" in op.attributes:
            op.operation.walk(collect, ir.WalkOrder.PRE_ORDER)
    for loop in loops:
        _grid_stride(loop)


def _as_index(value):
    return arith.index_castui(ir.IndexType.get(), value)


def _register(register):
    return _as_index(read_register(register, "x"))


def _grid_stride(loop):
    with ir.InsertionPoint(loop), loop.location:
        rank = len(loop.regions[0].blocks[0].arguments)
        lower, upper, step = (list(loop.operands[k * rank : (k + 1) * rank]) for k in range(3))
        trips = [arith.ceildivui(arith.subi(u, l), s) for l, u, s in zip(lower, upper, step)]
        total = trips[0]
        for trip in trips[1:]:
            total = arith.muli(total, trip)
        block_size = _register("blockDim")
        first = arith.addi(arith.muli(_register("blockIdx"), block_size), _register("threadIdx"))
        stride = arith.muli(block_size, _register("gridDim"))
        strided = scf.ForOp(first, total, stride)
        with ir.InsertionPoint(strided.body):
            rest = strided.induction_variable
            positions = [None] * rank
            for axis in reversed(range(rank)):
                if axis:
                    positions[axis] = arith.remui(rest, trips[axis])
                    rest = arith.divui(rest, trips[axis])
                else:
                    positions[axis] = rest
            ivs = [arith.addi(l, arith.muli(p, s)) for l, p, s in zip(lower, positions, step)]
            end = scf.YieldOp([])
    body = loop.regions[0].blocks[0]
    for arg, iv in zip(body.arguments, ivs):
        arg.replace_all_uses_with(iv)
    for op in list(body.operations)[:-1]:  # all but the scf.reduce terminator
        op.move_before(end)
    loop.erase()
