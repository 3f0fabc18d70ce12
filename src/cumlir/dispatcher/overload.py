"""One kernel per tuple of argument types: compiled through the compiler's one KernelBuild
(typed once, compiled per chip), its binaries read from and written to the on-disk cache,
and loaded per context by the runtime.

A kernel launched has two address classes (docs/launching.md, "Address classes"): *narrow*,
compiled with index_bits=32 for launches whose arrays all span less than 2**31 bytes, and
wide, the dispatcher's own options (64-bit offsets unless they fix index_bits); each has its
binaries and loaded kernels, the narrow one compiled from the same typed function."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .. import compile_stats
from ..codegen.targets import parse_cc
from ..codegen.targets import suffix as target_suffix
from ..compile_profile import CompileProfile
from ..launch_needs import LaunchNeeds, recording
from ..linkable import LTOIR
from ..linking import link_ptx
from ..runtime.driver import current_compute_capability, current_context
from ..runtime.kernel import LoadedKernel
from .metadata import KernelMetadata

if TYPE_CHECKING:
    import threading
    from types import FunctionType

    from numba.core import types

    from ..cache import CachedKernel, KernelCache
    from ..chips import ComputeCapability
    from ..compiler import Compilation, KernelBuild
    from ..options import Options
    from ..runtime.driver import Context
    from ..runtime.plain_types import PlainType
    from ..typing.frontend import TypedFunction

    class _Dispatcher(Protocol):
        """What an overload reads of its dispatcher (a surface.Dispatcher)."""

        __name__: str
        py_func: FunctionType
        options: Options

        @property
        def extensions(self) -> list[Any]: ...  # its argument handlers, which its user may change

    class _Table(Protocol):
        """What an overload reads of its table (a table.OverloadTable, which imports this module)."""

        lock: threading.RLock

        @property
        def dispatcher(self) -> _Dispatcher: ...

        def settle(self) -> None: ...

        def keep(self, overload: KernelOverload) -> None: ...

        def kept(self, argtypes: tuple[types.Type, ...]) -> KernelOverload | None: ...

        def disk_cache(self, narrow: bool = False) -> KernelCache | None: ...


# CU_FUNC_ATTRIBUTE_* behind the resource queries of a loaded kernel
_RESOURCES = {
    "regs_per_thread": "CU_FUNC_ATTRIBUTE_NUM_REGS",
    "shared_mem_per_block": "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES",
    "local_mem_per_thread": "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES",
    "const_mem_size": "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES",
    "max_threads_per_block": "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
}


class KernelOverload:
    """The kernel for one tuple of argument types: typed once, compiled per chip, loaded per
    context by the runtime. *table* is the OverloadTable of its dispatcher."""

    def __init__(
        self,
        table: _Table,
        argtypes: Iterable[types.Type] | Iterable[PlainType],
        return_type: types.Type | None = None,
        typed: bool = True,
    ) -> None:
        self.table = table
        self.dispatcher = table.dispatcher
        # numba's types; a kernel loaded by the plain types of its arguments holds PlainTypes
        # until its table settles it
        self.argtypes: tuple[Any, ...] = tuple(argtypes)
        self.return_type = return_type
        self._build: KernelBuild | None = None  # compiler.KernelBuild, made when the compiler is first needed
        # the KernelBuild of the narrow class, from the same typed function
        self._narrow_build: KernelBuild | None = None
        self._stats: dict[str, Any] = {}  # compile_stats figure -> seconds, and the cache's verdict
        # (chip, narrow) -> what the runtime loads: a Compilation or cache.CachedKernel
        self._binaries: dict[tuple[tuple[int, int], bool], Compilation | CachedKernel] = {}
        self._loaded: dict[Context, LoadedKernel] = {}  # context -> runtime.kernel.LoadedKernel
        self._narrow_loaded: dict[Context, LoadedKernel] = {}  # context -> the LoadedKernel of the narrow class
        self.needs = LaunchNeeds()  # what its code asked of its launches (launch_needs.py)
        self._metadata: KernelMetadata | None = None
        options = self.dispatcher.options
        self.profile = CompileProfile(
            self.dispatcher.py_func.__qualname__, "profile_jit" in options.dumps, options.profile_file
        )
        if typed:  # typing errors surface here: at decoration for eager signatures
            with recording(self.needs), self.profile.part("typing"):
                self.build().type_eagerly()

    def __repr__(self) -> str:
        return f"<cumlir kernel {self.dispatcher.__name__}{self.argtypes}>"

    def build(self, narrow: bool = False) -> KernelBuild:
        """The compiler's KernelBuild of this kernel (of its narrow class, compiled with
        index_bits=32): the one way into the compiler."""
        if narrow:
            return self._narrow()
        if self._build is None:
            # the compiler (numba, MLIR) loads here: a kernel from the disk cache never needs it
            from ..compiler import KernelBuild, KernelEntry, kernel_symbol

            with self.table.lock:
                if self._build is None:
                    self.table.settle()  # a kernel loaded by its plain types compiles under numba's
                    pyfunc = self.dispatcher.py_func
                    options = self.dispatcher.options
                    entry = KernelEntry(pyfunc, self.argtypes, kernel_symbol(pyfunc, options), self.return_type)
                    self._build = KernelBuild(entry, options, timings=self._stats)
        return self._build

    def _narrow(self) -> KernelBuild:
        if self._narrow_build is None:
            from ..compiler import KernelBuild

            build = self.build()
            with self.table.lock, recording(self.needs):
                if self._narrow_build is None:
                    options = build.options.replace(index_bits=32)
                    self._narrow_build = KernelBuild(build.entry, options, build.type_eagerly(), timings=self._stats)
        return self._narrow_build

    @property
    def typed(self) -> TypedFunction:
        """The typed function (numba's frontend runs on first use)."""
        build = self.build()
        if build.typed is not None:
            return build.typed
        with self.table.lock, recording(self.needs):  # the KernelBuild is one object for every thread
            return build.type()

    @property
    def compile_stats(self) -> dict[str, float | str]:
        """Seconds spent in this process on each stage of this signature: ``frontend``,
        ``lowering``, ``passes``, ``codegen``, ``link``, ``cache_read``, ``cache_write``,
        ``load`` (those that ran), and ``cache``: "hit", "miss", "not cacheable" or "off"."""
        return dict(self._stats)

    @property
    def metadata(self) -> KernelMetadata:
        """numba-cuda-mlir's compile-result metadata of this kernel (``func_name``, ``ptx``,
        ``cubin``, ``targetoptions``, ``regs_per_thread`` ...: dispatcher/metadata.py), each
        value computed when first read."""
        if self._metadata is None:
            self._metadata = KernelMetadata(self)
        return self._metadata

    def compilation(self, cc: ComputeCapability, until: str = "cubin", narrow: bool | None = None) -> Compilation:
        """The Compilation for compute capability *cc* (of the narrow class, or of the wide;
        None: the class compiled for *cc* already, the wide one if both or neither were),
        run up to the stage *until*."""
        if narrow is None:
            narrow = self._narrow_build is not None and parse_cc(cc) in self._narrow_build.chips
            narrow = narrow and not (self._build is not None and parse_cc(cc) in self._build.chips)
        build = self.build(narrow)
        with self.table.lock, recording(self.needs):
            return build.compile(cc, until)

    def binary(self, cc: ComputeCapability, narrow: bool = False) -> Compilation | CachedKernel:
        """The cubin for *cc* with what its launch needs (``cubin``, ``symbol``,
        ``cooperative`` ...): from this process, the on-disk cache, or compiled (and then
        written to the cache)."""
        key = parse_cc(cc), narrow
        found = self._binaries.get(key)
        if found is None:
            with self.table.lock:  # looked up again: another thread may have made it meanwhile
                found = self._binaries.get(key)
                twin = self._twin()
                if found is None and twin is not None:
                    return twin.binary(cc, narrow)
                if found is None:
                    found = self._binaries[key] = self._cached_or_compiled(key[0], narrow)
                    self.table.keep(self)
        return found

    def from_cache(self, cc: ComputeCapability, narrow: bool = False) -> bool:
        """Whether the on-disk cache holds this kernel (of the narrow class) for *cc* (then
        its binary for *cc*)."""
        cache = self.table.disk_cache(narrow)
        with self.table.lock:
            found = cache and self._read_cache(cache, cc)
            if found:
                self._binaries[parse_cc(cc), narrow] = found
        return bool(found)

    def _read_cache(self, cache: KernelCache, cc: ComputeCapability) -> CachedKernel | None:
        began = time.perf_counter()
        found = cache.load(self.argtypes, cc)
        self._stats["cache_read"] = time.perf_counter() - began
        if found is not None:
            self._stats["cache"] = "hit"
        return found

    def _cached_or_compiled(self, cc: tuple[int, int], narrow: bool) -> Compilation | CachedKernel:
        cache = self.table.disk_cache(narrow)
        if cache is None:
            self._stats["cache"] = "off"
            return self._compiled(cc, narrow)
        found = self._read_cache(cache, cc)
        if found is not None:
            return found
        # one compile for every process and thread missing this entry now: the others wait
        # on its lock, then read what the first wrote
        with cache.compiling(self.argtypes, cc) as locked:
            found = self._read_cache(cache, cc) if locked else None
            if found is not None:
                return found
            c = self._compiled(cc, narrow)
            began = time.perf_counter()
            # what the code asked of its launches is not in the cache's entries: such kernels compile
            cacheable = self.needs.trivial and cache.save(self.argtypes, cc, c, locked)
        self._stats["cache_write"] = time.perf_counter() - began
        self._stats["cache"] = "miss" if cacheable else "not cacheable"
        return c

    def _compiled(self, cc: tuple[int, int], narrow: bool) -> Compilation:
        """The Compilation for *cc* run to its cubin, profiled with profile_jit."""
        with self.profile.part(f"sm_{cc[0]}{cc[1]}"):
            return self.compilation(cc, narrow=narrow)

    def output(self, output: str, cc: ComputeCapability | None = None) -> str | bytes | None:
        """What the compiler makes for *output* (``ptx``, ``llvm``, ``mlir`` ...) for *cc*."""
        cc = (
            cc
            or self.dispatcher.options.chip
            or current_compute_capability(f"compiling {self.dispatcher.__name__} to {output}")
        )
        if output in ("ptx", "ltoir", "cubin"):
            c = self.compilation(cc, "cubin" if output == "cubin" else "codegen")
            if output != "cubin" and c.code_format != output:
                raise ValueError(f"this kernel compiles to {c.code_format} (lto={self.dispatcher.options.lto})")
            return c.cubin if output == "cubin" else c.code
        with self.table.lock, recording(self.needs):
            return self.build().output(output, cc)

    def max_cooperative_grid_blocks(self, blockdim: int | Sequence[int], dynsmem: int = 0) -> int:
        """The most blocks of *blockdim* threads (an int or a tuple) with *dynsmem* bytes of
        dynamic shared memory that can be resident at once on the current device: the
        largest grid a cooperative launch may have. Answered for the class a launch of arrays
        under 2**31 bytes takes (the narrow one, unless index_bits=64): the classes' register
        counts, and so their limits, may differ, and a launch checks its own class's."""
        narrow = self.dispatcher.options.index_bits != 64
        return self.loaded(narrow).max_cooperative_grid_blocks(blockdim, dynsmem)

    def lto_ptx(self, cc: ComputeCapability | None = None) -> str:
        """The PTX nvJitLink's link-time optimiser makes from this kernel and its LTO-IR link items."""
        c = self.compilation(
            cc
            or self.dispatcher.options.chip
            or current_compute_capability(f"compiling {self.dispatcher.__name__} to LTO-optimised PTX"),
            "codegen",
        )
        # run up to codegen: its code and chip are set (Compilation types them optional)
        return link_ptx([LTOIR(c.code, name=f"{c.symbol}.ltoir"), *c.link], c.cc, target_suffix(c.cc, c.options))  # type: ignore[arg-type]

    def resource(self, name: str) -> int:
        """A resource the kernel loaded on the current device uses: ``regs_per_thread``,
        ``shared_mem_per_block``, ``local_mem_per_thread``, ``const_mem_size`` or
        ``max_threads_per_block`` (from cuFuncGetAttribute)."""
        return self.loaded().function_attribute(_RESOURCES[name])

    regs_per_thread = property(lambda self: self.resource("regs_per_thread"))
    shared_mem_per_block = property(lambda self: self.resource("shared_mem_per_block"))
    local_mem_per_thread = property(lambda self: self.resource("local_mem_per_thread"))
    const_mem_size = property(lambda self: self.resource("const_mem_size"))
    max_threads_per_block = property(lambda self: self.resource("max_threads_per_block"))

    def loaded(self, narrow: bool | None = None) -> LoadedKernel:
        """The runtime's kernel (of the narrow class, or of the wide; None: the class loaded
        in the current context already, the wide one if both or neither were) in the current
        context (compiled and loaded on first use)."""
        context = current_context()
        if narrow is None:
            narrow = context in self._narrow_loaded and context not in self._loaded
        loaded = self._narrow_loaded if narrow else self._loaded
        kernel = loaded.get(context)
        if kernel is None:
            with self.table.lock:  # loaded once per context, however many threads launch it first
                kernel = loaded.get(context)
                twin = self._twin()
                if kernel is None and twin is not None:
                    return twin.loaded(narrow)
                if kernel is None:
                    binary = self.binary(context.compute_capability, narrow)
                    began = time.perf_counter()
                    # a Compilation run up to cubin has its cubin and symbol (typed optional there)
                    kernel = LoadedKernel(context, binary)  # type: ignore[arg-type]
                    kernel.min_dynamic_shared = self.needs.dynamic_shared
                    kernel.dynamic_alignment = self.needs.dynamic_alignment
                    kernel.narrow = narrow
                    kernel.extensions = self.dispatcher.extensions  # the list the kernel's user may change
                    self._stats["load"] = time.perf_counter() - began
                    loaded[context] = kernel
                    report_stats(self, context.compute_capability)
        return kernel

    def _twin(self) -> KernelOverload | None:
        """The kernel the table keeps for these argument types when it is not this one: two
        threads launching new argument types at once each make a KernelOverload, and the
        second to take the lock uses the one the first compiled (and kept) instead."""
        kept = self.table.kept(self.argtypes)
        return kept if kept is not self else None

    def loaded_in(self, context: Context) -> LoadedKernel | None:
        """The runtime's kernel in *context* if it was loaded there (the wide class first), else None."""
        return self._loaded.get(context) or self._narrow_loaded.get(context)


def report_stats(overload: KernelOverload, cc: tuple[int, int]) -> None:
    """With ``CUMLIR_COMPILE_STATS=1``: the figures of *overload* compiled for *cc*, on stderr."""
    if compile_stats.requested():
        shown = ", ".join(str(t) for t in overload.argtypes)
        title = f"{overload.dispatcher.__name__}({shown}) for sm_{cc[0]}{cc[1]}"
        print(compile_stats.table(title, overload._stats), file=sys.stderr)
