"""The interface of a code generator (docs/architecture.md, "Adding a code generator").

A code generator turns the module the ``llvm`` stage leaves (a gpu.module in the LLVM
dialect) into the code nvJitLink links: PTX text, or LTO-IR. Each lives in its own package
of ``codegen/`` defining ``BACKEND``, an instance of a subclass of ``Backend``, and is
registered by name in ``cumlir/backends.py``; the compiler finds it with
``codegen.get_backend(options.backend)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlir import ir

    from ..options import Options


class Backend:
    """A code generator. A subclass sets ``name`` and ``formats`` and defines ``code`` and
    ``llvm_ir``; ``prepare`` and ``keeps_line_tables`` have defaults."""

    name: str | None = None  # its name in backends.REGISTRY, and Options.backend's value
    formats: tuple[str, ...] = ("ptx",)  # the code formats it emits (of targets.CODE_FORMATS)

    def prepare(self, module: ir.Module, options: Options) -> None:
        """What it needs done to *module* (in place) at the end of the ``llvm`` stage, after
        the passes every code generator shares; nothing by default. The module is then what
        ``code`` and ``llvm_ir`` get."""

    def code(self, module: ir.Module, cc: tuple[int, int], options: Options, code_format: str) -> str | bytes:
        """The code of *module* (after the ``llvm`` stage) for the chip *cc*, in *code_format*,
        one of ``formats``: PTX text (str) or LTO-IR (bytes). It may consume the module."""
        raise NotImplementedError

    def llvm_ir(self, module: ir.Module, cc: tuple[int, int], options: Options) -> str:
        """The LLVM IR text it compiles for *module* (after the ``llvm`` stage): what
        ``--emit llvm`` and ``cuda.compile(output="llvm")`` give."""
        raise NotImplementedError

    def keeps_line_tables(self, cc: tuple[int, int]) -> bool:
        """Whether ``lineinfo=True`` or ``debug=True`` give its code for *cc* line tables (the
        PTX's ``.file``/``.loc``)."""
        return False
