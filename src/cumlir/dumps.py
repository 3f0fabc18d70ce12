"""The debugging dumps of ``@cuda.jit(dump_*=True)`` (``Options.dumps``): what each stage of
a compilation made, printed on stderr as the stage ends. Each prints a copy or a text of
an artefact, so that dumping never changes the code (nor the cache key: options.py)."""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from typing import Any

from mlir import ir

from . import compile_stats
from .codegen import get_backend
from .codegen.disassemble import sass


def after_stage(stage: str, compilation: Any) -> None:
    """Print what *compilation* (a compiler.Compilation) asks for of the stage *stage* it
    has just run."""
    asked = compilation.options.dumps
    if not asked:
        return
    for name, printer in _PRINTERS.get(stage, ()):
        if name in asked:
            printer(compilation)


def after_run(compilation: Any) -> None:
    """``profile_jit``: the stage timings of a compilation that made code, as
    ``CUMLIR_COMPILE_STATS=1`` prints a launched kernel's."""
    if "profile_jit" in compilation.options.dumps and compilation.done in ("codegen", "cubin"):
        print(compile_stats.table(_title(compilation), compilation.timings), file=sys.stderr)


def _title(c: Any) -> str:
    what = c.entry.describe() if c.entry is not None else "module"
    return f"{what} for sm_{c.cc[0]}{c.cc[1]}" if c.cc else what


def _show(c: Any, what: str, text: str) -> None:
    print(f"=== cumlir {what}: {_title(c)} ===\n{text.rstrip()}\n", file=sys.stderr)


def _python_ast(c: Any) -> None:
    # cumlir rewrites no syntax trees: the tree before and after "all the transforms" is the source's
    pyfunc = c.typed.pyfunc
    try:
        source = textwrap.dedent(inspect.getsource(pyfunc))
    except (OSError, TypeError):
        _show(c, "Python AST", f"(the source of {pyfunc.__qualname__} is not available)")
        return
    _show(c, "Python AST", ast.dump(ast.parse(source), indent=2))


def _python_ast_once(c: Any) -> None:
    if "dump_ast" not in c.options.dumps:  # one tree for both switches
        _python_ast(c)


def _numba_ir(c: Any) -> None:
    _show(c, "typed Numba IR", c.typed.dump())


def _mlir(c: Any) -> None:
    _show(c, "MLIR", str(c.module))


def _llvm_ir(c: Any) -> None:
    # translated from a copy: a code generator may annotate the module it translates
    with c.builder.context:
        copy = ir.Module.parse(str(c.module))
        _show(c, "LLVM IR", get_backend(c.options.backend).llvm_ir(copy, c.cc, c.options))


def _ptx(c: Any) -> None:
    if c.code_format == "ptx":
        _show(c, "PTX", c.code)
    else:
        _show(c, "LTO-IR", f"({len(c.code)} bytes of LTO-IR; PTX is made at link time)")


def _cubin(c: Any) -> None:
    try:
        text = sass(c.cubin)
    except (RuntimeError, ImportError) as e:
        text = f"({len(c.cubin)} bytes; no SASS: {e})"
    _show(c, "cubin", text)


_PRINTERS = {
    "typed": (("dump_ast", _python_ast), ("dump_ast_after_all", _python_ast_once), ("dump_numba_ir", _numba_ir)),
    "mlir": (("dump_mlir", _mlir),),
    "llvm": (("dump_llvmir", _llvm_ir),),
    "codegen": (("dump_ptx", _ptx),),
    "cubin": (("dump_cubin", _cubin),),
}
