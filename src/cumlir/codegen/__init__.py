"""Code generation: the MLIR passes of the ``optimized`` and ``llvm`` stages (passes/), the
code generators, one package each (nvptx/, nvvm/; their interface is backend.py), and two
tools: targets.py (chips, PTX versions, code formats; read by the passes, the code
generators, the linker and NVRTC) and disassemble.py (SASS of cubins, by nvdisasm).

The code generators are found by name from the registry in ``cumlir/backends.py``; a
package is imported when a compilation first asks for it (they import MLIR), so importing
this package costs nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ..backends import REGISTRY, check

if TYPE_CHECKING:
    from .backend import Backend


def get_backend(name: str | None) -> Backend:
    """The code generator registered as *name* (a ``backend.Backend``); *name* is
    ``Options.backend``, a registered name once the options are built (None is refused as
    any unregistered name is)."""
    return importlib.import_module(REGISTRY[check(name)].package).BACKEND


def backend_for(name: str | None, code_format: str) -> Backend:
    """The code generator that makes *code_format* when the options ask for *name*: that one
    if it emits the format, else the first registered one that does (LTO-IR comes from
    libNVVM whichever code generator makes PTX)."""
    chosen = get_backend(name)
    if code_format in chosen.formats:
        return chosen
    for other in map(get_backend, REGISTRY):
        if code_format in other.formats:
            return other
    raise ValueError(f"no code generator makes {code_format!r}; registered: {', '.join(REGISTRY)}")
