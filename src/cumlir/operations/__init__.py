"""Every operation cumlir compiles, one module per area, grouped by domain: ``python/``
(operators, builtins, ``math``, tuples, strings, records), ``numpy/`` (arrays and NumPy's
functions), ``cuda/`` (the CUDA intrinsics: indexing, barriers, warps, atomics, memory),
``tensor_cores/`` (mma, ldmatrix, wgmma), ``hopper/`` (clusters, mbarriers, TMA) and
``formats/`` (float16, bfloat16, the narrow floats, tf32, complex32). Each module holds its
operations' typing and lowering side by side, declared with the one API of
``_support/api.py`` (docs/architecture.md, "Adding an operation").

This package is the registry of the modules: every package here whose name does not start
with ``_`` is a domain, and every module of a domain whose name does not start with ``_``
is an operation module, found by :func:`modules`; nothing lists them by hand. ``_support/``
holds what the operation modules share and what the compiler may import of them (the
records' API, the builder protocol, element pointers, inline PTX), the only part of this
package other than this registry that the compiler's modules import (pyproject.toml's
contract).
The typing context (``typing/operations.py``), the lowering registry
(``lowering/operations.py``) and the ``cuda`` namespace read them through the functions
below. Importing an
operation module loads neither numba nor MLIR; modules whose name starts with ``_`` are
helpers the operation modules share.
"""

from __future__ import annotations

import importlib
import os
import sys

from ._support.api import (
    NUMBER_CLASS_CALL,
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
    resolve,
    resolve_key,
)
from ._support.api import declarations as _declarations

__all__ = [
    "NUMBER_CLASS_CALL",
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
    "resolve",
    "resolve_key",
    "discover",
    "declared",
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
    """The operation modules of every domain, imported on first use (a module added to a
    domain package, or a domain added to this package's ``__path__``, is found on the next
    call)."""
    found = []
    for item in discover(__name__, __path__):
        # a domain's modules; a plain module (an extension's, on this package's path) is one itself
        found += discover(item.__name__, item.__path__) if hasattr(item, "__path__") else [item]
    return found


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


def declared(name):
    """The key (the Python object its calls name) of the operation declared under *name*, as
    ``declare(key, name)`` gave it ("cumlir.elementwise"); KeyError if none. The compiler finds
    the operations it calls in the code it generates through this, not by importing them."""
    for decl in declarations():
        if isinstance(decl, Operation) and decl.name == name:
            return decl.key
    raise KeyError(name)


def cuda_names():
    """{name: stub} for the stubs at the top of the ``cuda`` namespace (``cuda.grid``)."""
    return {name: s for name, s in _stub_table().items() if "." not in name}
