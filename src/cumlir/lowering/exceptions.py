"""Exceptions raised on the device.

Without debug=True, as in Numba-CUDA, raising ends the thread's work quietly. With
debug=True the raise site records a code (its index in the module's exception
table, plus one) and the raising thread's global index in the module's
``cumlir_exception`` variable before ending the thread; the launcher reads it
after the kernel and raises the exception on the host (runtime/kernel.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mlir import ir
from mlir.dialects import arith, gpu, llvm, nvvm

from ..raise_sites import RaiseSite

if TYPE_CHECKING:
    from numba.core import ir as nir

    # function.py and module.py import this module: what is used of theirs is named by protocols
    class _Module(Protocol):
        """What the exception record's declaration uses of the module (module.ModuleBuilder)."""

        body: Any  # the gpu.module's block

        def has_symbol(self, name: str) -> bool: ...

        def claim_symbol(self, name: str) -> None: ...

    class _Lowering(Protocol):
        """What record_raise uses of the MLIRLower (or its BuilderAPI) it is given."""

        module: Any  # module.ModuleBuilder: add_raise_site

    class _Function(Protocol):
        """What end_thread uses of the MLIRLower it is given."""

        kind: str  # "kernel" or "device"


EXCEPTION_GLOBAL = "cumlir_exception"
GLOBAL_ADDRESS_SPACE = 1


def _exception_slot(module: _Module) -> ir.Value:
    """The module's two-word exception record, declared on first use."""
    if not module.has_symbol(EXCEPTION_GLOBAL):
        record = ir.Type.parse("!llvm.array<2 x i64>")
        with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(module.body):
            llvm.GlobalOp(
                record,
                EXCEPTION_GLOBAL,
                ir.Attribute.parse("#llvm.linkage<external>"),
                value=ir.Attribute.parse("dense<0> : tensor<2xi64>"),
                addr_space=GLOBAL_ADDRESS_SPACE,
            )
        module.claim_symbol(EXCEPTION_GLOBAL)
    return llvm.AddressOfOp(llvm.PointerType.get(GLOBAL_ADDRESS_SPACE), EXCEPTION_GLOBAL).result


def _global_thread_index() -> ir.Value:
    i64 = ir.IntegerType.get_signless(64)
    i32 = ir.IntegerType.get_signless(32)

    def wide(op: Callable[[ir.Type], ir.OpView]) -> ir.Value:
        return arith.extui(i64, op(i32).result)

    return arith.addi(arith.muli(wide(nvvm.BlockIdXOp), wide(nvvm.BlockDimXOp)), wide(nvvm.ThreadIdXOp))


def record_raise(
    lower: _Lowering, exc_class: type[BaseException] | None, exc_args: Sequence[Any] | None, loc: nir.Loc | None
) -> None:
    """Store the raise site's code and the thread's index, for the host to report."""
    location = f"{loc.filename}:{loc.line}" if loc is not None else "unknown"
    code = lower.module.add_raise_site(RaiseSite(exc_class or Exception, tuple(exc_args or ()), location))
    i64 = ir.IntegerType.get_signless(64)
    slot = _exception_slot(lower.module)
    second = llvm.getelementptr(llvm.PointerType.get(GLOBAL_ADDRESS_SPACE), slot, [], [1], i64, 0)
    llvm.store(_global_thread_index(), second)
    llvm.store(arith.constant(i64, code), slot)


def end_thread(lower: _Function) -> None:
    """A kernel returns; a device function ends the thread."""
    if lower.kind == "kernel":
        gpu.ReturnOp([])
    else:
        nvvm.exit()
        llvm.unreachable()
