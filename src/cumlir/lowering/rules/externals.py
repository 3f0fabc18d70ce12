"""Calls of external device functions (``cuda.declare_device``).

They follow Numba's ABI with C linkage, as in Numba-CUDA:
``extern "C" __device__ int NAME(RET* result, ARGS...)``. The caller passes a slot
for the result (a one-byte one for ``void``), ignores the returned status and
reads the result back. The link items of every external function a module calls
are recorded, so that the kernel links them in.
"""

from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import errors, types

from ...typing.externals import ExternalFunction
from ..registry import registry

def _argument(lower, ty, value):
    model = lower.dmm.lookup(ty)
    data = model.as_data(value)
    if isinstance(data.type, ir.MemRefType):
        raise errors.UnsupportedError(f"arrays ({ty}) cannot be passed to external functions; pass a pointer", lower.loc)
    return data


@registry.lower_calls_of(ExternalFunction)
def call_external(lower, external, sig, args):
    lower.module.add_link_items(external.link)
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
