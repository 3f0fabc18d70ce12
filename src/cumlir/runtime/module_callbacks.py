"""Numba-CUDA's setup and teardown callbacks of link items (``CUSource(code,
setup_callback=f, teardown_callback=g)``): each is called with the loaded module, setup once
after a module linking the item is loaded, teardown just before it is unloaded, whether a
kernel's last holder lets it go or ``cuda.close()`` resets its context."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from . import cleanup
from . import driver as drv

_lock = threading.Lock()
# the modules with teardown callbacks still loaded, by device: a reset tears them all down
_loaded: dict[int, dict[int, tuple[LoadedModule, tuple[Callable[[Any], object], ...]]]] = {}


class LoadedModule:
    """What the callbacks are given: a loaded module, ``handle`` its ``CUmodule``."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __repr__(self) -> str:
        return f"<loaded CUDA module {int(self.handle):#x}>"


def callbacks(
    link: Iterable[object],
) -> tuple[tuple[Callable[[Any], object], ...], tuple[Callable[[Any], object], ...]]:
    """(setup callbacks, teardown callbacks) of the link items *link*, in their order."""
    items = list(link)
    setups = tuple(f for f in (getattr(item, "setup_callback", None) for item in items) if f is not None)
    teardowns = tuple(f for f in (getattr(item, "teardown_callback", None) for item in items) if f is not None)
    return setups, teardowns


def set_up(
    module: Any, made_in: tuple[int, int], setups: tuple[Callable[[Any], object], ...], teardowns: tuple[Any, ...]
) -> Callable[[], None]:
    """Call *setups* on the module just loaded; the function that unloads it (teardowns first)."""
    loaded = LoadedModule(module)
    for setup in setups:
        setup(loaded)
    if teardowns:
        with _lock:
            _loaded.setdefault(made_in[0], {})[id(loaded)] = (loaded, teardowns)

    def unload() -> None:
        with _lock:
            entry = _loaded.get(made_in[0], {}).pop(id(loaded), None)
        if entry is not None and drv.alive(made_in):
            for teardown in entry[1]:
                teardown(loaded)
        cleanup.release("cuModuleUnload", module, made_in)

    return unload


def _tear_down(context: drv.Context) -> None:
    with _lock:
        entries = list(_loaded.pop(context.ordinal, {}).values())
    for loaded, teardowns in entries:
        for teardown in teardowns:
            teardown(loaded)


drv.reset_hooks.append(_tear_down)
