"""What ``@cuda.jit`` returns: compiles a Python function per argument-type signature.

A Dispatcher is both a kernel (``f[grid, block](*args)``) and a device function
(called from other jitted code: numba's typing sees its ``DeviceDispatcher``).
Kernels are typed on first launch for each signature (or when decorated, for the
signatures given to ``@cuda.jit``), compiled by the compiler for the current
device's chip, and handed to the runtime as a cubin to load and launch.
This module imports neither numba nor MLIR until something is compiled.
"""

import functools
import inspect

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
        KernelOverload, or the DeviceFunction of a device function."""
        from .typing.signatures import parse_signature

        argtypes, return_type = parse_signature(sig)
        if self.device:
            return self.device_dispatcher.compile_device(argtypes)
        overload = self._overloads.get(argtypes)
        if overload is None:
            overload = self._overloads[argtypes] = KernelOverload(self, argtypes, return_type)
        return overload

    def overload_for(self, argtypes):
        """The kernel for the launch argument types: typed now unless signatures were fixed."""
        overload = self._overloads.get(argtypes)
        if overload is not None:
            return overload
        if self._eager:
            return self._overloads[self._match_eager(argtypes)]
        return self.compile(argtypes)

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

    def __init__(self, dispatcher, argtypes, return_type=None):
        from .compiler import kernel

        self.dispatcher = dispatcher
        self.argtypes = tuple(argtypes)
        # typing errors surface here: at decoration for eager signatures, else at first launch
        self.typed = kernel(dispatcher.py_func, self.argtypes, None, until="typed", return_type=return_type).typed
        self._compilations = {}  # chip -> Compilation with its cubin
        self._loaded = {}  # context -> runtime.kernel.LoadedKernel

    def __repr__(self):
        return f"<cumlir kernel {self.dispatcher.__name__}{self.argtypes}>"

    def compilation(self, cc, until="cubin"):
        """The Compilation for compute capability *cc*, run up to the stage *until*."""
        from .codegen.targets import parse_cc
        from .compiler import kernel, run

        cc = parse_cc(cc)
        c = self._compilations.get(cc)
        if c is None:
            options = self.dispatcher.options
            c = self._compilations[cc] = kernel(self.dispatcher.py_func, self.argtypes, cc, options, typed=self.typed, until="typed")
        return run(c, until) if _later(until, c.done) else c

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
            c = self.compilation(context.compute_capability)
            kernel = LoadedKernel(context, c)
            self._loaded[context] = kernel
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
