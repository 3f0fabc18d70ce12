"""Every operation cumlir compiles, one module per area: each module holds its operations'
typing and lowering side by side, declared with the one API of ``_api.py`` (see
docs/architecture.md, "Adding an operation"): the ``cuda`` intrinsics (stubs), the
``math`` and ``cmath`` modules, NumPy, operators on every type, arrays, records, ...

This package is the registry of the modules: every module here whose name does not start
with ``_`` is an operation module, found by :func:`modules`; nothing lists them by hand.
The typing context (``typing/operations.py``), the lowering registry
(``lowering/operations.py``), the ``cuda`` namespace and the LLVM 7 printer's tables
(``codegen/intrinsics_nvvm.py``) read them through the functions below. Importing an
operation module loads neither numba nor MLIR; modules whose name starts with ``_`` are
helpers the operation modules share.
"""

from __future__ import annotations

import importlib
import os
import sys

from ._api import (
    Attribute,
    Conversion,
    Implementation,
    InstanceCalls,
    Method,
    Namespace,
    Operation,
    Register,
    Stub,
    attribute,
    calls_of,
    cast,
    constant,
    declare,
    implementation,
    lazy,
    method,
    named_type,
    nvvm_ops,
    resolve,
    resolve_key,
)
from ._api import declarations as _declarations
from ._api import nvvm as _nvvm

__all__ = [
    "Attribute",
    "Conversion",
    "Implementation",
    "InstanceCalls",
    "Method",
    "Namespace",
    "Operation",
    "Register",
    "Stub",
    "attribute",
    "calls_of",
    "cast",
    "constant",
    "declare",
    "implementation",
    "lazy",
    "method",
    "named_type",
    "nvvm_ops",
    "resolve",
    "resolve_key",
    "discover",
]


def discover(package, path):
    """Import every module of the package named *package* (whose ``__path__`` is *path*)
    whose name does not start with ``_``; returns them."""
    modules = []
    for name in _module_names(path):
        full = f"{package}.{name}"
        module = sys.modules.get(full)
        if module is None or getattr(module.__spec__, "_initializing", False):
            # a module another thread is importing is waited for: half of its records are no use
            module = importlib.import_module(full)
        modules.append(module)
    return modules


_listed: dict[str, tuple[int, set[str]]] = {}  # folder -> (its modification time, the module names in it)


def _module_names(path):
    # what pkgutil.iter_modules finds (source modules and packages), without importing
    # inspect as pkgutil does (4 ms, on the path of ``from cumlir import cuda``); a folder
    # is listed again only when it changed, since every compilation asks
    names = set()
    for folder in path:
        try:
            stamp = os.stat(folder).st_mtime_ns
        except OSError:
            continue
        listed = _listed.get(folder)
        if listed is None or listed[0] != stamp:
            listed = _listed[folder] = (stamp, _names_in(folder))
        names.update(listed[1])
    return sorted(names)


def _names_in(folder):
    names = set()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return names
    for entry in entries:
        name, ext = os.path.splitext(entry.name)
        if entry.is_dir():
            if ext or not os.path.isfile(os.path.join(entry.path, "__init__.py")):
                continue
        elif ext != ".py":
            continue
        if name.isidentifier() and not name.startswith("_"):
            names.add(name)
    return names


def modules():
    """The operation modules, imported on first use (a module added to this package, or to
    its ``__path__``, is found on the next call)."""
    return discover(__name__, __path__)


def declarations():
    """Every record of every operation module (and of extensions), in the order made."""
    modules()
    return list(_declarations)


_stubs: dict[str, Stub] = {}  # full name ("shared.array") -> stub, for the declarations seen so far
_stubs_seen = 0


def _stub_table():
    global _stubs_seen
    if _stubs_seen != len(_declarations) or not _stubs:
        modules()
        for decl in _declarations[_stubs_seen:]:
            if isinstance(decl, Stub):
                # a stub may also be known by other names (cuda.float4 is cuda.float32x4)
                for name in (decl.__name__, *getattr(decl, "aliases", ())):
                    if _stubs.setdefault(name, decl) is not decl:
                        raise ValueError(f"two operation modules declare cuda.{name}")
        _stubs_seen = len(_declarations)
    return _stubs


def stub(name):
    """The stub called ``cuda.<name>`` ("grid", "shared.array"); KeyError if none. Stubs
    unpickle through this."""
    table = _stub_table()
    if name not in table:
        modules()  # a module added since
        table = _stub_table()
    return table[name]


def cuda_names():
    """{name: stub} for the stubs at the top of the ``cuda`` namespace (``cuda.grid``)."""
    return {name: s for name, s in _stub_table().items() if "." not in name}


def nvvm_table(table):
    """What the modules declared for one of the LLVM 7 printer's tables (see ``nvvm_ops``)."""
    modules()
    return dict(_nvvm[table])
