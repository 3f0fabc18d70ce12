"""The MLIR side of cumlir, in one package:

- the bindings cumlir builds with, as lowering callbacks import them: ``from cumlir.mlir
  import ir`` and ``from cumlir.mlir.dialects import llvm, nvvm, arith, ...`` (each loaded
  on first use, so that importing this package loads no MLIR);
- ``contexts.py``: each thread's MLIR context and its pass managers;
- ``helpers.py`` and ``type_conversions.py``: helpers for extensions' lowering callbacks
  (constants, conversions, Numba types to MLIR types and back).

``cumlir._mlir`` and ``cumlir.lowering_utilities`` are other names of the bindings and of the
helpers, as code written for numba-cuda-mlir spells them.
"""

import importlib
from types import ModuleType as _ModuleType  # underscored: public names here are MLIR's


def __getattr__(name: str) -> _ModuleType:
    if name in ("ir", "passmanager"):
        module = importlib.import_module(f"mlir.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'cumlir.mlir' has no attribute {name!r}")
