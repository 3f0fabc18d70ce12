"""How the Python function of a kernel, device function, ufunc or reduction travels in a pickle.

Dispatchers and the other compiled objects pickle as what their user wrote: the Python
function, the options and the signatures compiled, never compiled code, MLIR objects, locks
or driver handles; the other process compiles again (or loads from the disk cache).

The function goes by reference (its module and qualified name) when that name finds it
again, as pickle sends functions, also when the name is bound to the decorated object
(``@cuda.jit def f`` binds ``f`` to the Dispatcher, whose ``py_func`` is the function).
Otherwise (a function defined in a function, a lambda, or in the script run as
``__main__``, which is another file in a worker process: Ray's, a Dask scheduler's) it goes
by value, its code, closure and the globals it reads, serialized by the copy of cloudpickle
numba ships.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from .lazy import lazy

cloudpickle = lazy("numba.cloudpickle")  # numba's copy: loaded by the first function pickled by value

# attributes through which the object bound to a function's name holds the function:
# Dispatcher and the ufuncs' py_func, the Reduce object's _functor
_WRAPPED = ("py_func", "_functor")


def picklable_function(fn: Any) -> Any:
    """An object that pickles as *fn* and unpickles as the function itself."""
    if _found_by_name(fn):
        return _Named(fn.__module__, fn.__qualname__)
    return _ByValue(fn)


def _found_by_name(fn: Any) -> bool:
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname:  # <locals>, <lambda>: no name finds it
        return False
    try:
        return _function_named(module, qualname, imported=False) is fn
    except (AttributeError, KeyError):
        return False


def _function_named(module: str, qualname: str, imported: bool = True) -> Any:
    obj = importlib.import_module(module) if imported else sys.modules[module]
    for part in qualname.split("."):
        obj = getattr(obj, part)
    for attribute in _WRAPPED:
        inner = getattr(obj, attribute, None)
        if callable(inner) and not isinstance(obj, type):
            return inner
    return obj


class _Named:
    def __init__(self, module: str, qualname: str) -> None:
        self.module, self.qualname = module, qualname

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str, str]]:
        return _function_named, (self.module, self.qualname)


class _ByValue:
    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __reduce__(self) -> tuple[Callable[[bytes], Any], tuple[bytes]]:
        return _function_from_code, (cloudpickle.dumps(self.fn),)


def _function_from_code(data: bytes) -> Any:
    return cloudpickle.loads(data)
