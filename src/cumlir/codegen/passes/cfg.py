"""The control flow of a function in the LLVM dialect, read once for the loop passes: the
Python bindings list a block's operations anew on every walk, so a pass asking of each
block argument where it comes from would walk the whole function for each question."""

from __future__ import annotations

from mlir import ir


def successor_operands(branch: ir.Operation) -> list[list[ir.Value] | None]:
    """The operands *branch* passes to each of its successors (None where unknown)."""
    operands = list(branch.operands)
    if branch.name == "llvm.br":
        return [operands]
    if branch.name == "llvm.cond_br":
        sizes = list(ir.DenseI32ArrayAttr(branch.attributes["operandSegmentSizes"]))
        return [operands[1 : 1 + sizes[1]], operands[1 + sizes[1] :]]
    return [None] * len(list(branch.successors))


class Cfg:
    """A function's blocks (the entry first), each one's terminator and predecessors, and the
    edges into each: (the block branching, the operands it passes, or None where unknown)."""

    def __init__(self, region: ir.Region) -> None:
        self.blocks: list[ir.Block] = list(region.blocks)
        self.terminator: dict[ir.Block, ir.Operation] = {b: list(b.operations)[-1].operation for b in self.blocks}
        self.predecessors: dict[ir.Block, list[ir.Block]] = {b: [] for b in self.blocks}
        self.incoming: dict[ir.Block, list[tuple[ir.Block, list[ir.Value] | None]]] = {b: [] for b in self.blocks}
        for b in self.blocks:
            branch = self.terminator[b]
            for successor, passed in zip(branch.successors, successor_operands(branch)):
                self.predecessors[successor].append(b)
                self.incoming[successor].append((b, passed))
