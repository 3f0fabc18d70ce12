"""What ``@cuda.jit`` returns: compiles a Python function per argument-type signature.

A Dispatcher is both a kernel (``f[grid, block](*args)``) and a device function
(called from other jitted code, where numba's typing sees it as
``types.Dispatcher``). Kernels are compiled on first launch for each signature
(or eagerly for the signatures given to ``@cuda.jit``) and cached in memory.
This module imports neither numba nor MLIR until something is compiled.
"""

import functools
import inspect

_KNOWN_OPTIONS = {"debug", "lineinfo", "fastmath", "opt", "link", "cache", "max_registers", "inline", "forceinline", "backend"}


class DeviceFunction:
    """A device function typed for one signature; lowered into each module that calls it."""

    def __init__(self, dispatcher, typed):
        self.dispatcher = dispatcher
        self.typed = typed
        self.symbol_hint = dispatcher.py_func.__name__

    @property
    def signature(self):
        return self.typed.signature

    def __repr__(self):
        return f"<device function {self.symbol_hint}{self.signature}>"


class Dispatcher:
    def __init__(self, pyfunc, sigs=None, *, device=False, **options):
        if not inspect.isfunction(pyfunc):
            raise TypeError(f"@cuda.jit decorates Python functions, not {type(pyfunc).__name__} objects")
        self.py_func = pyfunc
        self.parameter_count = len(inspect.signature(pyfunc).parameters)  # checked at every launch
        functools.update_wrapper(self, pyfunc)
        self.device = device
        self.targetoptions = {k: v for k, v in options.items() if k in _KNOWN_OPTIONS}
        self._device_functions = {}  # argument types -> DeviceFunction
        self._typing = set()  # argument types being typed now (to detect recursion)
        self._kernels = {}  # argument types -> Kernel
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
        return LaunchConfiguration(self, config)

    def __call__(self, *args, **kwargs):
        if self.device:
            raise TypeError(
                f"device function {self.__name__}() can only be called from a kernel or another device function"
            )
        raise TypeError(
            f"kernel {self.__name__} must be launched with a configuration: {self.__name__}[blocks, threads](...)"
        )

    def compile(self, sig):
        """Compile for a signature (a string like "void(float32[:], int64)" or types); returns the Kernel."""
        from .runtime.kernel import Kernel
        from .typing.signatures import parse_signature

        argtypes, return_type = parse_signature(sig)
        if self.device:
            return self.compile_device(argtypes)
        kernel = self._kernels.get(argtypes)
        if kernel is None:
            if return_type is not None and str(return_type) not in ("none", "void"):
                raise TypeError(f"a kernel must return None, but the signature {sig!r} returns {return_type}")
            kernel = Kernel(self, argtypes)
            self._kernels[argtypes] = kernel
        return kernel

    def kernel_for(self, argtypes):
        """The kernel for the launch argument types: compiled now unless signatures were fixed."""
        kernel = self._kernels.get(argtypes)
        if kernel is not None:
            return kernel
        if self._eager:
            return self._kernels[self._match_eager(argtypes)]
        return self.compile(argtypes)

    def _match_eager(self, argtypes):
        from .typing.signatures import accepts

        for candidate in self._kernels:
            if accepts(candidate, argtypes):
                return candidate
        shown = ", ".join(str(t) for t in argtypes)
        known = "; ".join("(" + ", ".join(str(t) for t in c) + ")" for c in self._kernels)
        raise TypeError(f"{self.__name__}: no compiled signature accepts the arguments ({shown}); compiled: {known}")

    @property
    def signatures(self):
        return list(self._kernels) + list(self._device_functions)

    # ---- as a device function (numba's dispatcher protocol, used by type inference) -----

    def compile_device(self, argtypes):
        argtypes = tuple(argtypes)
        compiled = self._device_functions.get(argtypes)
        if compiled is not None:
            return compiled
        from numba.core.errors import TypingError

        from .compiler import type_function

        if argtypes in self._typing:
            # numba types self-recursion through the call stack (types.RecursiveCall);
            # getting here means a recursion it cannot resolve
            raise TypingError(f"cannot type the recursion of {self.__name__}{argtypes}")
        self._typing.add(argtypes)
        try:
            typed = type_function(self.py_func, argtypes)
        finally:
            self._typing.discard(argtypes)
        compiled = DeviceFunction(self, typed)
        self._device_functions[argtypes] = compiled
        return compiled

    def fold_argument_types(self, args, kws):
        """(Python signature, argument types with keywords and defaults folded in)."""
        from numba.core import types, utils
        from numba.core.typing.templates import fold_arguments

        pysig = utils.pysignature(self.py_func)

        def normal(index, param, value):
            return types.unliteral(value)

        def default(index, param, value):
            return types.Omitted(value)

        def stararg(index, param, values):
            return types.StarArgTuple(values)

        return pysig, tuple(fold_arguments(pysig, args, kws, normal, default, stararg))

    def get_call_template(self, args, kws):
        from numba.core import typing

        pysig, args = self.fold_argument_types(args, kws)
        self.compile_device(args)
        signatures = [d.signature for d in self._device_functions.values()]
        template = typing.make_concrete_template(f"CallTemplate({self.__name__})", self.py_func, signatures)
        return template, pysig, args, {}

    def get_overload(self, argtypes):
        return self._device_functions[tuple(argtypes)]

    @property
    def is_compiling(self):
        """Whether this function is being typed now (numba asks, to detect recursion)."""
        return bool(self._typing)

    @property
    def nopython_signatures(self):
        return [d.signature for d in self._device_functions.values()]

    @property
    def _numba_type_(self):
        from numba.core import types

        return types.Dispatcher(self)
