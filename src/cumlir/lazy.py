"""Modules imported on first use: ``types = lazy("numba.core.types")`` at a module's top names
the dependency where it is seen, and costs nothing until an attribute is read. cumlir keeps
numba, MLIR, the CUDA libraries and the array libraries lazy this way, so that ``from cumlir
import cuda``, decorating, and a launch from the disk cache load only what they use
(tests/test_import.py). Only modules outside cumlir are made lazy: cumlir's own imports stay
plain, where the import contracts (pyproject.toml) see them."""

from __future__ import annotations

import importlib
from typing import Any


class lazy:
    """A module imported on first attribute access: ``types = lazy("numba.core.types")``."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name}>"


def loaded(module: lazy) -> Any:
    """The module itself, imported now: for hot paths, where each attribute read through the
    proxy would cost a Python call."""
    if module._module is None:
        module._module = importlib.import_module(module._name)
    return module._module
