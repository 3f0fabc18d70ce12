"""Reads the public names of numba-cuda-mlir's ``cuda``, ``cuda.experimental``, ``cuda.intrin``
and ``extending`` namespaces from its sources, without importing them (importing would need
its MLIR libraries and register a second CUDA target), and writes tests/numba_cuda_mlir_names.json.

    python -m tests.ncm_names /path/to/numba_cuda_mlir/src > tests/numba_cuda_mlir_names.json

A namespace's names are what ``from namespace import *`` would bind, read statically: its
``__all__`` where it has one, else every name it binds that does not start with ``_``,
following its ``from x import *`` (and theirs). Modules a namespace binds are kept only where
they are numba-cuda-mlir's own and bound on purpose (``import numba_cuda_mlir.x as y``,
``y = importlib.import_module("numba_cuda_mlir.x")``, ``from numba_cuda_mlir import x``);
the standard library's and other packages' modules, which a namespace binds only because its
code uses them, are left out. Names a module serves lazily (a ``__getattr__`` that imports a
submodule by name) count. ``cuda.intrin`` makes most of its functions at import time from
compiled libraries; their names come from its generated stub, ``intrin.pyi``.
"""

import ast
import json
import pathlib
import sys

PACKAGE = "numba_cuda_mlir"

# namespace -> the module that is it
NAMESPACES = {
    "cuda": "numba_cuda_mlir.cuda",
    "cuda.experimental": "numba_cuda_mlir.cuda.experimental",
    "cuda.intrin": "numba_cuda_mlir.cuda.intrin",
    "extending": "numba_cuda_mlir.extending",
}

# modules whose functions are made at import time, named only by their generated stub
STUB_NAMED = frozenset({"numba_cuda_mlir.cuda.intrin"})


class Sources:
    def __init__(self, root):
        self.root = pathlib.Path(root)
        self._bindings = {}

    def path(self, module, suffix=".py"):
        """The file of *module* (a package's __init__), or None outside the sources."""
        if module != PACKAGE and not module.startswith(PACKAGE + "."):
            return None
        base = self.root.joinpath(*module.split("."))
        for candidate in (base.with_suffix(suffix), base / f"__init__{suffix}"):
            if candidate.is_file():
                return candidate
        return None

    def is_module(self, module):
        return self.path(module) is not None

    def absolute(self, module, node):
        """The absolute name of a ``from`` import's module, relative ones resolved."""
        if not node.level:
            return node.module
        path = self.path(module)
        parts = module.split(".")
        package = parts if path is not None and path.name == "__init__.py" else parts[:-1]
        package = package[: len(package) - (node.level - 1)]
        return ".".join(package + ([node.module] if node.module else []))

    def bindings(self, module):
        """({name: True for a numba-cuda-mlir module bound on purpose, None for another
        package's module, False for any other value}, the module's ``__all__`` or None)."""
        if module in self._bindings:
            return self._bindings[module]
        self._bindings[module] = ({}, None)  # a star-import cycle binds nothing more
        tree = ast.parse(self.path(module).read_text())
        names, declared, texts = {}, None, {}
        for node in _top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names[node.name] = False
                if node.name == "__getattr__":
                    names.update(dict.fromkeys(_lazy_names(node), True))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    names[bound] = True if self.is_module(alias.name) else None
            elif isinstance(node, ast.ImportFrom):
                source = self.absolute(module, node)
                for alias in node.names:
                    if alias.name == "*":
                        if self.path(source) is not None:
                            names.update(self.star(source))
                    elif self.is_module(f"{source}.{alias.name}"):
                        names[alias.asname or alias.name] = True
                    else:
                        names[alias.asname or alias.name] = False if self.path(source) is not None else None
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        if target.id == "__all__":
                            declared = _strings(node.value, texts)
                        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                            texts[target.id] = node.value.value
                        names[target.id] = _imported_module(node.value, self)
            elif declared is not None and _edits_all(node):
                method, argument = _edits_all(node)
                if method == "remove" and argument in declared:
                    declared.remove(argument)
                elif method == "append":
                    declared.append(argument)
        if module in MADE_IN_LOOPS:
            declared = MADE_IN_LOOPS[module]()
        self._bindings[module] = (names, declared)
        return self._bindings[module]

    def star(self, module):
        """What ``from module import *`` binds."""
        names, declared = self.bindings(module)
        if declared is not None:
            return {name: names.get(name, self.is_module(f"{module}.{name}")) for name in declared}
        return {name: kind for name, kind in names.items() if not name.startswith("_")}

    def public_names(self, module):
        names, declared = self.bindings(module)
        if declared is not None:
            public = set(declared)
        elif module in STUB_NAMED:
            public = {name for name, kind in self.own_definitions(module).items()}
            stub = ast.parse(self.path(module, ".pyi").read_text())
            public |= {node.name for node in stub.body if isinstance(node, ast.FunctionDef)}
        else:
            public = {name for name, kind in names.items() if kind is not None}
        return sorted(name for name in public if not name.startswith("_"))

    def own_definitions(self, module):
        """The names *module* defines itself (functions, classes, assignments), not imports."""
        tree = ast.parse(self.path(module).read_text())
        own = {}
        for node in _top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own[node.name] = False
            elif isinstance(node, ast.Assign):
                own.update({t.id: False for t in node.targets if isinstance(t, ast.Name)})
        return own


def _top_level(body):
    # statements run on import: the module's own, and those of its top-level try/if blocks
    for node in body:
        if isinstance(node, ast.Try):
            yield from _top_level(node.body)
            for handler in node.handlers:
                yield from _top_level(handler.body)
        elif isinstance(node, ast.If):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        else:
            yield node


def _strings(node, texts=None):
    """The strings a list literal (or a sum of them, or ``TEXT.split()``) holds."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [element.value for element in node.elts if isinstance(element, ast.Constant)]
    if isinstance(node, ast.BinOp):
        return _strings(node.left, texts) + _strings(node.right, texts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in (texts or {})
    ):
        return texts[node.func.value.id].split()
    return []


def _edits_all(node):
    """("remove" or "append", the name) for ``__all__.remove("x")`` / ``__all__.append("x")``."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    if (
        isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "__all__"
        and call.func.attr in ("remove", "append")
        and call.args
        and isinstance(call.args[0], ast.Constant)
    ):
        return call.func.attr, call.args[0].value
    return None


def _vector_type_names():
    # cuda/vector_types.py binds these in a loop: each element type with 1 to 4 lanes
    # (float32x4), and CUDA C's names for them (float4, uchar2, ...); on the 64-bit Linux
    # the package targets, long is 64 bits and int 32
    elements = [f"{kind}{bits}" for kind in ("int", "uint") for bits in (8, 16, 32, 64)] + [
        "float16",
        "float32",
        "float64",
    ]
    c_names = {
        "char": "int8",
        "short": "int16",
        "int": "int32",
        "long": "int64",
        "longlong": "int64",
        "uchar": "uint8",
        "ushort": "uint16",
        "uint": "uint32",
        "ulong": "uint64",
        "ulonglong": "uint64",
        "half": "float16",
        "float": "float32",
        "double": "float64",
    }
    lanes = range(1, 5)
    return [f"{element}x{n}" for element in elements for n in lanes] + [f"{c}{n}" for c in c_names for n in lanes]


# modules whose ``__all__`` is computed in a loop no parser can follow: the names it holds
MADE_IN_LOOPS = {"numba_cuda_mlir.cuda.vector_types": _vector_type_names}


def _lazy_names(function):
    """The names a module's ``__getattr__`` serves: those it compares ``name`` with, or the
    keys of the dict it looks ``name`` up in."""
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In):
            found += _strings(node.comparators[0])
        elif isinstance(node, ast.Dict):
            found += [key.value for key in node.keys if isinstance(key, ast.Constant)]
    return [name for name in found if isinstance(name, str)]


def _imported_module(value, sources):
    """True for ``importlib.import_module("numba_cuda_mlir...")`` (a module bound on purpose),
    None for one of another package, False for any other value."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "import_module"
        and value.args
        and isinstance(value.args[0], ast.Constant)
    ):
        return True if sources.is_module(value.args[0].value) else None
    return False


# the release the sources are of (the unpacked wheel holds no version file of its own)
SOURCE_VERSION = "0.6.0"


def read(root):
    sources = Sources(root)
    names = {"version": SOURCE_VERSION}
    names.update({namespace: sources.public_names(module) for namespace, module in NAMESPACES.items()})
    return names


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.ncm_names NUMBA_CUDA_MLIR_SRC")
    print(json.dumps(read(sys.argv[1]), indent=1))
