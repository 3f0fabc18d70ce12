"""Launching a kernel: the launchers of its configurations (``kernel[grid, block, ...]``),
``kernel.forall(n)``, and the routes of the fast path (runtime/fastpack.py), made from
what the loaded kernel publishes (its runtime.kernel.LaunchRecord)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from .. import launch_needs
from ..runtime import warm_up
from ..runtime.address_spans import narrow_arguments
from ..runtime.driver import driver
from ..runtime.fastpack import build_route
from ..runtime.launch import LaunchConfiguration
from ..runtime.placement import launch_device, on_device
from ..runtime.streams import stream_handle
from .config_keys import plain

if TYPE_CHECKING:
    import threading
    from types import FunctionType

    from numba.core import types

    from ..launch_needs import LaunchKey
    from ..options import Options
    from ..runtime.driver import Context
    from ..runtime.fastpack import Route
    from ..runtime.kernel import LoadedKernel
    from .overload import KernelOverload

    class _Dispatcher(Protocol):
        """What launching reads of its dispatcher (a surface.Dispatcher, which imports this module)."""

        __name__: str
        _lock: threading.RLock
        py_func: FunctionType
        options: Options
        star_parameters: bool
        star_args: bool
        parameter_count: int

        def _launching(self) -> Launches: ...

        def _for_launch_config(self, key: LaunchKey) -> _Dispatcher: ...

        def recompile(self) -> None: ...

    class _Table(Protocol):
        """What launching reads of the dispatcher's kernels by argument types (a table.OverloadTable)."""

        eager: bool

        @property
        def overloads(self) -> dict[tuple[types.Type, ...], KernelOverload]: ...

        def cached_overload(self, args: tuple[Any, ...], narrow: bool = False) -> KernelOverload | None: ...

        def argument_types(self, args: Iterable[Any]) -> tuple[types.Type, ...]: ...

        def overload_for(self, argtypes: tuple[types.Type, ...]) -> KernelOverload: ...

    # the exact types of a launch's arguments, which pick its route
    _Kinds = tuple[type, ...]


class Launches:
    """The launching side of one kernel: its configured launchers and its routes.

    *table* (an OverloadTable) picks the kernel for a launch's arguments; *launchers*
    is the dispatcher's own cache of launchers, which ``kernel[...]`` reads first."""

    def __init__(self, dispatcher: _Dispatcher, table: _Table, launchers: dict[Any, ConfiguredKernel]) -> None:
        self.dispatcher = dispatcher
        self.table = table
        self.launchers = launchers  # launch configuration -> ConfiguredKernel
        # argument kinds -> the fast path of the last launch with them (None: none)
        self.routes: dict[_Kinds, Route | None] = {}
        # argument kinds -> the route of the wide class, where routes holds the narrow one
        self.wide_routes: dict[_Kinds, Route] = {}
        # (argument kinds, types, loaded kernel) -> runtime.fastpack.Route or None
        self._route_cache: dict[tuple[_Kinds, tuple[types.Type, ...], LoadedKernel], Route | None] = {}
        # kernels whose code depends on the launch configuration (launch_needs.py): those of
        # this table serve one configuration, each other one has a dispatcher of its own
        self.sensitive = False
        # the launch key this table's kernels are compiled for, once sensitive
        self.home_config: LaunchKey | None = None
        self._by_config: dict[LaunchKey, Launches] = {}  # other launch keys -> the Launches of their own dispatcher
        # ConfiguredKernels to send elsewhere once sensitive
        self._launchers_made: weakref.WeakSet[ConfiguredKernel] = weakref.WeakSet()

    def for_config(self, key: LaunchKey | None) -> Launches:
        """The Launches whose kernels are compiled for the launch key *key*: this one, unless
        its kernels depend on the configuration and were compiled for another."""
        if not self.sensitive or key is None or key == self.home_config:
            return self
        with self.dispatcher._lock:
            if self.home_config is None:  # marked before any launch: the first one is this table's
                self.home_config = key
                return self
            found = self._by_config.get(key)
            if found is None:
                found = self._by_config[key] = self.dispatcher._for_launch_config(key)._launching()
        return found

    def twins(self) -> list[_Dispatcher]:
        """The dispatchers of the other launch configurations (for_config)."""
        return [launches.dispatcher for launches in list(self._by_config.values())]

    def mark_sensitive(self, key: LaunchKey | None) -> None:
        """Kernels' code depends on the launch configuration: this table's serve *key* (None:
        the next launch's), every other configuration gets kernels of its own."""
        with self.dispatcher._lock:
            if self.sensitive:
                return
            self.sensitive, self.home_config = True, key
            for launcher in list(self._launchers_made):
                launcher.rewire()

    def configure(self, config: Any, pdl: bool = False) -> ConfiguredKernel:
        """The launcher of a configuration not found as written in the launcher cache; *pdl*:
        a programmatic dependent launch (``kernel.configure(..., pdl=True)``)."""
        plain_launch = pdl is False  # the cache's keys as written are those of plain launches
        if plain_launch and type(config) is tuple and len(config) in (3, 4, 5) and plain(config[:2] + config[3:]):
            # a stream object: keyed by its handle, so the cache keeps no stream alive
            config = (config[0], config[1], stream_handle(config[2]), *config[3:])
            launcher = self.launchers.get(config)
            if launcher is not None and plain(config):
                return launcher
        parsed = LaunchConfiguration(config, pdl)
        key = (parsed.griddim, parsed.blockdim, parsed.stream, parsed.sharedmem, parsed.cluster, parsed.pdl)
        launcher = self.launchers.get(key)
        if launcher is None:
            if len(self.launchers) >= 1024:  # grids sized by the data: keep the cache small
                self.launchers.clear()
            launcher = self.launchers[key] = ConfiguredKernel(self, parsed)
        if plain_launch and plain(config):
            self.launchers[config] = launcher
        return launcher

    def prepare(
        self, kinds: _Kinds, argtypes: tuple[types.Type, ...], kernel: LoadedKernel, args: tuple[Any, ...]
    ) -> None:
        """After a general launch: the fast path for later launches with arguments of these
        kinds, made once per kinds, types and loaded kernel (runtime/fastpack.py); that of a
        kernel of the narrow class declines arrays of 2**31 bytes or more."""
        key = (kinds, argtypes, kernel)
        try:
            route = self._route_cache[key]
        except KeyError:
            try:
                route = build_route(kernel, kinds, argtypes, args, narrow_allowed(self.dispatcher))
            except Exception:  # the launch is done: a route that cannot be made is only slower
                route = None
            self._route_cache[key] = route
        current = self.routes.get(kinds)
        if route is not None and current is not None and current.narrow != route.narrow:
            # both classes: the narrow route is tried first, the wide one where it declines
            self.routes[kinds], self.wide_routes[kinds] = (route, current) if route.narrow else (current, route)
        else:
            self.routes[kinds] = route

    def forget(self) -> None:
        """Compiled signatures changed: the argument types may now pick other kernels."""
        for route in self._route_cache.values():
            if route is not None:
                route.retire()
        self.routes.clear()
        self.wide_routes.clear()
        self._route_cache.clear()

    def forall(self, ntasks: int, tpb: int, stream: object, sharedmem: int) -> ForAll:
        """``kernel.forall(ntasks, tpb, stream, sharedmem)``'s launcher."""
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def call(self, args: Iterable[Any], config: LaunchConfiguration) -> None:
        """Launch with the arguments *args* and a LaunchConfiguration, the general way."""
        args = tuple(args)
        with on_device(launch_device(self.dispatcher.__name__, args)):
            loaded_for(self, args, {}, launch_key(config))[0].launch(args, config)


class ConfiguredKernel:
    """``kernel[grid, block, stream, shared_bytes, cluster]``: launches with that configuration.

    One per configuration and kernel (the dispatcher keeps them). A launch whose argument
    kinds have a fast path (a Route, runtime/fastpack.py: made after the first launch with
    them) fills the route's parameter buffer and calls cuLaunchKernel; anything else (new
    kinds or types, another context, a value the route refuses) takes the general path:
    typing, compiling if needed, the checks, NumPy arrays copied in and out."""

    __slots__ = (
        "dispatcher",
        "config",
        "_launches",
        "_routes",
        "_wide_routes",
        "_checked",
        "_geometry",
        "_stream",
        "_sharedmem",
        "_custream",
        "_fast",
        "_last",
        "_home",
        "_key",
        "__weakref__",
    )

    def __init__(self, launches: Launches, config: LaunchConfiguration) -> None:
        self.dispatcher = launches.dispatcher
        self.config = config
        self._home, self._key = launches, launch_key(config)
        launches._launchers_made.add(self)
        self._launches = launches.for_config(self._key)
        self._routes = self._launches.routes  # read by every launch: held here, not looked up through launches
        self._wide_routes = self._launches.wide_routes
        self._checked: Context | None = None  # the runtime Context the configuration was checked against
        self._geometry = config.geometry()
        self._stream = config.stream
        self._sharedmem = config.sharedmem
        self._custream: Any = None  # the driver's CUstream of the stream
        self._fast: dict[Route, Callable[..., bool]] = {}  # Route -> its launch function with this configuration
        self._last: Callable[..., bool] = _declined  # the launch function that launched last: tried first

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            return self._launch(args, kwargs)
        if self._last(*args):  # it checks the arguments' kinds itself
            return
        kinds = tuple(map(type, args)) if args else ()
        route = self._routes.get(kinds)
        if route is not None:
            launch = self._fast.get(route) or self._fast_launch(route)
            if launch(*args):
                self._last = launch
                return
            route = self._wide_routes.get(kinds)  # arrays too large for the narrow class
            if route is not None:
                launch = self._fast.get(route) or self._fast_launch(route)
                if launch(*args):
                    self._last = launch
                    return
        self._launch(args, kwargs)

    def rewire(self) -> None:
        """The kernel's code turned out to depend on the launch configuration: launch the
        kernels compiled for this one."""
        launches = self._home.for_config(self._key)
        if launches is not self._launches:
            self._launches, self._routes, self._wide_routes = launches, launches.routes, launches.wide_routes
            self._fast.clear()
            self._last = _declined

    def _fast_launch(self, route: Route) -> Callable[..., bool]:
        """The route's launch function with this configuration, once the configuration has
        been checked in the route's context (until then, one that declines every launch)."""
        if route.context is not self._checked or self.config.extended:
            return _declined  # clusters and pdl go through cuLaunchKernelEx, on the general path
        launch = _declined
        geometry, sharedmem = self._geometry, self._sharedmem
        # its code asked for more (launch_needs.py), or aligns its dynamic arrays
        given = route.kernel.dynamic_shared_bytes(max(sharedmem, route.kernel.min_dynamic_shared))
        if given != sharedmem:
            sharedmem = given
            geometry = (*geometry[:-1], sharedmem)
        if not sharedmem or sharedmem <= route.shared.dynamic_allowed:
            launch = route.launcher(geometry, self._custream, self._stream)
        if len(self._fast) >= 64:  # routes of contexts and kinds seen before: keep a few
            self._fast.clear()
        self._fast[route] = launch
        return launch

    def _launch(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        with on_device(launch_device(self.dispatcher.__name__, args)):  # where the arrays are
            self._launch_here(args, kwargs)

    def _launch_here(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        kernel, argtypes = loaded_for(self._launches, args, kwargs, self._key)
        kernel.launch(args, self.config)  # checks the configuration against the device
        context = kernel.record.context
        if self._checked is not context:
            self._custream = driver().CUstream(self._stream)
            self._checked = context
            self._fast.clear()
            self._last = _declined
        self._launches.prepare(tuple(map(type, args)), argtypes, kernel, args)


def _declined(*args: Any) -> bool:
    return False


class ForAll:
    """``kernel.forall(ntasks, tpb, stream, sharedmem)``: launched with enough blocks of
    *tpb* threads (0: the driver's suggestion for the kernel) to cover *ntasks* threads."""

    def __init__(self, launches: Launches, ntasks: int, tpb: int, stream: object, sharedmem: int) -> None:
        dispatcher = launches.dispatcher
        for what, value in (("ntasks", ntasks), ("tpb", tpb), ("sharedmem", sharedmem)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                negative = what == "ntasks" and isinstance(value, int) and value < 0
                numba_cudas = "Can't create ForAll with negative task count: " if negative else ""
                raise ValueError(
                    f"{numba_cudas}{dispatcher.__name__}.forall: {what} must be a non-negative int, got {value!r}"
                )
        self.dispatcher, self.ntasks, self.tpb, self.stream, self.sharedmem = dispatcher, ntasks, tpb, stream, sharedmem
        self._launches = launches

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if self.ntasks == 0:  # nothing to launch, as in Numba-CUDA
            return
        with on_device(launch_device(self.dispatcher.__name__, args)):
            if self.tpb:  # the configuration is known before the kernel: it may be compiled for it
                config = LaunchConfiguration(
                    ((self.ntasks + self.tpb - 1) // self.tpb, self.tpb, self.stream, self.sharedmem)
                )
                loaded_for(self._launches, args, kwargs, launch_key(config))[0].launch(args, config)
                return
            kernel = loaded_for(self._launches, args, kwargs)[0]
            tpb = kernel.max_potential_block_size(self.sharedmem)
            blocks = (self.ntasks + tpb - 1) // tpb
            kernel.launch(args, LaunchConfiguration((blocks, tpb, self.stream, self.sharedmem)))


def launch_key(config: LaunchConfiguration) -> LaunchKey:
    """What a kernel's code may depend on of a LaunchConfiguration (launch_needs.LaunchKey)."""
    # LaunchConfiguration's griddim and blockdim are three ints each (typed tuple[int, ...] there)
    return (config.griddim, config.blockdim, config.sharedmem)  # type: ignore[return-value]


def loaded_for(
    launches: Launches, args: tuple[Any, ...], kwargs: dict[str, Any], key: LaunchKey | None = None
) -> tuple[LoadedKernel, tuple[types.Type, ...]]:
    """The loaded kernel for the launch arguments *args*, checked, and the types it was
    picked for (the fast path is made for them): the general path of every launch. *key*:
    the launch's configuration (launch_key), None where the kernel is needed before it.
    The kernel is of the narrow class (32-bit offsets) where every array allows it."""
    warm_up.start()  # a first launch: the driver and the linker load while numba types the arguments
    launches = launches.for_config(key)
    with launch_needs.launching(key):
        narrow = _narrow(launches.dispatcher, args)
        overload, argtypes = _overload_for(launches, args, kwargs, narrow)
        kernel = overload.loaded(narrow)
    if overload.needs.config is not None and not launches.sensitive:
        launches.mark_sensitive(overload.needs.config)
    return kernel, argtypes


def _narrow(dispatcher: _Dispatcher, args: tuple[Any, ...]) -> bool:
    """Whether the launch takes the kernel's narrow class: its options leave index_bits to
    the launch and every array argument spans less than 2**31 bytes."""
    options = dispatcher.options
    if options.index_bits == 32 and not narrow_arguments(args):
        raise ValueError(
            f"kernel {dispatcher.__name__} is compiled with index_bits=32, but an array argument spans "
            "2**31 bytes or more: leave index_bits unset (each launch then chooses) or set it to 64"
        )
    return narrow_allowed(dispatcher) and narrow_arguments(args)


def narrow_allowed(dispatcher: _Dispatcher) -> bool:
    """Whether each launch chooses the class: the options leave index_bits to the launch.
    Argument handlers may pass other arrays than they are given: their kernels stay wide."""
    options = dispatcher.options
    return options.index_bits is None and not options.extensions


def _overload_for(
    launches: Launches, args: tuple[Any, ...], kwargs: dict[str, Any], narrow: bool = False
) -> tuple[KernelOverload, tuple[types.Type, ...]]:
    dispatcher, table = launches.dispatcher, launches.table
    if kwargs:
        raise TypeError(f"kernel {dispatcher.__name__} takes positional arguments only")
    if dispatcher.star_parameters:
        from ..compiler import check_kernel_parameters  # loads numba: on this error only

        check_kernel_parameters(f"kernel {dispatcher.__name__}", dispatcher.py_func)
    expected = dispatcher.parameter_count
    if dispatcher.star_args:
        if len(args) < expected:
            raise TypeError(
                f"kernel {dispatcher.__name__} takes at least {expected} arguments but {len(args)} were given"
            )
    elif len(args) != expected:
        raise TypeError(f"kernel {dispatcher.__name__} takes {expected} arguments but {len(args)} were given")
    overload = table.cached_overload(args, narrow)
    if overload is not None:
        return overload, overload.argtypes
    if table.eager and len(table.overloads) == 1 and dispatcher.options.extensions:
        # one compiled signature and argument handlers: as Numba-CUDA's specialized kernels,
        # the arguments are not typed here, since the handlers may turn any object into what
        # the signature takes
        (overload,) = table.overloads.values()
        return overload, overload.argtypes
    argtypes = table.argument_types(args)
    return table.overload_for(argtypes), argtypes
