"""MLIR's dialect modules, each imported on first use (``from cumlir.mlir.dialects import llvm``)."""

import importlib


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        module = importlib.import_module(f"mlir.dialects.{name}")
    except ImportError as e:
        raise AttributeError(f"MLIR has no dialect module {name!r}") from e
    globals()[name] = module
    return module
