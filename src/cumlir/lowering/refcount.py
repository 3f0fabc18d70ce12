"""Reference counting of arrays owned by the device runtime (docs/nrt.md).

An array made by the runtime keeps its MemInfo in the memref descriptor's allocated
pointer, its data in the aligned pointer; every other array has the two equal. The
module's two helpers, ``cumlir_nrt_incref`` / ``cumlir_nrt_decref`` (allocated, aligned),
call the runtime only for owned arrays. They are defined when the module is finished
(``finish``): calling the runtime when the compilation links it, else doing nothing, so
that LLVM removes every trace of reference counting from code that never allocates.

``MLIRLower`` calls ``incref``/``decref`` on values of any type: the arrays a value holds
(itself, members of tuples, the arrays iterators walk) are found through the data models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mlir import ir
from mlir.dialects import arith, builtin, cf, func, llvm
from numba.core import errors

from .. import nrt
from ..models import ArrayModel, BoundFunctionModel, CompositeModel, StructModel

if TYPE_CHECKING:
    from numba.core import ir as nir
    from numba.core import types

    from ..models import DataModelManager
    from ..operations._support.builder import MLIRType, NumbaType, Value
    from ..options import Options

    class _Module(Protocol):
        """What the helpers' declarations use of the module (module.ModuleBuilder, which
        imports this module: named by this protocol, not imported)."""

        body: Any  # the gpu.module's block

        def declare_function(
            self, name: str, arg_types: Sequence[MLIRType], result_types: Sequence[MLIRType]
        ) -> str: ...

    class _Lowering(Protocol):
        """What these functions use of the MLIRLower (or its BuilderAPI) they are given."""

        loc: nir.Loc | None
        refcounting: bool
        dmm: Any
        func_ir: nir.FunctionIR
        module: Any  # module.ModuleBuilder: allocates, refcount_helper
        refcount_calls: list[tuple[Any, ...]]

        @property
        def options(self) -> Options: ...

        def get_mlir_type(self, numba_type: NumbaType) -> MLIRType: ...

        def mark_fresh(self, value: Value) -> Value: ...


MEMINFO_DATA_OFFSET = 24  # NRT_MemInfo's data field: after refct, dtor and dtor_info (nrt.cuh)
INCREF = "cumlir_nrt_incref"
DECREF = "cumlir_nrt_decref"
_RUNTIME_OF = {INCREF: nrt.INCREF, DECREF: nrt.DECREF}


def _i64() -> ir.IntegerType:
    return ir.IntegerType.get_signless(64)


def descriptor_type(ndim: int) -> ir.Type:
    """The LLVM struct MLIR lowers a rank-*ndim* memref to: allocated and aligned pointers,
    offset, sizes, strides."""
    fields = [llvm.PointerType.get(), llvm.PointerType.get(), _i64()]
    if ndim:
        fields += [ir.Type.parse(f"!llvm.array<{ndim} x i64>")] * 2
    return llvm.StructType.get_literal(fields)


def memref_from_descriptor(
    memref_type: ir.Type,
    allocated: ir.Value,
    aligned: ir.Value,
    offset: ir.Value,
    sizes: Sequence[ir.Value],
    strides: Sequence[ir.Value],
) -> ir.Value:
    """A memref of *memref_type* with the given descriptor fields (i64 offset, sizes, strides)."""
    descriptor = llvm.mlir_poison(descriptor_type(len(sizes)))
    for position, value in [([0], allocated), ([1], aligned), ([2], offset)]:
        descriptor = llvm.insertvalue(descriptor, value, ir.DenseI64ArrayAttr.get(position))
    for field, values in ((3, sizes), (4, strides)):
        for k, value in enumerate(values):
            descriptor = llvm.insertvalue(descriptor, value, ir.DenseI64ArrayAttr.get([field, k]))
    return builtin.unrealized_conversion_cast([memref_type], [descriptor])


def pointers(memref_value: ir.Value) -> list[ir.Value]:
    """(allocated, aligned) pointers of a memref."""
    rank = ir.MemRefType(memref_value.type).rank
    descriptor = builtin.unrealized_conversion_cast([descriptor_type(rank)], [memref_value])
    ptr = llvm.PointerType.get()
    return [llvm.extractvalue(ptr, descriptor, ir.DenseI64ArrayAttr.get([k])) for k in (0, 1)]


def unowned(memref_value: ir.Value) -> ir.Value:
    """The same memref with its allocated pointer set to its aligned one: what the helpers take
    for memory the runtime does not own (globals' allocated pointers are a dummy address)."""
    memref_type = memref_value.type
    rank = ir.MemRefType(memref_type).rank
    descriptor = builtin.unrealized_conversion_cast([descriptor_type(rank)], [memref_value])
    aligned = llvm.extractvalue(llvm.PointerType.get(), descriptor, ir.DenseI64ArrayAttr.get([1]))
    descriptor = llvm.insertvalue(descriptor, aligned, ir.DenseI64ArrayAttr.get([0]))
    return builtin.unrealized_conversion_cast([memref_type], [descriptor])


def null_memref(memref_type: ir.Type) -> ir.Value:
    """A memref owning nothing (both pointers null): the value of an array variable on a path
    that never assigned it, which a decref must find harmless."""
    rank = ir.MemRefType(memref_type).rank
    null = llvm.mlir_zero(llvm.PointerType.get())
    zero = llvm.mlir_zero(_i64())
    return memref_from_descriptor(memref_type, null, null, zero, [zero] * rank, [zero] * rank)


class WideAddressesNeeded(errors.NumbaError):
    """Code lowered with 32-bit element offsets (index_bits=32) makes an array whose byte
    span is not known below 2**31 (over a raw pointer, on the device heap, a large global):
    the compiler lowers the module again with 64-bit offsets (compiler.py)."""


def require_wide_addresses(lower: _Lowering, what: str) -> None:
    """*what* makes an array of unknown span: with 32-bit offsets, ask for 64."""
    if lower.options.narrow_addresses:
        raise WideAddressesNeeded(what, lower.loc)


class RuntimeNeeded(errors.NumbaError):
    """Code lowered without reference counting needs the runtime while NRT is automatic
    (nrt=None): the compiler lowers the module again with NRT on (compiler.py)."""


def require_nrt(lower: _Lowering, what: str) -> None:
    """*what* (code needing the runtime) at its line: with NRT automatic and not yet on, ask
    for it (RuntimeNeeded); switched off (nrt=False), refuse it."""
    if lower.refcounting:
        return
    if lower.options.nrt is None:
        raise RuntimeNeeded(what, lower.loc)
    name = lower.func_ir.func_id.func_qualname
    raise errors.LoweringError(
        f"{what} in device code needs NRT, which nrt=False (or CUMLIR_ENABLE_NRT=0) switches off; "
        f"leave nrt unset or set it to True (in function {name})",
        lower.loc,
    )


def meminfo_array(
    lower: _Lowering,
    array_type: types.Type,
    meminfo: ir.Value,
    sizes: Sequence[ir.Value],
    strides: Sequence[ir.Value] | None = None,
) -> ir.Value:
    """An array of *array_type* over the data of the MemInfo *meminfo*, owning the reference
    the caller holds (C-contiguous strides unless given)."""
    require_nrt(lower, "an array owned by the device runtime")
    require_wide_addresses(lower, "an array on the device heap")  # its size is known only when it runs
    ptr = llvm.PointerType.get()
    field = llvm.getelementptr(ptr, meminfo, [], [MEMINFO_DATA_OFFSET], ir.IntegerType.get_signless(8), 0)
    data = llvm.load(ptr, field)
    zero = arith.constant(_i64(), 0)
    if strides is None:
        strides, step = [], arith.constant(_i64(), 1)
        for size in reversed(sizes):
            strides.insert(0, step)
            step = arith.muli(step, size)
    lower.module.allocates = True
    memref_type = lower.get_mlir_type(array_type)
    return lower.mark_fresh(memref_from_descriptor(memref_type, meminfo, data, zero, sizes, strides))


def owned_arrays(dmm: DataModelManager, fe_type: types.Type, value: Any) -> list[ir.Value]:
    """The memrefs of arrays a value of Numba type *fe_type* holds (itself, tuple members,
    the array an iterator walks, the receiver a method is bound to)."""
    model = dmm.lookup(fe_type)
    if isinstance(model, ArrayModel):
        return [value]
    if isinstance(model, BoundFunctionModel):
        return owned_arrays(dmm, fe_type.this, value)  # type: ignore[attr-defined]  # a BoundFunction
    if isinstance(model, CompositeModel) or (isinstance(model, StructModel) and model.held_apart):
        parts = (
            model.part_models() if isinstance(model, CompositeModel) else [dmm.lookup(t) for t in model.member_types()]
        )
        return [
            memref
            for part, member in zip(parts, value)
            if part.fe_type is not None and part.has_value
            for memref in owned_arrays(dmm, part.fe_type, member)
        ]
    return []


def holds_arrays(dmm: DataModelManager, fe_type: types.Type) -> bool:
    model = dmm.lookup(fe_type)
    if isinstance(model, ArrayModel):
        return True
    if isinstance(model, BoundFunctionModel):  # ``a.copy`` holds ``a``, which must outlive the call
        return holds_arrays(dmm, fe_type.this)  # type: ignore[attr-defined]
    if isinstance(model, CompositeModel):
        return any(p.fe_type is not None and p.has_value and holds_arrays(dmm, p.fe_type) for p in model.part_models())
    if isinstance(model, StructModel) and model.held_apart:
        return any(holds_arrays(dmm, t) for t in model.member_types())
    return False


def incref(lower: _Lowering, fe_type: types.Type, value: Any) -> None:
    _call_helper(lower, INCREF, fe_type, value)


def decref(lower: _Lowering, fe_type: types.Type, value: Any) -> None:
    _call_helper(lower, DECREF, fe_type, value)


def _call_helper(lower: _Lowering, helper: str, fe_type: types.Type, value: Any) -> None:
    for memref_value in owned_arrays(lower.dmm, fe_type, value):
        symbol = lower.module.refcount_helper(helper)
        call = func.CallOp([], ir.FlatSymbolRefAttr.get(symbol), pointers(memref_value))
        lower.refcount_calls.append((helper, call.operation, memref_value))


def prune(calls: Iterable[tuple[Any, ...]]) -> int:
    """Remove each reference taken and given back on the same memref value in one block with
    nothing between them that could give back a reference or free memory (a call other than
    an incref, an operation holding regions). Returns how many pairs went."""
    memref_of = {call: (helper, memref) for helper, call, memref in calls}
    removed = 0
    for helper, call, memref in calls:
        if helper != INCREF or call not in memref_of:
            continue
        partner = _matching_decref(call, memref, memref_of)
        if partner is not None:
            for op in (call, partner):
                del memref_of[op]
                op.erase()
            removed += 1
    return removed


def _matching_decref(
    incref_call: ir.Operation, memref: ir.Value, memref_of: Mapping[ir.Operation, tuple[str, ir.Value]]
) -> ir.Operation | None:
    following = False
    for op in incref_call.block.operations:
        op = op.operation
        if not following:
            following = op == incref_call
            continue
        found = memref_of.get(op)
        if found is not None:
            helper, other = found
            if helper == DECREF and other == memref:
                return op
            if helper == DECREF:
                return None
            continue
        if op.name == "func.call" or op.regions:
            return None
    return None


def declare_helper(module: _Module, helper: str) -> func.FuncOp:
    """The helper *helper* as a private function doing nothing (``finish`` fills it in)."""
    ptr = llvm.PointerType.get()
    with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(module.body):
        op = func.FuncOp(helper, ir.FunctionType.get([ptr, ptr], []), visibility="private")
        op.attributes["llvm.linkage"] = ir.Attribute.parse("#llvm.linkage<internal>")
        entry = op.body.blocks.append(ptr, ptr)
        with ir.InsertionPoint(entry):
            func.ReturnOp([])
    return op


def finish(module: _Module, helpers: Mapping[str, func.FuncOp], linked: bool) -> None:
    """Give the helpers their bodies: calls into the runtime if it is *linked*, else none."""
    if not linked:
        return
    for name, op in helpers.items():
        runtime_symbol = module.declare_function(_RUNTIME_OF[name], [llvm.PointerType.get()], [])
        entry = op.body.blocks[0]
        if len(op.body.blocks) > 1:
            continue  # already filled in
        entry.operations[0].erase()  # the empty body's return
        allocated, aligned = entry.arguments
        call_block = op.body.blocks.append()
        done = op.body.blocks.append()
        with ir.Location.unknown():
            with ir.InsertionPoint(entry):
                owned = llvm.icmp(llvm.ICmpPredicate.ne, allocated, aligned)
                cf.CondBranchOp(owned, [], [], call_block, done)
            with ir.InsertionPoint(call_block):
                func.CallOp([], ir.FlatSymbolRefAttr.get(runtime_symbol), [allocated])
                cf.BranchOp([], done)
            with ir.InsertionPoint(done):
                func.ReturnOp([])
