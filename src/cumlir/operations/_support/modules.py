"""The numba and MLIR modules the operation modules' typers and rules use, each imported
on first use (``from ._modules import types, arith``), so that importing an operation
module stays cheap."""

from .api import lazy

# numba, and cumlir's types (numba's, plus bfloat16 and the vector types)
types = lazy("cumlir.types")
errors = lazy("numba.core.errors")
templates = lazy("numba.core.typing.templates")
npydecl = lazy("numba.core.typing.npydecl")
arraydecl = lazy("numba.core.typing.arraydecl")
npdatetime_helpers = lazy("numba.np.npdatetime_helpers")

# MLIR
ir = lazy("mlir.ir")
arith = lazy("mlir.dialects.arith")
cf = lazy("mlir.dialects.cf")
cx = lazy("mlir.dialects.complex")
func = lazy("mlir.dialects.func")
gpu = lazy("mlir.dialects.gpu")
linalg = lazy("mlir.dialects.linalg")
llvm = lazy("mlir.dialects.llvm")
memref = lazy("mlir.dialects.memref")
mlir_math = lazy("mlir.dialects.math")
nvvm = lazy("mlir.dialects.nvvm")
scf = lazy("mlir.dialects.scf")
ub = lazy("mlir.dialects.ub")

# cumlir's data models
models = lazy("cumlir.models")
