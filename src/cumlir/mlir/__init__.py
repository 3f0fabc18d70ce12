"""The MLIR Python bindings cumlir builds with, for lowering callbacks:
``from cumlir.mlir import ir`` and ``from cumlir.mlir.dialects import llvm, nvvm, arith, ...``.
"""

from mlir import ir, passmanager  # noqa: F401

from . import dialects  # noqa: F401
