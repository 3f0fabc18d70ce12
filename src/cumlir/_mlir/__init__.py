"""Another name for ``cumlir.mlir``, as code written for other MLIR-based Numba compilers spells it."""

from ..mlir import dialects, ir, passmanager  # noqa: F401
