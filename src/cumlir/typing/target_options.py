"""``cuda.experimental.current_target_options()``: the options of the compilation being typed,
for ``consteval`` (typing/consteval.py) to read while a kernel compiles.

A compilation types its function under :func:`compiling` (its ``Options`` and the chip compiled
for, where known), and ``current_target_options()`` evaluated at compile time gives a dict of
them by numba-cuda-mlir's names: ``chip`` ("sm_90", "sm_90a" for an architecture-specific
target; None where no chip is known yet), ``opt_level``, ``fastmath``, ``debug``, ``lineinfo``,
``max_registers``, ``launch_bounds``, ``lto`` ... A device function's consteval reads those of
the kernel it is compiled into. A function whose rewriting read them is *target-dependent*:
it is rewritten (and typed) again for another compilation's options, and a kernel compiled for
several chips is typed once per chip (compiler.KernelBuild). A kernel typed at decoration (an
eager signature) before its chip is known sees the chip None; where that typing fails, it is
left for the compilation that knows the chip (:class:`ChipNeeded`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numba.core.errors import TypingError

if TYPE_CHECKING:
    from ..options import Options


class ChipNeeded(TypingError):
    """A typing read current_target_options() before its chip was known, and failed: a kernel
    typed at decoration (an eager signature, without chip=) is typed again for the chip it is
    compiled for."""


@dataclass
class _Typing:
    options: Options
    chip: tuple[int, int] | None
    parent: _Typing | None
    consulted: bool = False
    _key: Any = field(default=None, repr=False)

    def key(self) -> Any:
        if self._key is None:
            # the class of array offsets a launch chooses is not the kernel's to read
            self._key = (self.options.replace(index_bits=None).cache_key(), self.chip)
        return self._key


_current: ContextVar[_Typing | None] = ContextVar("cumlir_target_options", default=None)


@contextlib.contextmanager
def compiling(options: Options | None, chip: tuple[int, int] | None) -> Iterator[_Typing | None]:
    """Type under *options* for *chip* (None: unknown); options None keeps the enclosing ones
    (a device function typed inside a kernel's typing). Yields what records whether
    current_target_options() was read."""
    parent = _current.get()
    if options is None:
        if parent is None:
            yield None
            return
        options, chip = parent.options, parent.chip
    typing = _Typing(options, chip, parent)
    token = _current.set(typing)
    try:
        yield typing
    finally:
        _current.reset(token)


def current() -> _Typing | None:
    """The typing under way (or the one a lowering reads its device functions' types by)."""
    return _current.get()


@contextlib.contextmanager
def under(typing: _Typing | None) -> Iterator[None]:
    """Lower what was typed under *typing*: a target-dependent device function it calls is
    the one typed for its options."""
    token = _current.set(typing)
    try:
        yield
    finally:
        _current.reset(token)


def consulted() -> None:
    """Mark the typings under way as depending on their options (and those enclosing them)."""
    typing = _current.get()
    while typing is not None:
        typing.consulted = True
        typing = typing.parent


def key() -> Any:
    """What tells the current compilation's options apart (None outside any)."""
    typing = _current.get()
    return None if typing is None else typing.key()


def current_target_options() -> dict[str, Any]:
    """The options of the kernel being compiled, by numba-cuda-mlir's names (see the module's
    text); read inside ``consteval(...)`` while it compiles."""
    typing = _current.get()
    if typing is None:
        raise RuntimeError(
            "current_target_options() gives the options of the kernel being compiled: read it inside "
            "consteval(...) in a function compiled with @cuda.jit"
        )
    consulted()
    return _as_dict(typing.options, typing.chip)


def _as_dict(options: Options, chip: tuple[int, int] | None) -> dict[str, Any]:
    suffix = options.target_suffix if chip == options.chip else ""  # sm_90a, sm_100f
    fastmath: Any = True if options.fastmath == {"fast"} else set(options.fastmath) or False
    return {
        "chip": None if chip is None else f"sm_{chip[0]}{chip[1]}{suffix}",
        "cc": chip,
        "opt_level": options.opt_level,
        "opt": options.opt,
        "fastmath": fastmath,
        "fma": options.fma,
        "debug": options.debug,
        "lineinfo": options.lineinfo,
        "max_registers": options.max_registers,
        "launch_bounds": options.launch_bounds or None,
        "lto": options.lto,
        "inline": options.inline,
        "forceinline": options.forceinline,
        "capi": options.capi,
        "features": options.features,
        "ptxas_options": list(options.ptxas_options),
        "link": list(options.link),
        "backend": options.backend,
        "nrt": options.nrt,
        "shared_memory_carveout": options.shared_memory_carveout,
        "cache": options.cache,
    }
