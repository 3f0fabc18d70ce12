"""External device functions declared with ``cuda.declare_device``: defined outside
cumlir (CUDA C++, PTX, ...) and called by their C name.

They follow Numba's ABI with C linkage, as in Numba-CUDA:
``extern "C" __device__ int NAME(RET* result, ARGS...)``. The caller passes a slot
for the result (a one-byte one for ``void``), ignores the returned status and
reads the result back. The link items of every external function a module calls
are recorded, so that the kernel links them in.
"""

import re

from ...options import link_digest
from .._support.api import calls_of
from .._support.modules import arith, errors, ir, llvm, templates, types

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ExternalFunction:
    """A device function defined outside cumlir, of one signature (a numba Signature).

    Kernels see it through numba's ``_numba_type_`` protocol as a function of that one
    signature; its calls are lowered by the rule below, for every ExternalFunction.
    """

    def __init__(self, name, signature, link):
        self.check_name(name)
        self.name = name
        self.__name__ = name
        self.signature = signature
        self.link = list(link)
        self._type = None

    def __reduce__(self):
        # its numba type is made again where it is first used: it holds a class made here
        return ExternalFunction, (self.name, self.signature, self.link)

    @staticmethod
    def check_name(name):
        if not isinstance(name, str) or not _C_IDENTIFIER.match(name):
            raise ValueError(f"declare_device: {name!r} is not a C identifier")

    def __repr__(self):
        return f"<external device function {self.name}{self.signature}>"

    def cache_key(self):
        """What kernels calling it depend on: its name, signature and the link items' contents."""
        return f"{self.name}{self.signature};link={[link_digest(item) for item in self.link]}"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.name} is an external device function: call it from a kernel or device function")

    @property
    def _numba_type_(self):
        if self._type is None:
            body = {"key": self, "cases": [self.signature]}
            self._type = types.Function(type(f"ExternalTemplate_{self.name}", (templates.ConcreteTemplate,), body))
        return self._type


def _argument(lower, ty, value):
    model = lower.dmm.lookup(ty)
    data = model.as_data(value)
    if isinstance(data.type, ir.MemRefType):
        raise errors.UnsupportedError(
            f"arrays ({ty}) cannot be passed to external functions; pass a pointer", lower.loc
        )
    return data


@calls_of(ExternalFunction)
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
