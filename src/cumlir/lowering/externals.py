"""Calls of external device functions (``cuda.declare_device``).

They follow Numba's ABI with C linkage, as in Numba-CUDA:
``extern "C" __device__ int NAME(RET* result, ARGS...)``. The caller passes a slot
for the result (a one-byte one for ``void``), ignores the returned status and
reads the result back. The link items of every external function a module calls
are recorded, so that the kernel links them in.
"""

import weakref

from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import errors, types

from .registry import lower

_link_items = weakref.WeakKeyDictionary()  # ModuleBuilder -> link items of the externals it calls


def link_items(builder):
    """The link items of the external functions called from the module *builder* builds."""
    return list(_link_items.get(builder, ()))


def register(external):
    """Make calls of the ExternalFunction *external* lowerable."""
    lower(external, types.VarArg(types.Any))(_call(external))


def _argument(lower, ty, value):
    model = lower.dmm.lookup(ty)
    data = model.as_data(value)
    if isinstance(data.type, ir.MemRefType):
        raise errors.UnsupportedError(f"arrays ({ty}) cannot be passed to external functions; pass a pointer", lower.loc)
    return data


def _call(external):
    def rule(lower, sig, args):
        recorded = _link_items.setdefault(lower.module, [])
        recorded.extend(item for item in external.link if item not in recorded)
        ret = sig.return_type
        has_result = ret not in (types.none, types.void)
        slot_type = lower.dmm.lookup(ret).get_data_type() if has_result else ir.IntegerType.get_signless(8)
        with lower.alloca_insertion_point():
            one = arith.constant(ir.IntegerType.get_signless(32), 1)
            slot = llvm.AllocaOp(llvm.PointerType.get(), one, slot_type).result
        operands = [slot] + [_argument(lower, ty, value) for ty, value in zip(sig.args, args)]
        lower.call_external(external.name, ir.IntegerType.get_signless(32), operands)
        if not has_result:
            return None
        return lower.dmm.lookup(ret).from_data(llvm.load(slot_type, slot))

    return rule
