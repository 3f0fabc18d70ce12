"""The on-disk kernel cache: ``@cuda.jit(cache=True)`` or ``CUMLIR_CACHE=1``.

An entry holds a kernel's cubin for one chip and what its launch needs (the kernel's
symbol, whether it is launched cooperatively, the meaning of its device exception
codes). Its key covers everything the cubin depends on: the function's fingerprint
(bytecode, constants, closure, globals read, and the same of the functions it calls:
fingerprint.py), the argument types, the chip, the code-changing options with the
contents of link items, and the versions of Python, cumlir, numba, the MLIR bindings,
the CUDA libraries and the linker (nvJitLink's, or the driver's where it links). Reading an entry imports neither numba's frontend nor MLIR:
a kernel found here is loaded without being typed or lowered (docs/compiling.md,
"Caching").
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .. import backends
from ..linking import linker_identity
from . import store
from .entry import VERSION, Entry, NotStorable, decode, encode
from .fingerprint import CapturesDeviceArray, Unhashable, function_fingerprint
from .store import CacheWarning, directory_for, entries_like, log_debug

if TYPE_CHECKING:
    from _hashlib import HASH
    from types import FunctionType

    from ..chips import ComputeCapability
    from ..options import Options
    from ..raise_sites import RaiseSite

__all__ = [
    "CacheWarning",
    "CachedKernel",
    "KernelCache",
    "Unhashable",
    "enabled",
    "flag",
    "function_fingerprint",
    "versions",
]

# the libraries whose versions change the code: the frontend, the bindings, the linker and
# NVRTC, and what each code generator declares in the registry (backends.py)
_DISTRIBUTIONS = ("numba", "cuda-bindings", "nvidia-nvjitlink", "nvidia-cuda-nvrtc", *backends.libraries())


def flag(name: str) -> bool:
    """Whether the environment variable *name* is set to a true value (1, true, yes, on)."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def enabled(options: Options) -> bool:
    return options.cache or flag("CUMLIR_CACHE")


class CachedKernel:
    """A kernel's cubin for one chip and what launching it needs, as the runtime reads it
    from a Compilation."""

    def __init__(
        self,
        cubin: bytes,
        symbol: str,
        argtypes: tuple[Any, ...],
        cooperative: bool,
        raise_sites: list[RaiseSite],
        exception_global: str | None,
        options: Options,
    ) -> None:
        self.cubin = cubin
        self.symbol = symbol
        self.argtypes = argtypes
        self.cooperative = cooperative
        self.raise_sites = raise_sites
        self.exception_global = exception_global
        self.options = options

    def __repr__(self) -> str:
        return f"<cumlir cached kernel {self.symbol}>"


class KernelCache:
    """The entries of one ``@cuda.jit`` function with its options."""

    def __init__(self, pyfunc: FunctionType, options: Options) -> None:
        self.pyfunc = pyfunc
        self.options = options

    def load(self, argtypes: Sequence[object], cc: ComputeCapability) -> CachedKernel | None:
        """The CachedKernel for *argtypes* and chip *cc*, or None."""
        found = self._entry(argtypes, cc)
        if found is None:
            return None
        path, key = found
        entry = decode(store.read(path), path, key)
        if entry is None:
            return None
        return CachedKernel(
            entry.cubin,
            entry.symbol,
            tuple(argtypes),
            entry.cooperative,
            list(entry.raise_sites),
            entry.exception_global,
            self.options,
        )

    def known(self, argtypes: Sequence[object]) -> bool:
        """Whether an entry for *argtypes* exists for some chip (the function typed there)."""
        found = self._entry(argtypes, None)
        if found is None:
            return False
        path, key = found
        return any(decode(store.read(other), other, key, ignore=("cc",)) is not None for other in entries_like(path))

    @contextlib.contextmanager
    def compiling(self, argtypes: Sequence[object], cc: ComputeCapability) -> Iterator[bool]:
        """Hold the lock of the entry for *argtypes* on *cc* while the block compiles it:
        processes and threads that miss the same entry at once compile it once, the others
        waiting and then reading it. Yields whether the lock is held (save with it)."""
        found = self._entry(argtypes, cc)
        if found is None:
            yield False
            return
        with store.held(found[0]) as holding:
            yield holding

    # compiled: a compiler.Compilation run to its cubin (the cache imports nothing of the compiler)
    def save(self, argtypes: Sequence[object], cc: ComputeCapability, compiled: Any, locked: bool = False) -> bool:
        """Write the entry of *compiled* (a Compilation that ran to its cubin); *locked*:
        inside ``compiling``, which holds the entry's lock. False when the kernel cannot be
        cached; True otherwise, even where writing failed (a warning)."""
        found = self._entry(argtypes, cc)
        if found is None:
            return False
        path, key = found
        entry = Entry(
            key=key,
            cubin=compiled.cubin,
            symbol=compiled.symbol,
            cooperative=compiled.cooperative,
            exception_global=compiled.exception_global,
            raise_sites=tuple(compiled.raise_sites),
            signature=f"{compiled.return_type}({', '.join(map(str, argtypes))})",
        )
        try:
            data = encode(entry)
        except NotStorable as e:  # a device raise of an exception class that cannot be found by name, say
            log_debug("the kernel for %s cannot be cached: %s", path, e)
            return False
        store.write(path, data, lambda existing: decode(existing, path, key) is not None, locked)
        return True

    def _entry(self, argtypes: Sequence[object], cc: ComputeCapability | None) -> tuple[str, dict[str, Any]] | None:
        """(path, key) of the entry for *argtypes* on *cc* (None: any chip), or None when the
        function depends on a value that cannot be fingerprinted (said in the debug log)."""
        fn = self.pyfunc
        try:
            fingerprint = function_fingerprint(fn)
        except CapturesDeviceArray as e:
            if self.options.cache:  # asked of this kernel: refused as Numba-CUDA refuses it (CUMLIR_CACHE=1 skips it)
                raise pickle.PicklingError(
                    f"Cannot serialize kernels or device functions referencing global device arrays: {e}. Pass "
                    "the array(s) as arguments to the kernel instead, or compile it without cache=True"
                ) from None
            log_debug("%s is not cached: %s", fn.__qualname__, e)
            return None
        except Unhashable as e:
            log_debug("%s is not cached: %s", fn.__qualname__, e)
            return None
        except Exception as e:  # a value that fails to describe itself: compile without the cache
            log_debug("%s is not cached: describing what it depends on failed: %r", fn.__qualname__, e)
            return None
        options = self.options.cache_key()
        types = [type_name(t) for t in argtypes]
        key = {
            "format": VERSION,
            "function": fingerprint,
            "argtypes": types,
            "options": options,
            "cc": cc and list(cc),  # type: ignore[arg-type]  # (major, minor): a "9.0" would be listed as its letters
            "versions": versions(),
        }
        slot = hashlib.sha256(repr((fn.__code__.co_filename, fn.__qualname__, types, options)).encode()).hexdigest()[
            :24
        ]
        name = re.sub(r"[^A-Za-z0-9_]+", "_", f"{fn.__module__}.{fn.__qualname__}")[:80]
        chip = f"sm{cc[0]}{cc[1]}" if cc else "any"
        return os.path.join(directory_for(fn.__code__.co_filename), f"{name}-{slot}.{chip}.cumlir"), key


def type_name(ty: object) -> str:
    """How the key names an argument type: numba's class of it and its name, as the plain
    types of runtime/plain_types.py also name themselves."""
    return getattr(ty, "cache_name", None) or f"{type(ty).__name__}:{ty}"


_library_versions: dict[str, str | None] | None = None


def versions() -> dict[str, Any]:
    """The versions of everything the generated code depends on besides the function."""
    global _library_versions
    if _library_versions is None:
        found = {name: installed_version(name) for name in _DISTRIBUTIONS}
        found["python"] = sys.version
        found["cumlir sources"] = _source_stamp()
        _library_versions = found
    # read from the loaded package, which imports nothing for it (its public namespace sits above)
    return {"cumlir": sys.modules["cumlir"].__version__, **_library_versions, "linker": _linker()}


def _linker() -> str:
    """What links the cubins: nvJitLink's wheel, whose version is listed already (read
    without loading the library, as a cache hit needs no linker), else the linker chosen and
    its version (the driver's, whose ptxas compiles the PTX)."""
    if _library_versions["nvidia-nvjitlink"] and os.environ.get("CUMLIR_LINKER", "").strip().lower() != "driver":  # type: ignore[index]  # versions() set it
        return "nvjitlink"
    return linker_identity()


def installed_version(distribution: str) -> str | None:
    """The version of an installed distribution, from the name of its metadata folder on
    ``sys.path`` as ``importlib.metadata`` finds it (importing that takes longer than a
    cache hit may), or None."""
    wanted = re.sub(r"[-_.]+", "_", distribution).lower()
    for folder in sys.path:
        for entry in _listing(folder or "."):
            stem, dot, suffix = entry.rpartition(".")
            if suffix in ("dist-info", "egg-info") and dot:
                name, _, version = stem.partition("-")
                if version and re.sub(r"[-_.]+", "_", name).lower() == wanted:
                    return version
    return None


@functools.cache
def _listing(folder: str) -> tuple[str, ...]:
    try:
        return tuple(sorted(os.listdir(folder)))
    except OSError:
        return ()


def _source_stamp() -> str:
    """cumlir's own sources (paths, sizes, modification times): a development tree whose
    version number stays the same still misses the cache when it changes."""
    h = hashlib.sha256()
    _stamp_folder(h, os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")  # the cumlir package
    return h.hexdigest()


def _stamp_folder(h: HASH, folder: str, relative: str) -> None:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name != "__pycache__":
                _stamp_folder(h, entry.path, f"{relative}{entry.name}/")
        elif entry.name.endswith((".py", ".mlir")):  # the device runtime's MLIR too
            st = entry.stat()
            h.update(f"{relative}{entry.name}:{st.st_size}:{st.st_mtime_ns};".encode())
