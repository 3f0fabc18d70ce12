"""The options of one compilation: one frozen object, checked where it is built.

``@cuda.jit(...)`` and ``cuda.compile*(...)`` build an ``Options`` once from their
keywords; every stage of the compiler, the linker and the loader reads that object.
``cache_key()`` covers every field that changes the generated code.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from . import backends
from .linkable import as_linkable, load

if TYPE_CHECKING:
    from .linkable import LinkItem

INLINE_MODES = ("never", "always")
# LLVM's fast-math flags, as numba's ``fastmath={...}`` names them
FASTMATH_FLAGS = frozenset({"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})
CARVEOUT_NAMES = {"default": -1, "MaxL1": 0, "MaxShared": 100}
MAX_REGISTERS_RANGE = (1, 255)  # what PTX's .maxnreg accepts

# keywords Numba-CUDA's cuda.jit has that cumlir refuses, and why
_REFUSED = {
    "argtypes": "signatures are given as the first positional argument",
    "restype": "signatures are given as the first positional argument",
    "bind": "signatures are given as the first positional argument",
}


class CompilationWarning(UserWarning):
    """An option was accepted but cannot take effect in this build."""


@dataclass(frozen=True)
class Options:
    """What ``@cuda.jit`` / ``cuda.compile`` were asked for; see docs/architecture.md ("Options")."""

    debug: bool = False
    opt: bool = True
    lineinfo: bool = False
    fastmath: frozenset[str] = frozenset()  # LLVM fast-math flags; {"fast"} for fastmath=True
    fma: bool = True  # contract a*b+c into one fma, as Numba-CUDA (libNVVM's default -fma=1) does
    max_registers: int | None = None
    launch_bounds: tuple[int, ...] = ()  # (max threads per block[, min blocks per SM[, max blocks per cluster]])
    inline: str = "never"
    forceinline: bool = False
    lto: bool = False
    link: tuple[LinkItem, ...] = ()  # LinkableCode objects (or lazily read paths)
    cache: bool = False
    shared_memory_carveout: int | None = None  # percent of L1 given to shared memory; -1 the driver's default
    backend: str | None = None  # a code generator of backends.REGISTRY; None: CUMLIR_BACKEND, else backends.DEFAULT
    nrt: bool | None = None  # the device runtime (docs/nrt.md); None: CUMLIR_ENABLE_NRT or NUMBA_CUDA_ENABLE_NRT

    def __post_init__(self) -> None:
        for name in ("debug", "opt", "lineinfo", "fma", "forceinline", "lto", "cache"):
            _check_bool(name, getattr(self, name))
        object.__setattr__(self, "fastmath", _fastmath(self.fastmath))
        object.__setattr__(self, "max_registers", _max_registers(self.max_registers))
        object.__setattr__(self, "launch_bounds", _launch_bounds(self.launch_bounds))
        object.__setattr__(self, "inline", _inline(self.inline))
        object.__setattr__(self, "link", _link_items(self.link))
        object.__setattr__(self, "shared_memory_carveout", _carveout(self.shared_memory_carveout))
        backend = self.backend if self.backend is not None else os.environ.get("CUMLIR_BACKEND") or backends.DEFAULT
        object.__setattr__(self, "backend", backends.check(backend))
        object.__setattr__(self, "nrt", _nrt(self.nrt))

    @classmethod
    def from_keywords(cls, where: str, keywords: Mapping[str, Any]) -> Options:
        """Options from user keywords: unknown ones raise TypeError naming the closest known one."""
        known = {f.name for f in fields(cls)}
        for name, value in keywords.items():
            if name in _REFUSED and value is not None:
                raise TypeError(f"{where}: the keyword {name!r} is not supported: {_REFUSED[name]}")
            if name not in known and name not in _REFUSED and name not in _NUMBA_ONLY:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise TypeError(f"{where}: unknown keyword argument {name!r}{hint}")
        _numba_only(where, keywords)
        chosen = {k: v for k, v in keywords.items() if k in known}
        if chosen.get("debug") is None:
            chosen.pop("debug", None)
        if chosen.get("opt") is None:
            chosen.pop("opt", None)
        if chosen.get("lto") is None:
            chosen.pop("lto", None)
        if chosen.get("nrt") is None:
            chosen.pop("nrt", None)
        return cls(**chosen)

    def replace(self, **changes: Any) -> Options:
        return replace(self, **changes)

    @property
    def fast(self) -> bool:
        """Whether fastmath=True (every flag, flushing denormals, approximate routines)."""
        return "fast" in self.fastmath

    @property
    def arithmetic_flags(self) -> frozenset[str]:
        """The fast-math flags every floating-point operation gets: fastmath's, and
        ``contract`` unless fma=False."""
        return self.fastmath | {"contract"} if self.fma else self.fastmath

    @property
    def approximate_functions(self) -> bool:
        """Whether math functions may be approximate (fastmath=True, or the "afn" flag)."""
        return self.fast or "afn" in self.fastmath

    def cache_key(self) -> str:
        """A stable text over every field that changes the generated code (not cache or carveout)."""
        parts = []
        for f in fields(self):
            if f.name in ("cache", "shared_memory_carveout"):
                continue
            value = getattr(self, f.name)
            if f.name == "link":
                value = [link_digest(item) for item in value]
            elif f.name == "fastmath":
                value = sorted(value)
            parts.append(f"{f.name}={value!r}")
        return ";".join(parts)


# -- keywords numba's own jit knows that have no meaning or an own rule here -----------

_NUMBA_ONLY = {"device", "extensions", "boundscheck"}


def _numba_only(where: str, keywords: Mapping[str, Any]) -> None:
    if keywords.get("extensions"):
        raise NotImplementedError(f"{where}: extensions= (argument handlers) are not supported by cumlir")
    if keywords.get("boundscheck"):
        raise NotImplementedError(
            f"{where}: boundscheck=True is not supported (as in Numba-CUDA); debug=True checks every index"
        )


# -- checks of single fields ----------------------------------------------------------------


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"the option {name} must be True or False, got {value!r}")


def _fastmath(value: object) -> frozenset[str]:
    if value is True:
        return frozenset({"fast"})
    if value is False or value is None:
        return frozenset()
    if isinstance(value, dict):
        value = {flag for flag, on in value.items() if on}
    if isinstance(value, (set, frozenset, list, tuple)):
        flags = frozenset(value)
        unknown = sorted(str(f) for f in flags - FASTMATH_FLAGS)
        if unknown:
            raise ValueError(
                f"the option fastmath has unknown flags {unknown}; choose among {', '.join(sorted(FASTMATH_FLAGS))}"
            )
        return frozenset({"fast"}) if "fast" in flags else flags
    raise TypeError(f"the option fastmath must be True, False or a set of LLVM fast-math flags, got {value!r}")


def _max_registers(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"the option max_registers must be an int, got {value!r}")
    low, high = MAX_REGISTERS_RANGE
    if not low <= value <= high:
        raise ValueError(f"the option max_registers must be between {low} and {high}, got {value}")
    return value


def _launch_bounds(value: object) -> tuple[int, ...]:
    if value is None or value == ():
        return ()
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3 or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise TypeError(f"the option launch_bounds must be an int or a tuple of 1 to 3 ints, got {value!r}")
    if any(v <= 0 for v in items):
        raise ValueError(f"the option launch_bounds must hold positive ints, got {value!r}")
    return items


def _inline(value: object) -> str:
    if isinstance(value, bool):  # Numba-CUDA's older spelling
        value = "always" if value else "never"
    if value not in INLINE_MODES:
        raise ValueError(f"the option inline must be 'never' or 'always', got {value!r}")
    return value


NRT_VARIABLES = ("CUMLIR_ENABLE_NRT", "NUMBA_CUDA_ENABLE_NRT")


def _nrt(value: bool | None) -> bool:
    """nrt=None takes the environment's switch (cumlir's, else Numba-CUDA's)."""
    if value is None:
        for name in NRT_VARIABLES:
            setting = os.environ.get(name)
            if setting is not None and setting.strip() != "":
                return _env_flag(name, setting)
        return False
    _check_bool("nrt", value)
    return value


def _env_flag(name: str, setting: str) -> bool:
    try:
        return bool(int(setting))
    except ValueError:
        raise ValueError(f"the environment variable {name} must be 0 or 1, got {setting!r}") from None


def _carveout(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value not in CARVEOUT_NAMES:
            raise ValueError(
                f"the option shared_memory_carveout must be one of {', '.join(CARVEOUT_NAMES)} or a percentage, got {value!r}"
            )
        return CARVEOUT_NAMES[value]
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= 100:
        raise ValueError(f"the option shared_memory_carveout must be an int from -1 to 100, got {value!r}")
    return value


def _link_items(link: object) -> tuple[LinkItem, ...]:
    """Link items checked when the options are built: a bad path suffix is reported here."""
    items = link if isinstance(link, (list, tuple)) else [link]
    return tuple(as_linkable(item) for item in items)


def link_digest(item: LinkItem) -> str:
    """The kind, name and contents of a link item (a path is read now), for cache keys."""
    code = load(item)
    nrt = ":nrt" if code.nrt else ""
    return f"{type(code).__name__}:{code.name}{nrt}:{hashlib.sha256(code.bytes).hexdigest()[:16]}"
