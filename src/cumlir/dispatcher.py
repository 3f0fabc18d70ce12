"""What ``@cuda.jit`` returns: compiles a Python function per argument-type signature.

A Dispatcher is both a kernel (``f[grid, block](*args)``) and a device function
(called from other jitted code: numba's typing sees its ``DeviceDispatcher``).
Kernels are typed on first launch for each signature (or when decorated, for the
signatures given to ``@cuda.jit``), compiled by the compiler for the current
device's chip, and handed to the runtime as a cubin to load and launch.
With ``cache=True`` or ``CUMLIR_CACHE=1`` the cubin of each signature and chip is kept
on disk (cache/): a kernel found there is loaded without being typed or lowered, and,
while numba is not imported, launched with argument types found without numba
(runtime/plain_types.py).
This module imports neither numba nor MLIR until something is compiled.
"""

import functools
import inspect
import sys
import time

from .options import Options
from . import refused

# CU_FUNC_ATTRIBUTE_* behind the resource queries of a loaded kernel
_RESOURCES = {
    "regs_per_thread": "CU_FUNC_ATTRIBUTE_NUM_REGS",
    "shared_mem_per_block": "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES",
    "local_mem_per_thread": "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES",
    "const_mem_size": "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES",
    "max_threads_per_block": "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
}


class Dispatcher:
    def __init__(self, pyfunc, sigs=None, *, device=False, options=None):
        if not inspect.isfunction(pyfunc):
            raise TypeError(f"@cuda.jit decorates Python functions, not {type(pyfunc).__name__} objects")
        self.py_func = pyfunc
        self.parameter_count = len(inspect.signature(pyfunc).parameters)  # checked at every launch
        functools.update_wrapper(self, pyfunc)
        self.device = device
        self.options = options or Options()
        self._device_dispatcher = None
        self._signatures = {}  # numba's argument types -> KernelOverload (read through _overloads)
        self._plain = {}  # plain argument types -> KernelOverload loaded from the disk cache by them
        self._unsettled = []  # those of them not yet under numba's types in _signatures
        self._disk_cache = None  # cache.KernelCache, False when off; decided on first compile
        self._eager = bool(sigs)  # compiled signatures only: no compiling at launch
        self._compiling = 0
        self._specialized = False
        self._specializations = {}  # (cc, argument types) -> specialized Dispatcher
        self._launchers = {}  # launch configuration -> ConfiguredKernel (see __getitem__)
        self._routes = {}  # argument kinds -> the fast path of the last launch with them (None: none)
        self._route_cache = {}  # (argument kinds, types, loaded kernel) -> runtime.fastpack.Route or None
        for sig in sigs or ():
            self.compile(sig)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<cumlir {kind} {self.py_func.__qualname__}>"

    # ---- as a kernel -------------------------------------------------------------------

    def __getitem__(self, config):
        # a configuration written before gives the same launcher: its checks are done
        try:
            launcher = self._launchers.get(config)
        except TypeError:  # lists in it
            launcher = None
        if launcher is not None and (
            len(config) == 2 and type(config[0]) is int and type(config[1]) is int or _plain(config)
        ):
            return launcher
        return self._configure(config)

    def _configure(self, config):
        from .runtime.launch import LaunchConfiguration
        from .runtime.streams import stream_handle

        if self.device:
            raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
        if type(config) is tuple and len(config) in (3, 4) and _plain(config[:2] + config[3:]):
            # a stream object: keyed by its handle, so the cache keeps no stream alive
            config = (config[0], config[1], stream_handle(config[2]), *config[3:])
            launcher = self._launchers.get(config)
            if launcher is not None and _plain(config):
                return launcher
        parsed = LaunchConfiguration(config)
        key = (parsed.griddim, parsed.blockdim, parsed.stream, parsed.sharedmem)
        launcher = self._launchers.get(key)
        if launcher is None:
            if len(self._launchers) >= 1024:  # grids sized by the data: keep the cache small
                self._launchers.clear()
            launcher = self._launchers[key] = ConfiguredKernel(self, parsed)
        if _plain(config):
            self._launchers[config] = launcher
        return launcher

    def _prepare_route(self, kinds, argtypes, kernel, args):
        """After a general launch: the fast path for later launches with arguments of these
        kinds, made once per kinds, types and loaded kernel (runtime/fastpack.py)."""
        key = (kinds, argtypes, kernel)
        try:
            route = self._route_cache[key]
        except KeyError:
            from .runtime.fastpack import build_route

            try:
                route = build_route(kernel, kinds, argtypes, args)
            except Exception:  # the launch is done: a route that cannot be made is only slower
                route = None
            self._route_cache[key] = route
        self._routes[kinds] = route

    def _forget_routes(self):
        """Compiled signatures changed: the argument types may now pick other kernels."""
        for route in self._route_cache.values():
            if route is not None:
                route.retire()
        self._routes.clear()
        self._route_cache.clear()

    def __call__(self, *args, **kwargs):
        if self.device:
            raise TypeError(
                f"device function {self.__name__}() can only be called from a kernel or another device function"
            )
        raise TypeError(
            f"kernel {self.__name__} must be launched with a configuration: {self.__name__}[blocks, threads](...)"
        )

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launch covering *ntasks* threads: ``kernel.forall(n)(*args)``. With ``tpb=0``
        the block size is the one the driver suggests for the most resident threads."""
        if self.device:
            raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def max_cooperative_grid_blocks(self, blockdim, dynsmem=0):
        """The most blocks of *blockdim* threads a cooperative launch of this kernel may have
        on the current device; the kernel must have exactly one compiled signature (else ask
        its overload: ``kernel.overloads[argtypes]``)."""
        if len(self._overloads) != 1:
            raise TypeError(
                f"kernel {self.__name__} has {len(self._overloads)} compiled signatures; call "
                "max_cooperative_grid_blocks on one of kernel.overloads, or compile one signature first"
            )
        return next(iter(self._overloads.values())).max_cooperative_grid_blocks(blockdim, dynsmem)

    def compile(self, sig):
        """Type for a signature (a string like "void(float32[:], int64)" or types): the
        KernelOverload, or the DeviceFunction of a device function. A signature the
        on-disk cache holds is not typed again."""
        from .typing.signatures import parse_signature

        argtypes, return_type = parse_signature(sig)
        if self.device:
            return self.device_dispatcher.compile_device(argtypes)
        overload = self._overloads.get(argtypes)
        if overload is None:
            cache = self.disk_cache()
            typed = not (cache and cache.known(argtypes))
            self._compiling += 1
            try:
                overload = self._overloads[argtypes] = KernelOverload(self, argtypes, return_type, typed=typed)
            finally:
                self._compiling -= 1
            self._forget_routes()
        return overload

    def overload_for(self, argtypes):
        """The kernel for the launch argument types (unless signatures were fixed, a new
        one, typed when it is compiled)."""
        overload = self._overloads.get(argtypes)
        if overload is not None:
            return overload
        if self._eager:
            return self._overloads[self._match_eager(argtypes)]
        return KernelOverload(self, argtypes, typed=False)  # kept once it compiles

    @property
    def _overloads(self):
        """Argument types -> KernelOverload: every kernel under numba's types of its arguments."""
        if self._unsettled:
            self._settle()
        return self._signatures

    def _settle(self):
        """Give the kernels loaded by their plain types numba's types (something asks for
        their signatures, or one is compiled for another chip)."""
        while self._unsettled:
            overload = self._unsettled.pop()
            overload.argtypes = tuple(t.numba() for t in overload.argtypes)
            self._signatures.setdefault(overload.argtypes, overload)

    def cached_overload(self, args):
        """The kernel for the launch arguments *args* found by their plain types: one loaded
        so before or, while numba is not imported, one the disk cache holds for the current
        device. None where numba must type them."""
        if not self._plain and "numba" in sys.modules:
            return None
        from .runtime.plain_types import plain_types

        plain = plain_types(args)
        if plain is None:
            return None
        overload = self._plain.get(plain)
        if overload is None and "numba" not in sys.modules and not self._eager and self.disk_cache() is not None:
            from .runtime.driver import current_context

            overload = KernelOverload(self, plain, typed=False)
            if not overload.from_cache(current_context().compute_capability):
                return None
            self._plain[plain] = overload
            self._unsettled.append(overload)
        return overload

    def disk_cache(self):
        """The on-disk cache of this kernel's binaries (a cache.KernelCache), or None when off."""
        if self._disk_cache is None:
            from . import cache

            self._disk_cache = cache.enabled(self.options) and cache.KernelCache(self.py_func, self.options)
        return self._disk_cache or None

    def enable_caching(self):
        """Use the on-disk cache for this kernel from now on, as ``cache=True`` does."""
        import dataclasses

        self.options = dataclasses.replace(self.options, cache=True)
        self._disk_cache = None

    @property
    def compile_stats(self):
        """Argument types -> where the compile time of that signature went (see
        ``KernelOverload.compile_stats``)."""
        return {argtypes: overload.compile_stats for argtypes, overload in self._overloads.items()}

    def _match_eager(self, argtypes):
        from .typing.signatures import accepts

        for candidate in self._overloads:
            if accepts(candidate, argtypes):
                return candidate
        shown = ", ".join(str(t) for t in argtypes)
        known = "; ".join("(" + ", ".join(str(t) for t in c) + ")" for c in self._overloads)
        raise TypeError(
            f"{self.__name__}: no compiled signature accepts the arguments ({shown}); compiled: {known}"
            + _refused_argument(self._overloads, argtypes)
        )

    @property
    def overloads(self):
        """Argument types -> the KernelOverload typed for them."""
        return dict(self._overloads)

    @property
    def signatures(self):
        device = list(self._device_dispatcher._device_functions) if self._device_dispatcher else []
        return list(self._overloads) + device

    def inspect_ptx(self, signature=None, cc=None):
        """The PTX of each compiled signature (or of *signature*), for *cc* or the current device."""
        return self._inspect("ptx", signature, cc)

    def inspect_llvm(self, signature=None, cc=None):
        """The LLVM IR of each compiled signature (or of *signature*)."""
        return self._inspect("llvm", signature, cc)

    def inspect_asm(self, signature=None, cc=None):
        """The PTX of each compiled signature (or of *signature*): Numba-CUDA's name for it."""
        return self._inspect("ptx", signature, cc)

    def inspect_types(self, file=None):
        """Print the typed Numba IR of each compiled signature (every variable with its type)."""
        import sys

        for argtypes, overload in self._overloads.items():
            print(f"{self.__name__} {argtypes}", file=file or sys.stdout)
            print(overload.typed.dump(), file=file or sys.stdout)

    def inspect_mlir(self, signature=None, cc=None):
        """The MLIR of each compiled signature (or of *signature*), as lowered."""
        return self._inspect("mlir", signature, cc)

    def _inspect(self, output, signature, cc):
        if signature is not None:
            return self.compile(signature).output(output, cc)
        return {argtypes: overload.output(output, cc) for argtypes, overload in self._overloads.items()}

    def inspect_sass(self, signature=None):
        """The SASS (nvdisasm's listing of the cubin for the current device) of each compiled
        signature, or of *signature*. Needs nvdisasm (the nvidia-cuda-nvdisasm wheel)."""
        from .codegen.disassemble import sass

        return self._disassemble(sass, signature)

    def inspect_lto_ptx(self, signature=None, cc=None):
        """The PTX nvJitLink's link-time optimiser makes from the kernel's LTO-IR and the
        LTO-IR it links, for each compiled signature (or *signature*); needs ``lto=True``."""
        if self.device:
            raise TypeError(f"{self.__name__} is a device function; inspect_lto_ptx shows kernels")
        if not self.options.lto:
            raise RuntimeError(f"{self.__name__} was not compiled with lto=True: it has no LTO-IR to link")
        if signature is not None:
            return self._overload_of(signature).lto_ptx(cc)
        return {argtypes: overload.lto_ptx(cc) for argtypes, overload in self._overloads.items()}

    def inspect_sass_cfg(self, signature=None):
        """The control-flow graph of the SASS (Graphviz DOT), as inspect_sass."""
        from .codegen.disassemble import sass_cfg

        return self._disassemble(sass_cfg, signature)

    def _disassemble(self, disassembler, signature):
        if self.device:
            raise TypeError(f"{self.__name__} is a device function; only kernels have SASS")
        if signature is not None:
            return disassembler(self._overload_of(signature).output("cubin"))
        return {argtypes: disassembler(overload.output("cubin")) for argtypes, overload in self._overloads.items()}

    def nrt_stats(self):
        """The device runtime's counters (docs/nrt.md) of this kernel's compiled signatures
        loaded in the current context: ``(alloc, free, mi_alloc, mi_free)``."""
        from .runtime import nrt_stats
        from .runtime.driver import current_context

        context = current_context()
        loaded = [overload._loaded[context] for overload in self._overloads.values() if context in overload._loaded]
        return nrt_stats.read(loaded)

    # ---- resources of the loaded kernel (Numba-CUDA's get_*) ----------------------------------

    def get_regs_per_thread(self, signature=None):
        """Registers each thread of the kernel uses on the current device: for *signature*, for
        the one signature of a specialized kernel, else a dict over the compiled signatures."""
        return self._resource("regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block (as get_regs_per_thread)."""
        return self._resource("shared_mem_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory per thread (as get_regs_per_thread)."""
        return self._resource("local_mem_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory the kernel uses (as get_regs_per_thread)."""
        return self._resource("const_mem_size", signature)

    def get_max_threads_per_block(self, signature=None):
        """The largest block the kernel can be launched with on the current device (as
        get_regs_per_thread)."""
        return self._resource("max_threads_per_block", signature)

    def _resource(self, name, signature):
        if signature is not None:
            return self._overload_of(signature).resource(name)
        if self._specialized:
            return next(iter(self._overloads.values())).resource(name)
        return {argtypes: overload.resource(name) for argtypes, overload in self._overloads.items()}

    def _overload_of(self, signature):
        """The compiled overload for *signature* (a signature string, a numba Signature or a
        tuple of argument types); KeyError if it was not compiled."""
        argtypes = _argtypes_of(signature)
        try:
            return self._overloads[argtypes]
        except KeyError:
            known = ", ".join(str(a) for a in self._overloads) or "none"
            raise KeyError(f"{self.__name__} has no compiled signature {argtypes}; compiled: {known}") from None

    # ---- Numba's dispatcher interface -------------------------------------------------------

    def get_overload(self, signature):
        """The compiled kernel (KernelOverload) of *signature*; for a device function, its
        typed DeviceFunction."""
        if self.device:
            return self.device_dispatcher.get_overload(_argtypes_of(signature))
        return self._overload_of(signature)

    @property
    def nopython_signatures(self):
        """The numba Signature of each compiled kernel (or typed device function)."""
        from numba.core import types
        from numba.core.typing import signature

        if self.device:
            return self.device_dispatcher.nopython_signatures
        return [signature(types.void, *argtypes) for argtypes in self._overloads]

    def get_call_template(self, args, kws):
        """Numba's typing of a call from jitted code: (template, Python signature, argument
        types, keywords), typing the device function for *args* first."""
        if not self.device:
            raise TypeError(f"kernel {self.__name__} cannot be called from device code; only device functions can")
        return self.device_dispatcher.get_call_template(args, kws)

    def typeof_pyval(self, value):
        """The numba type a launch argument *value* is compiled for."""
        from .runtime.arguments import argument_type

        return argument_type(value, 0)

    def fold_argument_types(self, args, kws):
        """(Python signature, argument types): kernels take positional arguments only; a
        device function's keywords and defaults are folded in, as numba does."""
        if self.device:
            return self.device_dispatcher.fold_argument_types(args, kws)
        if kws:
            raise TypeError(f"kernel {self.__name__} takes positional arguments only")
        return inspect.signature(self.py_func), tuple(args)

    @property
    def is_compiling(self):
        """How many signatures are being compiled now (0: none)."""
        return self._compiling

    def disable_compile(self, val=True):
        """Stop (or, with False, resume) compiling new signatures at launch: arguments must
        then suit a compiled signature."""
        if val and not self._overloads:
            raise ValueError(f"{self.__name__} has no compiled signature; compile one before disabling compilation")
        self._eager = bool(val)
        self._forget_routes()  # arguments a compiled signature accepted may now compile their own

    def recompile(self):
        """Compile every compiled signature afresh (after a global it reads has changed)."""
        old = [(argtypes, overload.return_type) for argtypes, overload in self._overloads.items()]
        self._signatures = {}
        self._plain.clear()
        self._forget_routes()
        for argtypes, return_type in old:
            self._overloads[argtypes] = KernelOverload(self, argtypes, return_type)

    @property
    def extensions(self):
        """Numba-CUDA's argument handlers: cumlir accepts none (``extensions=`` is refused)."""
        return None

    def specialize(self, *args):
        """A kernel compiled for the types of *args* (for the current device) that compiles
        nothing more: launches must suit that signature."""
        from .runtime.arguments import argument_type

        if self._specialized:
            raise RuntimeError(f"{self.__name__} is already a specialized kernel")
        if self.device:
            raise TypeError(f"{self.__name__} is a device function; only kernels are specialized")
        argtypes = tuple(argument_type(value, i) for i, value in enumerate(args))
        key = (_current_cc(), argtypes)
        specialization = self._specializations.get(key)
        if specialization is None:
            specialization = Dispatcher(self.py_func, device=False, options=self.options)
            specialization.compile(argtypes)
            specialization.disable_compile()
            specialization._specialized = True
            self._specializations[key] = specialization
        return specialization

    @property
    def specialized(self):
        """Whether this kernel was made by ``specialize``."""
        return self._specialized

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """The kernel with a launch configuration: ``kernel.configure(g, b)`` is ``kernel[g, b]``."""
        return self[griddim, blockdim, stream, sharedmem]

    def call(self, args, launch_config):
        """Launch with the arguments *args* and *launch_config* (what ``configure`` or
        ``kernel[...]`` returns, or a LaunchConfiguration)."""
        config = getattr(launch_config, "config", launch_config)
        _loaded_for(self, tuple(args), {})[0].launch(tuple(args), config)

    def dump(self, tab=""):
        """Print the kernel and its compiled signatures."""
        print(f"{tab}DUMP {type(self).__name__}[{self.__name__}]")
        for argtypes in self._overloads:
            print(f"{tab}  {self.__name__}({', '.join(str(t) for t in argtypes)})")
        print(f"{tab}END DUMP {type(self).__name__}[{self.__name__}]")

    # ---- as a device function ---------------------------------------------------------------

    @property
    def device_dispatcher(self):
        """The DeviceDispatcher that types this function where jitted code calls it."""
        if self._device_dispatcher is None:
            from .typing.frontend import DeviceDispatcher

            self._device_dispatcher = DeviceDispatcher(self.py_func, self.options)
        return self._device_dispatcher

    def compile_device(self, argtypes, return_type=None):
        return self.device_dispatcher.compile_device(argtypes, return_type)

    @property
    def _numba_type_(self):
        return self.device_dispatcher._numba_type_


# Numba-CUDA's dispatcher methods cumlir does not have raise NotImplementedError saying why
for _name in refused.DISPATCHER:
    setattr(Dispatcher, _name, refused.Refused(_name))


class KernelOverload:
    """The kernel for one tuple of argument types: typed once, compiled per chip, loaded per
    context by the runtime."""

    def __init__(self, dispatcher, argtypes, return_type=None, typed=True):
        self.dispatcher = dispatcher
        self.argtypes = tuple(argtypes)
        self.return_type = return_type
        self._build = None  # compiler.KernelBuild, made when the compiler is first needed
        self._stats = {}  # compile_stats figure -> seconds, and the cache's verdict
        self._binaries = {}  # chip -> what the runtime loads: a Compilation or cache.CachedKernel
        self._loaded = {}  # context -> runtime.kernel.LoadedKernel
        if typed:  # typing errors surface here: at decoration for eager signatures
            self.build().type()

    def __repr__(self):
        return f"<cumlir kernel {self.dispatcher.__name__}{self.argtypes}>"

    def build(self):
        """The compiler's KernelBuild of this kernel: the one way into the compiler."""
        if self._build is None:
            from .compiler import KernelBuild, KernelEntry

            self.dispatcher._settle()  # a kernel loaded by its plain types compiles under numba's
            pyfunc = self.dispatcher.py_func
            entry = KernelEntry(pyfunc, self.argtypes, pyfunc.__name__, self.return_type)
            self._build = KernelBuild(entry, self.dispatcher.options, timings=self._stats)
        return self._build

    @property
    def typed(self):
        """The typed function (numba's frontend runs on first use)."""
        return self.build().type()

    @property
    def compile_stats(self):
        """Seconds spent in this process on each stage of this signature: ``frontend``,
        ``lowering``, ``passes``, ``codegen``, ``link``, ``cache_read``, ``cache_write``,
        ``load`` (those that ran), and ``cache``: "hit", "miss", "not cacheable" or "off"."""
        return dict(self._stats)

    def compilation(self, cc, until="cubin"):
        """The Compilation for compute capability *cc*, run up to the stage *until*."""
        return self.build().compile(cc, until)

    def binary(self, cc):
        """The cubin for *cc* with what its launch needs (``cubin``, ``symbol``,
        ``cooperative`` ...): from this process, the on-disk cache, or compiled (and then
        written to the cache)."""
        from .codegen.targets import parse_cc

        cc = parse_cc(cc)
        found = self._binaries.get(cc)
        if found is None:
            found = self._binaries[cc] = self._cached_or_compiled(cc)
            self.dispatcher._overloads.setdefault(self.argtypes, self)
        return found

    def from_cache(self, cc):
        """Whether the on-disk cache holds this kernel for *cc* (then its binary for *cc*)."""
        cache = self.dispatcher.disk_cache()
        found = cache and self._read_cache(cache, cc)
        if found:
            self._binaries[cc] = found
        return bool(found)

    def _read_cache(self, cache, cc):
        began = time.perf_counter()
        found = cache.load(self.argtypes, cc)
        self._stats["cache_read"] = time.perf_counter() - began
        if found is not None:
            self._stats["cache"] = "hit"
        return found

    def _cached_or_compiled(self, cc):
        cache = self.dispatcher.disk_cache()
        if cache is None:
            self._stats["cache"] = "off"
            return self.compilation(cc)
        found = self._read_cache(cache, cc)
        if found is not None:
            return found
        c = self.compilation(cc)
        began = time.perf_counter()
        cacheable = cache.save(self.argtypes, cc, c)
        self._stats["cache_write"] = time.perf_counter() - began
        self._stats["cache"] = "miss" if cacheable else "not cacheable"
        return c

    def output(self, output, cc=None):
        """What the compiler makes for *output* (``ptx``, ``llvm``, ``mlir`` ...) for *cc*."""
        cc = cc or _current_cc()
        if output in ("ptx", "ltoir", "cubin"):
            c = self.compilation(cc, "cubin" if output == "cubin" else "code")
            if output != "cubin" and c.code_format != output:
                raise ValueError(f"this kernel compiles to {c.code_format} (lto={self.dispatcher.options.lto})")
            return c.cubin if output == "cubin" else c.code
        return self.build().output(output, cc)

    def max_cooperative_grid_blocks(self, blockdim, dynsmem=0):
        """The most blocks of *blockdim* threads (an int or a tuple) with *dynsmem* bytes of
        dynamic shared memory that can be resident at once on the current device: the
        largest grid a cooperative launch may have."""
        return self.loaded().max_cooperative_grid_blocks(blockdim, dynsmem)

    def lto_ptx(self, cc=None):
        """The PTX nvJitLink's link-time optimiser makes from this kernel and its LTO-IR link items."""
        from .linkable import LTOIR
        from .linking import link_ptx

        c = self.compilation(cc or _current_cc(), "code")
        return link_ptx([LTOIR(c.code, name=f"{c.symbol}.ltoir"), *c.link], c.cc)

    def resource(self, name):
        """A resource the kernel loaded on the current device uses: ``regs_per_thread``,
        ``shared_mem_per_block``, ``local_mem_per_thread``, ``const_mem_size`` or
        ``max_threads_per_block`` (from cuFuncGetAttribute)."""
        return self.loaded().function_attribute(_RESOURCES[name])

    regs_per_thread = property(lambda self: self.resource("regs_per_thread"))
    shared_mem_per_block = property(lambda self: self.resource("shared_mem_per_block"))
    local_mem_per_thread = property(lambda self: self.resource("local_mem_per_thread"))
    const_mem_size = property(lambda self: self.resource("const_mem_size"))
    max_threads_per_block = property(lambda self: self.resource("max_threads_per_block"))

    def loaded(self):
        """The runtime's kernel in the current context (compiled and loaded on first use)."""
        from .runtime.driver import current_context
        from .runtime.kernel import LoadedKernel

        context = current_context()
        kernel = self._loaded.get(context)
        if kernel is None:
            binary = self.binary(context.compute_capability)
            began = time.perf_counter()
            kernel = LoadedKernel(context, binary)
            self._stats["load"] = time.perf_counter() - began
            self._loaded[context] = kernel
            _report_stats(self, context.compute_capability)
        return kernel


class ConfiguredKernel:
    """``kernel[grid, block, stream, shared_bytes]``: launches with that configuration.

    One per configuration and kernel (the dispatcher keeps them). A launch whose argument
    kinds have a fast path (a Route, runtime/fastpack.py: made after the first launch with
    them) fills the route's parameter buffer and calls cuLaunchKernel; anything else (new
    kinds or types, another context, a value the route refuses) takes the general path:
    typing, compiling if needed, the checks, NumPy arrays copied in and out."""

    __slots__ = ("dispatcher", "config", "_routes", "_checked", "_geometry", "_stream", "_sharedmem", "_custream", "_fast", "_last")

    def __init__(self, dispatcher, config):
        self.dispatcher = dispatcher
        self.config = config
        self._routes = dispatcher._routes
        self._checked = None  # the runtime Context the configuration was checked against
        self._geometry = config.geometry()
        self._stream = config.stream
        self._sharedmem = config.sharedmem
        self._custream = None
        self._fast = {}  # Route -> its launch function with this configuration
        self._last = _declined  # the launch function that launched last: tried first

    def __call__(self, *args, **kwargs):
        if kwargs:
            return self._launch(args, kwargs)
        if self._last(*args):  # it checks the arguments' kinds itself
            return
        route = self._routes.get(tuple(map(type, args)) if args else ())
        if route is not None:
            launch = self._fast.get(route) or self._fast_launch(route)
            if launch(*args):
                self._last = launch
                return
        self._launch(args, kwargs)

    def _fast_launch(self, route):
        """The route's launch function with this configuration, once the configuration has
        been checked in the route's context (until then, one that declines every launch)."""
        if route.context is not self._checked:
            return _declined
        launch = _declined
        if not self._sharedmem or self._sharedmem <= route.shared.dynamic_allowed:
            launch = route.launcher(self._geometry, self._custream, self._stream)
        if len(self._fast) >= 64:  # routes of contexts and kinds seen before: keep a few
            self._fast.clear()
        self._fast[route] = launch
        return launch

    def _launch(self, args, kwargs):
        kernel, argtypes = _loaded_for(self.dispatcher, args, kwargs)
        kernel.launch(args, self.config)  # checks the configuration against the device
        context = kernel.record.context
        if self._checked is not context:
            from .runtime.driver import driver

            self._custream = driver().CUstream(self._stream)
            self._checked = context
            self._fast.clear()
            self._last = _declined
        self.dispatcher._prepare_route(tuple(map(type, args)), argtypes, kernel, args)


def _declined(*args):
    return False


class ForAll:
    """``kernel.forall(ntasks, tpb, stream, sharedmem)``: launched with enough blocks of
    *tpb* threads (0: the driver's suggestion for the kernel) to cover *ntasks* threads."""

    def __init__(self, dispatcher, ntasks, tpb, stream, sharedmem):
        for what, value in (("ntasks", ntasks), ("tpb", tpb), ("sharedmem", sharedmem)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{dispatcher.__name__}.forall: {what} must be a non-negative int, got {value!r}")
        self.dispatcher, self.ntasks, self.tpb, self.stream, self.sharedmem = dispatcher, ntasks, tpb, stream, sharedmem

    def __call__(self, *args, **kwargs):
        from .runtime.launch import LaunchConfiguration

        if self.ntasks == 0:  # nothing to launch, as in Numba-CUDA
            return
        kernel = _loaded_for(self.dispatcher, args, kwargs)[0]
        tpb = self.tpb or kernel.max_potential_block_size(self.sharedmem)
        blocks = (self.ntasks + tpb - 1) // tpb
        kernel.launch(args, LaunchConfiguration((blocks, tpb, self.stream, self.sharedmem)))


def _plain(config):
    """Whether a launch configuration holds only ints and tuples of ints (no stream
    object): one that may key the launcher cache without keeping an object alive, and
    that equals another only when it means the same (``1 == True == 1.0``)."""
    for part in config:
        if type(part) is tuple:
            for extent in part:
                if type(extent) is not int:
                    return False
        elif type(part) is not int:
            return False
    return True


def _loaded_for(dispatcher, args, kwargs):
    """The loaded kernel for the launch arguments *args*, checked."""
    from .runtime import warm_up
    from .runtime.arguments import argument_type

    warm_up.start()  # a first launch: the driver and the linker load while numba types the arguments

    if kwargs:
        raise TypeError(f"kernel {dispatcher.__name__} takes positional arguments only")
    expected = dispatcher.parameter_count
    if len(args) != expected:
        raise TypeError(f"kernel {dispatcher.__name__} takes {expected} arguments but {len(args)} were given")
    overload = dispatcher.cached_overload(args)
    if overload is not None:
        return overload.loaded(), overload.argtypes
    argtypes = tuple(argument_type(value, i) for i, value in enumerate(args))
    return dispatcher.overload_for(argtypes).loaded(), argtypes  # the types: for the fast path


def _report_stats(overload, cc):
    from . import compile_stats

    if compile_stats.requested():
        import sys

        shown = ", ".join(str(t) for t in overload.argtypes)
        title = f"{overload.dispatcher.__name__}({shown}) for sm_{cc[0]}{cc[1]}"
        print(compile_stats.table(title, overload._stats), file=sys.stderr)


def _refused_argument(overloads, argtypes):
    """With one compiled signature: which argument it refuses, named."""
    from .typing.signatures import first_refused

    if len(overloads) != 1:
        return ""
    (declared,) = overloads
    k = first_refused(declared, argtypes)
    return "" if k is None else f" (argument {k}: a {argtypes[k]} cannot be passed as {declared[k]})"


def _argtypes_of(signature):
    """The argument types of a signature string, a numba Signature or a tuple of types."""
    from .typing.signatures import parse_signature

    return tuple(signature.args) if hasattr(signature, "args") else parse_signature(signature)[0]


def _current_cc():
    from .runtime.driver import current_context

    return current_context().compute_capability
