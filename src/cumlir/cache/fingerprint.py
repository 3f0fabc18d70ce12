"""What a kernel's code depends on, as one digest: its bytecode and constants, the
values of its closure and of the globals it reads, and the same of every Python
function it calls (device functions, ``numba.njit`` functions, helpers in modules).

A value is described by what it is, never by its address: numbers, strings, tuples
and NumPy arrays by their contents, modules and classes by their names, functions
and dispatchers by their code. A value that cannot be described so (an arbitrary
object whose ``repr`` shows an address, say) raises ``Unhashable``: the kernel is
then not cached, since a change to it would go unseen.
"""

from __future__ import annotations

import dis
import enum
import hashlib
import sys
import types
from collections.abc import Iterable, Mapping
from typing import Any

# modules whose objects are identified by their qualified names: what they mean is
# covered by the versions in the cache key
_LIBRARY_ROOTS = frozenset({"cumlir", "numba", "numpy", "math", "cmath", "operator", "builtins", "llvmlite", "cuda"})
_SIMPLE: tuple[type, ...] = (type(None), bool, int, float, complex, str, bytes)
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
_ATTRIBUTE_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


class Unhashable(Exception):
    """A value the kernel depends on that cannot be described by its contents."""


class CapturesDeviceArray(Unhashable):
    """The kernel reads a device array it does not take as an argument: its code holds the
    array's address, which means nothing to another process."""


def function_fingerprint(pyfunc: types.FunctionType) -> str:
    """A hex digest of everything *pyfunc*'s generated code depends on in Python."""
    return _Describer().function(pyfunc)


class _Describer:
    def __init__(self) -> None:
        self._functions: dict[int, str] = {}  # id(function) -> its digest (or a placeholder while in progress)

    def function(self, fn: types.FunctionType) -> str:
        done = self._functions.get(id(fn))
        if done is not None:
            return done
        self._functions[id(fn)] = f"recursive:{fn.__module__}.{fn.__qualname__}"
        parts = [f"{fn.__module__}.{fn.__qualname__}", self.code(fn.__code__, fn.__globals__)]
        cells = fn.__closure__ or ()
        for name, cell in zip(fn.__code__.co_freevars, cells):
            try:
                contents = cell.cell_contents
            except ValueError:  # a cell not yet filled
                parts.append(f"{name}=<empty>")
                continue
            parts.append(f"{name}={self.value(contents, f'closure variable {name!r} of {fn.__qualname__}')}")
        parts.append(self.value(fn.__defaults__, f"defaults of {fn.__qualname__}"))
        parts.append(self.value(tuple(sorted((fn.__kwdefaults__ or {}).items())), f"defaults of {fn.__qualname__}"))
        digest = _digest(parts)
        self._functions[id(fn)] = digest
        return digest

    def code(self, code: types.CodeType, globals_: Mapping[str, Any]) -> str:
        parts = [
            code.co_code,
            code.co_names,
            code.co_varnames,
            code.co_freevars,
            code.co_cellvars,
            (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags),
            # source positions reach line tables and the messages of device exceptions
            code.co_filename,
            code.co_firstlineno,
            getattr(code, "co_linetable", None) or code.co_lnotab,
            getattr(code, "co_exceptiontable", b""),
        ]
        for const in code.co_consts:
            if isinstance(const, types.CodeType):  # a nested function or comprehension
                parts.append(self.code(const, globals_))
            else:
                parts.append(
                    self.value(
                        const, f"a constant of {code.co_qualname if hasattr(code, 'co_qualname') else code.co_name}"
                    )
                )
        for name, value in _globals_read(code, globals_):
            parts.append(f"{name}={self.value(value, f'the global {name!r} read by {code.co_name}')}")
        return _digest(parts)

    def value(self, value: Any, where: str) -> str:
        """A text that changes whenever *value* could change the generated code."""
        if isinstance(value, _SIMPLE):
            return f"{type(value).__name__}:{value!r}"
        if isinstance(value, (tuple, list)):
            kind = type(value).__name__ if type(value) in (tuple, list) else self._class(type(value))  # namedtuples
            return f"{kind}({','.join(self.value(v, where) for v in value)})"
        if isinstance(value, (set, frozenset)):
            return f"set({','.join(sorted(self.value(v, where) for v in value))})"
        if isinstance(value, types.ModuleType):
            return f"module:{value.__name__}"
        if isinstance(value, types.FunctionType):
            if _is_library_module(value.__module__):
                return f"function:{value.__module__}.{value.__qualname__}"
            return f"function:{self.function(value)}"
        if isinstance(value, type):
            return self._class(value)
        if isinstance(value, enum.Enum):
            return f"enum:{self._class(type(value))}.{value.name}"
        if not isinstance(value, type) and hasattr(value, "__cuda_array_interface__"):
            # compiled in as its address, which means nothing to another process
            raise CapturesDeviceArray(f"{where}: a device array is captured by its address")
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            described = self._numpy(numpy, value)
            if described is not None:
                return described
        py_func = getattr(value, "py_func", None)
        if isinstance(py_func, types.FunctionType):  # a cumlir or numba dispatcher
            return f"dispatcher:{_qualified(type(value))}:{self.value(py_func, where)}:{_dispatcher_options(value)}"
        cache_key = getattr(type(value), "cache_key", None)
        if callable(cache_key):  # link items of declare_device, options ...
            return f"{_qualified(type(value))}:{value.cache_key()}"
        if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)) or _is_library(type(value)):
            text = repr(value)
            if " at 0x" in text:
                raise Unhashable(f"{where}: {text} is known only by its address")
            name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
            return f"{_qualified(type(value))}:{name}:{text}"
        raise Unhashable(f"{where}: a {_qualified(type(value))} object cannot be described by its contents")

    def _class(self, cls: type) -> str:
        text = f"class:{_qualified(cls)}"
        if issubclass(cls, enum.Enum):
            text += "{" + ",".join(f"{m.name}={m.value!r}" for m in cls) + "}"
        fields = getattr(cls, "_fields", None)  # namedtuples
        if isinstance(fields, tuple):
            text += f"{fields!r}"
        return text

    def _numpy(self, np: Any, value: Any) -> str | None:
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise Unhashable("an array of Python objects cannot be described by its contents")
            data = hashlib.sha256(np.ascontiguousarray(value).view(np.uint8).reshape(-1).data).hexdigest()
            return f"ndarray:{value.dtype.descr!r}:{value.shape}:{value.flags.writeable}:{data}"
        if isinstance(value, np.generic):
            return f"{value.dtype.descr!r}:{value!r}"
        if isinstance(value, np.dtype):
            return f"dtype:{value.descr!r}:{value.isalignedstruct}"
        if isinstance(value, np.ufunc):
            return f"ufunc:{value.__name__}"
        return None


def _globals_read(code: types.CodeType, globals_: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(name, value) of each global *code* loads, attribute chains on the user's modules
    followed (``mod.CONST``, ``mod.helper``) so that the value used is described, not the module."""
    builtins = globals_.get("__builtins__", {})
    builtins = getattr(builtins, "__dict__", builtins)
    found: dict[str, Any] = {}
    chain: list[Any] | None = None  # [name, value] while following attributes of a module
    for ins in dis.get_instructions(code):
        if ins.opname in _GLOBAL_LOADS:
            if chain is not None:
                found[chain[0]] = chain[1]
            name = ins.argval
            value = globals_[name] if name in globals_ else builtins.get(name, _MISSING)
            chain = [name, value]
        elif chain is not None and ins.opname in _ATTRIBUTE_LOADS and _user_module(chain[1]):
            chain = [f"{chain[0]}.{ins.argval}", getattr(chain[1], ins.argval, _MISSING)]
        elif chain is not None and ins.opname not in ("CACHE", "EXTENDED_ARG", "PRECALL"):
            found[chain[0]] = chain[1]
            chain = None
    if chain is not None:
        found[chain[0]] = chain[1]
    return sorted(found.items())


def _user_module(value: object) -> bool:
    # a library's module stands for its contents (its version is in the key), and reading
    # its attributes could load it further (cumlir.cuda finds its intrinsics on first use)
    return isinstance(value, types.ModuleType) and not _is_library_module(value.__name__)


class _Missing:
    def __repr__(self) -> str:
        return "<undefined>"


_MISSING = _Missing()
_SIMPLE = (*_SIMPLE, _Missing)


def _dispatcher_options(dispatcher: object) -> str:
    options = getattr(dispatcher, "options", None)  # a cumlir Dispatcher's Options
    if options is not None and callable(getattr(options, "cache_key", None)):
        return options.cache_key()
    targetoptions = getattr(dispatcher, "targetoptions", None)  # numba's njit
    return repr(sorted((k, repr(v)) for k, v in (targetoptions or {}).items()))


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_library(cls: type) -> bool:
    return _is_library_module(cls.__module__)


def _is_library_module(name: str | None) -> bool:
    return (name or "").partition(".")[0] in _LIBRARY_ROOTS


def _digest(parts: Iterable[object]) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()
