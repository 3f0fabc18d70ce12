"""``made_once``: an attribute computed on first use under the instance's lock."""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, Generic, TypeVar

_V = TypeVar("_V")


class made_once(Generic[_V]):
    """A method made an attribute computed on first use, as functools.cached_property, but
    under the instance's ``_lock``: two threads asking first get the same value (since
    Python 3.12 cached_property takes no lock). Later reads find the instance's attribute."""

    def __init__(self, make: Callable[[Any], _V]) -> None:
        self.make = make
        self.name = make.__name__
        self.__doc__ = make.__doc__

    @typing.overload
    def __get__(self, instance: None, owner: type | None = None) -> made_once[_V]: ...

    @typing.overload
    def __get__(self, instance: object, owner: type | None = None) -> _V: ...

    def __get__(self, instance: Any, owner: type | None = None) -> made_once[_V] | _V:
        if instance is None:
            return self
        with instance._lock:
            value = instance.__dict__.get(self.name)
            if value is None:
                value = instance.__dict__[self.name] = self.make(instance)
        return value
