"""Raise sites (what a device exception code means) as plain JSON data, and back.

An entry names the exception class of a site instead of pickling it: a builtin exception
by its name, another class by its module and qualified name. Reading it back imports
nothing: the class is looked up in ``builtins`` or in a module the process has already
imported (the kernel's own module has imported the classes it raises), through the
namespaces' dictionaries (no ``__getattr__``, no descriptors), and must be an Exception
subclass. A class that cannot be found so makes the entry unusable, and the kernel is
compiled again. The arguments are kept as JSON scalars; others as the text the exception's
message shows of them.
"""

from __future__ import annotations

import builtins
import math
import sys
import types
from typing import Any, TypeGuard

from ..raise_sites import RaiseSite

_SCALARS = (str, int, bool, type(None))


class NotStorable(Exception):
    """A raise site whose exception class cannot be named so that a reader finds it again."""


def site_data(site: RaiseSite) -> dict[str, Any]:
    """*site* as JSON data; NotStorable when its exception class cannot be named."""
    return {"exception": class_data(site.exc_class), "args": [_arg(a) for a in site.args], "location": site.location}


def class_data(cls: type) -> dict[str, str]:
    """The name of an exception class, as ``resolve`` finds it again."""
    if cls.__module__ == "builtins":
        data = {"builtin": cls.__qualname__}
    else:
        data = {"module": cls.__module__, "qualname": cls.__qualname__}
    try:
        found = resolve(data)
    except ValueError:
        found = None
    if found is not cls:  # a local class, one shadowed or not an Exception ...
        raise NotStorable(f"the exception class {cls.__module__}.{cls.__qualname__} cannot be found by its name")
    return data


def _arg(value: Any) -> Any:
    # RaiseSite.exception shows the arguments as str() does: other values keep that text
    if type(value) in _SCALARS or (type(value) is float and math.isfinite(value)):
        return value
    return str(value)


def site_from_data(data: Any) -> RaiseSite | None:
    """The RaiseSite of *data*, or None when its exception class is not found here;
    ValueError when *data* is not of the shape site_data gives (or names no class)."""
    if not (isinstance(data, dict) and data.keys() == {"exception", "args", "location"}):
        raise ValueError("not an object of exception, args and location")
    args, location = data["args"], data["location"]
    if not (isinstance(args, list) and all(type(a) in (*_SCALARS, float) for a in args) and type(location) is str):
        raise ValueError("its args or location are not plain data")
    cls = resolve(data["exception"])
    return None if cls is None else RaiseSite(cls, tuple(args), location)


def resolve(data: Any) -> type[Exception] | None:
    """The Exception subclass *data* names, found without importing anything; None when its
    module is not loaded or holds no such class; ValueError when *data* is no class's name."""
    if isinstance(data, dict) and data.keys() == {"builtin"}:
        found = _lookup(builtins, data["builtin"])
        if not _is_exception(found):  # builtins are always there: a name no writer gives
            raise ValueError(f"{data['builtin']!r} is not a builtin exception")
        return found
    if isinstance(data, dict) and data.keys() == {"module", "qualname"} and type(data["module"]) is str:
        module = sys.modules.get(data["module"])
        found = None if module is None else _lookup(module, data["qualname"])
        return found if _is_exception(found) else None
    raise ValueError("not the name of an exception class")


def _is_exception(found: object) -> TypeGuard[type[Exception]]:
    return isinstance(found, type) and issubclass(found, Exception)


def _lookup(namespace: object, qualname: Any) -> object:
    if type(qualname) is not str:
        return None
    found = namespace
    for part in qualname.split("."):
        if not (part.isidentifier() and isinstance(found, (types.ModuleType, type))):
            return None
        found = vars(found).get(part)
    return found
