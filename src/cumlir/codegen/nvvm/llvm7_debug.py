"""Debug information for the LLVM 7 printer. Line tables (lineinfo=True): each
instruction carries the Python source line of the op it came from, and libNVVM turns
them into ``.loc`` directives (line tables need no libNVVM option, only this metadata).
Full debug information (debug=True, libNVVM's ``-g``) adds the variables the module
declares (llvm7_di.py), so that cuda-gdb breaks at a line and prints them."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Protocol

from . import llvm7_di

if TYPE_CHECKING:
    from mlir import ir

    class _Module(Protocol):
        """What debug information uses of the module's printer (llvm7.ModulePrinter, which imports this module)."""

        named_metadata: dict[str, list[str]]

        def node(self, text: str) -> str: ...

        def shared_node(self, text: str) -> str: ...


_FILE_LINE = re.compile(r'"([^"]+)":(\d+):(\d+)')


def source_position(op: ir.Operation) -> tuple[str, int, int] | None:
    """(file, line, column) of the first file position in an op's location, or None."""
    m = _FILE_LINE.search(str(op.location))
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def _first_position(function: ir.Operation) -> tuple[str, int, int] | None:
    """The first source position inside a function whose own location is unknown."""
    for block in function.regions[0].blocks:
        for op in block.operations:
            position = source_position(op.operation)
            if position:
                return position
    return None


class LineTables:
    def __init__(self, module: _Module, variables: bool = False) -> None:
        self.module = module  # a ModulePrinter: its node() numbers metadata
        self.variables = variables
        self.file_of_scope: dict[str, str] = {}  # subprogram reference -> its file node
        self.files: dict[str, str] = {}  # source path -> its file node
        self.unit: str | None = None  # the compile unit's node
        self.locations: dict[tuple[str, int, int], str] = {}  # (scope, line, column) -> its location node

    def _file(self, path: str) -> str:
        node = self.files.get(path)
        if node is None:
            directory, name = os.path.split(path)
            node = self.files[path] = self.module.node(f'!DIFile(filename: "{name}", directory: "{directory}")')
        return node

    def subprogram(self, symbol: str, op: ir.Operation) -> tuple[str, int]:
        """The DISubprogram of function *symbol*, and its line (the fallback for unknown positions)."""
        path, line, _ = source_position(op) or _first_position(op) or ("<unknown>", 0, 0)
        file = self._file(path)
        if self.unit is None:
            self.unit = self.module.node(
                f'distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: {file}, producer: "cumlir", '
                f"isOptimized: true, runtimeVersion: 0, emissionKind: {'FullDebug' if self.variables else 'LineTablesOnly'})"
            )
            self.module.named_metadata["llvm.dbg.cu"] = [self.unit]
            flag = self.module.node('!{i32 2, !"Debug Info Version", i32 3}')
            self.module.named_metadata["llvm.module.flags"] = [flag]
        kind = self.module.node("!DISubroutineType(types: !{})")
        scope = self.module.node(
            f'distinct !DISubprogram(name: "{symbol}", scope: {file}, file: {file}, line: {line}, type: {kind}, '
            f"isLocal: false, isDefinition: true, scopeLine: {line}, isOptimized: true, unit: {self.unit})"
        )
        self.file_of_scope[scope] = file
        return scope, line

    def variable(self, attribute_text: str, scope: str) -> str:
        """The DILocalVariable of a ``dbg.declare``'s variable attribute, in function *scope*."""
        return llvm7_di.local_variable(self.module, attribute_text, scope, self.file_of_scope[scope])

    def location(self, op: ir.Operation, scope: str, fallback_line: int) -> str:
        """``, !dbg !N`` for an instruction printed from *op* inside *scope*."""
        position = source_position(op)
        line, column = (position[1], position[2]) if position else (fallback_line, 0)
        key = (scope, line, column)
        node = self.locations.get(key)
        if node is None:
            node = self.locations[key] = self.module.node(
                f"!DILocation(line: {line}, column: {column}, scope: {scope})"
            )
        return f", !dbg {node}"
