"""The code generators, by name: the registry ``Options.backend`` is checked against and the
compiler finds each code generator from.

Each name maps to the package defining its ``BACKEND`` (a ``codegen.backend.Backend``),
``codegen/<name>/`` for cumlir's own; adding one is that folder and one line here
(docs/architecture.md, "Adding a code generator"). Only names live here: the options are
checked without importing ``codegen``, and ``codegen.backend.get`` imports a package when
a compilation first asks for it.
"""

from __future__ import annotations

REGISTRY: dict[str, str] = {
    "nvptx": "cumlir.codegen.nvptx",  # LLVM's NVPTX back end in process (the default)
    "nvvm": "cumlir.codegen.nvvm",  # libNVVM: PTX, and the only maker of LTO-IR
}
DEFAULT = "nvptx"  # unless CUMLIR_BACKEND names another (options.py)


def check(name: object) -> str:
    """*name* if a code generator is registered under it; raises ValueError otherwise."""
    if name not in REGISTRY or not isinstance(name, str):
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(REGISTRY)}")
    return name
