"""The compiler's stages by name, and what each output a user may ask for comes from: plain
data, so that the command line, ``cuda.compile`` and the dispatcher name them without
loading the compiler (compiler.py runs them)."""

from __future__ import annotations

from collections.abc import Collection

STAGES = ("typed", "mlir", "optimized", "llvm", "codegen", "cubin")
# what a user may ask for -> the stage that produces it (ptx and ltoir: the code formats of codegen)
OUTPUTS: dict[str, str] = {
    "typed": "typed",
    "mlir": "mlir",
    "optimized": "optimized",
    "llvm": "llvm",
    "ptx": "codegen",
    "ltoir": "codegen",
    "cubin": "cubin",
}
# what cuda.compile gives to other languages' toolchains
LIBRARY_OUTPUTS = ("ptx", "ltoir", "llvm")


def check_choice(what: str, value: str, choices: Collection[str]) -> str:
    """*value* if it is one of *choices*, else ValueError naming *what* and the choices."""
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose one of {', '.join(map(repr, choices))}")
    return value
