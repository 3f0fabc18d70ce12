"""The numba and MLIR modules the intrinsic areas' typers and rules use, each imported on
first use (``from ._modules import types, arith``), so that importing an area stays cheap."""

from ._api import lazy

# numba
types = lazy("numba.core.types")
errors = lazy("numba.core.errors")
templates = lazy("numba.core.typing.templates")
npydecl = lazy("numba.core.typing.npydecl")

# MLIR
ir = lazy("mlir.ir")
arith = lazy("mlir.dialects.arith")
llvm = lazy("mlir.dialects.llvm")
mlir_math = lazy("mlir.dialects.math")
memref = lazy("mlir.dialects.memref")
nvvm = lazy("mlir.dialects.nvvm")
scf = lazy("mlir.dialects.scf")

# cumlir's own types (numba's, plus bfloat16)
cumlir_types = lazy("cumlir.types")
linalg = lazy("mlir.dialects.linalg")
