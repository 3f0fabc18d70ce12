"""What ``@cuda.jit`` returns: compiles a Python function per argument-type signature.

A Dispatcher is both a kernel (``f[grid, block](*args)``) and a device function
(called from other jitted code: numba's typing sees its ``DeviceDispatcher``).
Kernels are typed on first launch for each signature (or when decorated, for the
signatures given to ``@cuda.jit``), compiled by the compiler for the current
device's chip, and handed to the runtime as a cubin to load and launch.
With ``cache=True`` or ``CUMLIR_CACHE=1`` the cubin of each signature and chip is kept
on disk (cache/): a kernel found there is loaded without being typed or lowered.
This module imports neither numba nor MLIR until something is compiled.
"""

import functools
import inspect
import time

from .options import Options


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
        self._overloads = {}  # argument types -> KernelOverload
        self._disk_cache = None  # cache.KernelCache, False when off; decided on first compile
        self._eager = bool(sigs)
        for sig in sigs or ():
            self.compile(sig)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<cumlir {kind} {self.py_func.__qualname__}>"

    # ---- as a kernel -------------------------------------------------------------------

    def __getitem__(self, config):
        from .runtime.launch import LaunchConfiguration

        if self.device:
            raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
        return ConfiguredKernel(self, LaunchConfiguration(config))

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
            overload = self._overloads[argtypes] = KernelOverload(self, argtypes, return_type, typed=typed)
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

    def disk_cache(self):
        """The on-disk cache of this kernel's binaries (a cache.KernelCache), or None when off."""
        if self._disk_cache is None:
            from . import cache

            self._disk_cache = cache.enabled(self.options) and cache.KernelCache(self.py_func, self.options)
        return self._disk_cache or None

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


class KernelOverload:
    """The kernel for one tuple of argument types: typed once, compiled per chip, loaded per
    context by the runtime."""

    def __init__(self, dispatcher, argtypes, return_type=None, typed=True):
        self.dispatcher = dispatcher
        self.argtypes = tuple(argtypes)
        self._return_type = return_type
        self._typed = None
        self._stats = {}  # compile_stats figure -> seconds, and the cache's verdict
        self._compilations = {}  # chip -> Compilation
        self._binaries = {}  # chip -> what the runtime loads: a Compilation or cache.CachedKernel
        self._loaded = {}  # context -> runtime.kernel.LoadedKernel
        if typed:  # typing errors surface here: at decoration for eager signatures
            self._typed = self._frontend()

    def __repr__(self):
        return f"<cumlir kernel {self.dispatcher.__name__}{self.argtypes}>"

    @property
    def typed(self):
        """The typed function (numba's frontend runs on first use)."""
        if self._typed is None:
            self._typed = self._frontend()
        return self._typed

    def _frontend(self):
        from .compiler import kernel

        c = kernel(self.dispatcher.py_func, self.argtypes, None, until="typed", return_type=self._return_type)
        self._stats.update(c.timings)
        return c.typed

    @property
    def compile_stats(self):
        """Seconds spent in this process on each stage of this signature: ``frontend``,
        ``lowering``, ``passes``, ``codegen``, ``link``, ``cache_read``, ``cache_write``,
        ``load`` (those that ran), and ``cache``: "hit", "miss", "not cacheable" or "off"."""
        return dict(self._stats)

    def compilation(self, cc, until="cubin"):
        """The Compilation for compute capability *cc*, run up to the stage *until*."""
        from .codegen.targets import parse_cc
        from .compiler import kernel, run

        cc = parse_cc(cc)
        c = self._compilations.get(cc)
        if c is None:
            options = self.dispatcher.options
            c = self._compilations[cc] = kernel(self.dispatcher.py_func, self.argtypes, cc, options, typed=self.typed, until="typed")
        if not _later(until, c.done):
            return c
        c.timings.clear()
        run(c, until)
        for figure, seconds in c.timings.items():
            self._stats[figure] = self._stats.get(figure, 0.0) + seconds
        return c

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

    def _cached_or_compiled(self, cc):
        cache = self.dispatcher.disk_cache()
        if cache is None:
            self._stats["cache"] = "off"
            return self.compilation(cc)
        began = time.perf_counter()
        found = cache.load(self.argtypes, cc)
        self._stats["cache_read"] = time.perf_counter() - began
        if found is not None:
            self._stats["cache"] = "hit"
            return found
        c = self.compilation(cc)
        began = time.perf_counter()
        cacheable = cache.save(self.argtypes, cc, c)
        self._stats["cache_write"] = time.perf_counter() - began
        self._stats["cache"] = "miss" if cacheable else "not cacheable"
        return c

    def output(self, output, cc=None):
        """What the compiler makes for *output* (``ptx``, ``llvm``, ``mlir`` ...) for *cc*."""
        from .compiler import compilation, output_of

        cc = cc or _current_cc()
        if output in ("ptx", "ltoir", "cubin"):
            c = self.compilation(cc, "cubin" if output == "cubin" else "code")
            if output != "cubin" and c.code_format != output:
                raise ValueError(f"this kernel compiles to {c.code_format} (lto={self.dispatcher.options.lto})")
            return c.cubin if output == "cubin" else c.code
        c = compilation(self._entry(), cc, self.dispatcher.options, output)
        c.typed, c.done = self.typed, "typed"
        return output_of(c, output)

    def max_cooperative_grid_blocks(self, blockdim, dynsmem=0):
        """The most blocks of *blockdim* threads (an int or a tuple) with *dynsmem* bytes of
        dynamic shared memory that can be resident at once on the current device: the
        largest grid a cooperative launch may have."""
        return self.loaded().max_cooperative_grid_blocks(blockdim, dynsmem)

    def _entry(self):
        from .compiler import KernelEntry

        return KernelEntry(self.dispatcher.py_func, self.argtypes, self.dispatcher.__name__)

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
    """``kernel[grid, block, stream, shared_bytes]``: launches with that configuration."""

    def __init__(self, dispatcher, config):
        self.dispatcher = dispatcher
        self.config = config

    def __call__(self, *args, **kwargs):
        _loaded_for(self.dispatcher, args, kwargs).launch(args, self.config)


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
        kernel = _loaded_for(self.dispatcher, args, kwargs)
        tpb = self.tpb or kernel.max_potential_block_size(self.sharedmem)
        blocks = (self.ntasks + tpb - 1) // tpb
        kernel.launch(args, LaunchConfiguration((blocks, tpb, self.stream, self.sharedmem)))


def _loaded_for(dispatcher, args, kwargs):
    """The loaded kernel for the launch arguments *args*, checked."""
    from .runtime.arguments import argument_type

    if kwargs:
        raise TypeError(f"kernel {dispatcher.__name__} takes positional arguments only")
    expected = dispatcher.parameter_count
    if len(args) != expected:
        raise TypeError(f"kernel {dispatcher.__name__} takes {expected} arguments but {len(args)} were given")
    argtypes = tuple(argument_type(value, i) for i, value in enumerate(args))
    return dispatcher.overload_for(argtypes).loaded()


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


def _later(stage, done):
    from .compiler import STAGES

    return done is None or STAGES.index(stage) > STAGES.index(done)


def _current_cc():
    from .runtime.driver import current_context

    return current_context().compute_capability
