"""The argument handlers of a kernel (``cuda.jit(extensions=[...])``) as the list Numba-CUDA's
``kernel.extensions`` is: handlers appended or removed after decoration apply to the launches
that follow, compiled signatures included."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, SupportsIndex


class ArgumentHandlers(list):
    """A list that reports each change, as a tuple, to *changed*; a change *changed* refuses
    (a handler without ``prepare_args``) is undone before the error reaches the caller."""

    def __init__(self, handlers: Iterable[Any], changed: Callable[[tuple[Any, ...]], None]) -> None:
        super().__init__(handlers)
        self._changed = changed

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return list, (list(self),)  # a copy holds the handlers, not the kernel it belongs to

    def _change(self, mutate: Callable[[], Any]) -> Any:
        before = list(self)
        result = mutate()
        try:
            self._changed(tuple(self))
        except BaseException:
            super().clear()
            super().extend(before)
            raise
        return result


def _reporting(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def mutate(self: ArgumentHandlers, *args: Any) -> Any:
        return self._change(lambda: method(self, *args))

    mutate.__name__ = name
    return mutate


for _name in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "__setitem__", "__delitem__"):
    setattr(ArgumentHandlers, _name, _reporting(_name))


def _iadd(self: ArgumentHandlers, other: Iterable[Any]) -> ArgumentHandlers:
    self.extend(other)
    return self


def _imul(self: ArgumentHandlers, count: SupportsIndex) -> ArgumentHandlers:
    self._change(lambda: list.__imul__(self, count))
    return self


ArgumentHandlers.__iadd__ = _iadd  # type: ignore[method-assign,assignment]
ArgumentHandlers.__imul__ = _imul  # type: ignore[method-assign,assignment]


def handlers_of(dispatcher: Any) -> ArgumentHandlers:
    """The handlers list of *dispatcher* (a surface.Dispatcher), made at the first ask. A change
    replaces its options' ``extensions`` (which checks each handler) and makes launches already
    routed past the handlers take them again; its launch configurations' twins follow."""
    handlers = dispatcher.__dict__.get("_handlers")
    if handlers is None:
        with dispatcher._lock:
            handlers = dispatcher.__dict__.get("_handlers")
            if handlers is None:

                def changed(now: tuple[Any, ...]) -> None:
                    with dispatcher._lock:
                        dispatcher.options = dataclasses.replace(dispatcher.options, extensions=now)
                        dispatcher._forget_routes()
                        launches = dispatcher._launches
                        for twin in launches.twins() if launches is not None else ():
                            twin.extensions[:] = now

                handlers = dispatcher._handlers = ArgumentHandlers(dispatcher.options.extensions, changed)
    return handlers
