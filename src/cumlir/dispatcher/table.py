"""The kernels of one ``@cuda.jit`` function, one KernelOverload per tuple of argument types,
and how a launch picks one.

Kernels compiled or typed in this process are kept under numba's types of their
arguments. While numba is not imported, a launch first looks its arguments' plain types
up (runtime/plain_types.py): kernels the on-disk cache holds for the current device are
loaded by them without numba. Such a kernel is *unsettled* until something needs numba's
types (its signatures are asked for, or it compiles for another chip): it is then put
under numba's types of its arguments with the others."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .. import cache
from ..runtime.arguments import argument_type
from ..runtime.driver import current_context
from ..runtime.plain_types import plain_types
from .overload import KernelOverload

if TYPE_CHECKING:
    import threading
    from types import FunctionType, ModuleType

    from numba.core import types

    from ..options import Options
    from ..runtime.kernel import LoadedKernel
    from ..runtime.plain_types import PlainType
    from ..typing.signatures import SignatureLike

    class _Dispatcher(Protocol):
        """What the table reads of its dispatcher (a surface.Dispatcher, which imports this module)."""

        __name__: str
        _lock: threading.RLock
        py_func: FunctionType
        options: Options

        @property
        def extensions(self) -> list[Any]: ...


class OverloadTable:
    """The kernels of one Dispatcher by argument types; it also decides on the disk cache
    its kernels use (per function and options)."""

    def __init__(self, dispatcher: _Dispatcher) -> None:
        self.dispatcher = dispatcher
        # the dispatcher's lock: held to change the tables or compile; a kernel found in them
        # is used without it (dictionaries are read whole or not at all)
        self.lock = dispatcher._lock
        self.eager = False  # compiled signatures only: no compiling at launch
        self.compiling = 0  # how many signatures are being compiled now
        # numba's argument types -> KernelOverload (read through overloads)
        self._signatures: dict[tuple[types.Type, ...], KernelOverload] = {}
        # plain argument types -> KernelOverload loaded from the disk cache by them
        self._plain: dict[tuple[PlainType, ...], KernelOverload] = {}
        self._unsettled: list[KernelOverload] = []  # those of them not yet under numba's types in _signatures
        # cache.KernelCache, False when off; decided on first use
        self._disk_cache: cache.KernelCache | Literal[False] | None = None
        # the same for the kernels' narrow class (index_bits=32)
        self._narrow_cache: cache.KernelCache | Literal[False] | None = None

    @property
    def overloads(self) -> dict[tuple[types.Type, ...], KernelOverload]:
        """Argument types -> KernelOverload: every kernel under numba's types of its arguments."""
        if self._unsettled:
            self.settle()
        return self._signatures

    def settle(self) -> None:
        """Give the kernels loaded by their plain types numba's types (something asks for
        their signatures, or one is compiled for another chip)."""
        with self.lock:
            while self._unsettled:
                overload = self._unsettled.pop()
                overload.argtypes = tuple(t.numba() for t in overload.argtypes)
                self._signatures.setdefault(overload.argtypes, overload)

    def keep(self, overload: KernelOverload) -> None:
        """Keep *overload*, which has a binary now, unless its types have one already."""
        self.overloads.setdefault(overload.argtypes, overload)

    def kept(self, argtypes: tuple[types.Type, ...]) -> KernelOverload | None:
        """The kernel kept under numba's *argtypes*, or None; kernels loaded by their plain
        types are not settled for this (it must not import numba)."""
        return self._signatures.get(argtypes)

    def compile(self, argtypes: tuple[types.Type, ...], return_type: types.Type | None) -> tuple[KernelOverload, bool]:
        """(the kernel for *argtypes*, whether it is new): a new one is typed now, unless
        the on-disk cache holds it for some chip."""
        overload = self.overloads.get(argtypes)
        if overload is not None:
            return overload, False
        with self.lock:  # looked up again: another thread may have compiled it meanwhile
            overload = self.overloads.get(argtypes)
            if overload is not None:
                return overload, False
            cache = self.disk_cache()
            typed = not (cache and cache.known(argtypes))
            self.compiling += 1
            try:
                overload = self.overloads[argtypes] = KernelOverload(self, argtypes, return_type, typed=typed)
            finally:
                self.compiling -= 1
        return overload, True

    def recompile(self) -> None:
        """Every kernel afresh, typed now (after a global it reads has changed)."""
        with self.lock:
            old = [(argtypes, overload.return_type) for argtypes, overload in self.overloads.items()]
            self._signatures = {}
            self._plain.clear()
            for argtypes, return_type in old:
                self.overloads[argtypes] = KernelOverload(self, argtypes, return_type)

    def overload_for(self, argtypes: tuple[types.Type, ...]) -> KernelOverload:
        """The kernel for the launch argument types (unless signatures were fixed, a new
        one, typed when it is compiled)."""
        overload = self.overloads.get(argtypes)
        if overload is not None:
            return overload
        if self.eager:
            return self.overloads[self._match_eager(argtypes)]
        return KernelOverload(self, argtypes, typed=False)  # kept once it compiles

    def cached_overload(self, args: tuple[Any, ...], narrow: bool = False) -> KernelOverload | None:
        """The kernel for the launch arguments *args* found by their plain types: one loaded
        so before or, while numba is not imported, one the disk cache holds for the current
        device (of the narrow class if asked). None where numba must type them."""
        if not self._plain and "numba" in sys.modules:
            return None
        plain = plain_types(args)
        if plain is None:
            return None
        overload = self._plain.get(plain)
        if overload is None and "numba" not in sys.modules and not self.eager and self.disk_cache() is not None:
            with self.lock:
                overload = self._plain.get(plain)
                if overload is None:
                    overload = KernelOverload(self, plain, typed=False)
                    if not overload.from_cache(current_context().compute_capability, narrow):
                        return None
                    self._plain[plain] = overload
                    self._unsettled.append(overload)
        return overload

    def argument_types(self, args: Iterable[Any], types_as_given: bool = False) -> tuple[types.Type, ...]:
        """numba's types of launch arguments, as kernels are compiled for them; with
        *types_as_given*, an argument that is a numba type stands for itself (``specialize``)."""
        if not types_as_given:
            return tuple(argument_type(value, i) for i, value in enumerate(args))
        from numba.core.types import Type  # numba: specialize compiles next, which loads it

        return tuple(value if isinstance(value, Type) else argument_type(value, i) for i, value in enumerate(args))

    @staticmethod
    def parse_signature(sig: SignatureLike) -> tuple[tuple[types.Type, ...], types.Type | None]:
        """(argument types, return type) of a signature (a string like "void(float32[:], int64)" or types)."""
        return _numba_signatures().parse_signature(sig)

    def launch_types(self, argtypes: tuple[types.Type, ...]) -> tuple[types.Type, ...]:
        """The launch's argument types a signature of a kernel taking ``*args`` stands for
        (it may give the bundle as one StarArgTuple: typing/star_parameters.py)."""
        from ..typing import star_parameters  # numba: loaded already, by the signature's parsing

        return star_parameters.launch_types(self.dispatcher.py_func, argtypes)

    @staticmethod
    def argtypes_of(signature: SignatureLike) -> tuple[types.Type, ...]:
        """The argument types of a signature string, a numba Signature or a tuple of types."""
        return tuple(signature.args) if hasattr(signature, "args") else OverloadTable.parse_signature(signature)[0]

    def overload_of(self, signature: SignatureLike) -> KernelOverload:
        """The compiled overload for *signature* (a signature string, a numba Signature or a
        tuple of argument types); KeyError if it was not compiled."""
        argtypes = self.argtypes_of(signature)
        try:
            return self.overloads[argtypes]
        except KeyError:
            known = ", ".join(str(a) for a in self.overloads) or "none"
            raise KeyError(
                f"{self.dispatcher.__name__} has no compiled signature {argtypes}; compiled: {known}"
            ) from None

    def loaded(self) -> list[LoadedKernel]:
        """The kernels loaded in the current context."""
        context = current_context()
        found = (overload.loaded_in(context) for overload in self.overloads.values())
        return [kernel for kernel in found if kernel is not None]

    def disk_cache(self, narrow: bool = False) -> cache.KernelCache | None:
        """The on-disk cache of this kernel's binaries (of their narrow class, keyed by its
        options: a cache.KernelCache), or None when off."""
        if narrow:
            if self._narrow_cache is None:
                with self.lock:
                    if self._narrow_cache is None:
                        options = self.dispatcher.options.replace(index_bits=32)
                        self._narrow_cache = cache.enabled(options) and cache.KernelCache(
                            self.dispatcher.py_func, options
                        )
            return self._narrow_cache or None
        if self._disk_cache is None:
            with self.lock:
                if self._disk_cache is None:
                    dispatcher = self.dispatcher
                    self._disk_cache = cache.enabled(dispatcher.options) and cache.KernelCache(
                        dispatcher.py_func, dispatcher.options
                    )
        return self._disk_cache or None

    def forget_disk_cache(self) -> None:
        """The options changed: decide on the disk cache again when next asked."""
        self._disk_cache = self._narrow_cache = None

    def _match_eager(self, argtypes: tuple[types.Type, ...]) -> tuple[types.Type, ...]:
        signatures = _numba_signatures()
        accepting = [candidate for candidate in self.overloads if signatures.accepts(candidate, argtypes)]
        if accepting:  # the nearest, the first compiled of equals
            return min(accepting, key=lambda candidate: signatures.conversions(candidate, argtypes))
        shown = ", ".join(str(t) for t in argtypes)
        known = "; ".join("(" + ", ".join(str(t) for t in c) + ")" for c in self.overloads)
        raise TypeError(
            f"{self.dispatcher.__name__}: no compiled signature accepts the arguments ({shown}); compiled: {known}"
            + _refused_argument(self.overloads, argtypes)
        )


def _refused_argument(
    overloads: Mapping[tuple[types.Type, ...], KernelOverload], argtypes: tuple[types.Type, ...]
) -> str:
    """With one compiled signature: which argument it refuses, named."""
    if len(overloads) != 1:
        return ""
    (declared,) = overloads
    k = _numba_signatures().first_refused(declared, argtypes)
    return "" if k is None else f" (argument {k}: a {argtypes[k]} cannot be passed as {declared[k]})"


def _numba_signatures() -> ModuleType:
    """typing/signatures.py, loaded on first use: it imports numba, which a kernel launched
    from the disk cache by its plain types never needs."""
    from ..typing import signatures

    return signatures
