"""Line tables for the LLVM 7 printer (lineinfo=True): each instruction carries the
Python source line of the op it came from, and libNVVM turns them into ``.loc``
directives (line tables need no libNVVM option, only this metadata)."""

import os
import re

_FILE_LINE = re.compile(r'"([^"]+)":(\d+):(\d+)')


def source_position(op):
    """(file, line, column) of the first file position in an op's location, or None."""
    m = _FILE_LINE.search(str(op.location))
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def _first_position(function):
    """The first source position inside a function whose own location is unknown."""
    for block in function.regions[0].blocks:
        for op in block.operations:
            position = source_position(op.operation)
            if position:
                return position
    return None


class LineTables:
    def __init__(self, module):
        self.module = module  # a ModulePrinter: its node() numbers metadata
        self.files = {}
        self.unit = None
        self.locations = {}

    def _file(self, path):
        node = self.files.get(path)
        if node is None:
            directory, name = os.path.split(path)
            node = self.files[path] = self.module.node(f'!DIFile(filename: "{name}", directory: "{directory}")')
        return node

    def subprogram(self, symbol, op):
        """The DISubprogram of function *symbol*, and its line (the fallback for unknown positions)."""
        path, line, _ = source_position(op) or _first_position(op) or ("<unknown>", 0, 0)
        file = self._file(path)
        if self.unit is None:
            self.unit = self.module.node(
                f'distinct !DICompileUnit(language: DW_LANG_C99, file: {file}, producer: "cumlir", '
                "isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)"
            )
            self.module.named_metadata["llvm.dbg.cu"] = [self.unit]
            flag = self.module.node('!{i32 2, !"Debug Info Version", i32 3}')
            self.module.named_metadata["llvm.module.flags"] = [flag]
        kind = self.module.node("!DISubroutineType(types: !{})")
        scope = self.module.node(
            f'distinct !DISubprogram(name: "{symbol}", scope: {file}, file: {file}, line: {line}, type: {kind}, '
            f"isLocal: false, isDefinition: true, scopeLine: {line}, isOptimized: true, unit: {self.unit})"
        )
        return scope, line

    def location(self, op, scope, fallback_line):
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
