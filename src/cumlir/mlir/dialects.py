"""MLIR's dialect modules, each imported on first use (``from cumlir.mlir.dialects import llvm``)."""

import importlib
from types import ModuleType as _ModuleType  # underscored: public names here are MLIR's


def __getattr__(name: str) -> _ModuleType:
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        module = importlib.import_module(f"mlir.dialects.{name}")
    except ImportError as e:
        raise AttributeError(f"MLIR has no dialect module {name!r}") from e
    globals()[name] = module
    return module
