"""``Dispatcher``, what ``@cuda.jit`` returns: Numba-CUDA's dispatcher, delegating.

Its kernels, one per tuple of argument types, are kept by an OverloadTable (table.py),
made when something first compiles, launches or asks for them; launching goes through
Launches (launching.py), made at the first launch configuration. Both are loaded on first
use: decorating a function imports neither numba, MLIR nor the runtime.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeAlias

from .. import launch_needs, refused
from ..options import Options
from ..pickling import picklable_function
from .config_keys import plain
from .device_code import device_code
from .handlers import ArgumentHandlers, handlers_of
from .made_once import made_once

if TYPE_CHECKING:
    from numba.core import types
    from numba.core.typing.templates import Signature

    from ..cache import KernelCache
    from ..chips import ComputeCapability
    from ..launch_needs import LaunchKey
    from ..typing.frontend import DeviceDispatcher, DeviceFunction
    from ..typing.signatures import SignatureLike
    from .launching import ConfiguredKernel, ForAll, Launches
    from .metadata import KernelMetadata
    from .overload import KernelOverload
    from .table import OverloadTable

    # the signatures a pickled Dispatcher is rebuilt with: (argument types, declared result type)
    _Signatures: TypeAlias = list[tuple[tuple[types.Type, ...], types.Type | None]]


def _undefined_name(error: BaseException) -> bool:
    """Whether typing failed on a global name the function's module does not define (yet)."""
    return type(error).__name__ == "TypingError" and "NameError: name '" in str(error)


class Dispatcher:
    __name__: str  # the function's, as its other attributes (functools.update_wrapper)

    def __init__(
        self,
        pyfunc: Callable[..., Any],
        sigs: Iterable[SignatureLike] | None = None,
        *,
        device: bool = False,
        options: Options | None = None,
        specialized: bool = False,
    ) -> None:
        if not inspect.isfunction(pyfunc):
            raise TypeError(f"@cuda.jit decorates Python functions, not {type(pyfunc).__name__} objects")
        self.py_func = pyfunc
        # compiling, loading and making the table or launchers take it; launching a kernel
        # compiled before reads dictionaries only and takes no lock
        self._lock = threading.RLock()
        parameters = inspect.signature(pyfunc).parameters.values()
        # a launch's arguments, checked at every launch: the positional parameters, and with
        # *args (star_args) any number more
        self.parameter_count = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
        self.star_args = any(p.kind is p.VAR_POSITIONAL for p in parameters)
        # keyword-only parameters, **kwargs: a launch names them in its error
        self.star_parameters = any(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in parameters)
        functools.update_wrapper(self, pyfunc)
        self.device = device
        self.options = options or Options()
        self._device_dispatcher: DeviceDispatcher | None = None
        self._specialized = specialized  # by specialize(), or cuda.jit given one signature, as Numba-CUDA's
        # (cc, argument types) -> specialized Dispatcher
        self._specializations: dict[tuple[tuple[int, int], tuple[types.Type, ...]], Dispatcher] = {}
        self._launchers: dict[Any, ConfiguredKernel] = {}  # launch configuration -> ConfiguredKernel (see __getitem__)
        self._launches: Launches | None = None  # launching.Launches, made at the first launch configuration
        # a device function's signatures that name functions not defined yet (see _compile_given)
        self._deferred: list[SignatureLike] = []
        if sigs:
            self._table.eager = True  # compiled signatures only: no compiling at launch
        for sig in sigs or ():
            self._compile_given(sig)

    def _compile_given(self, sig: SignatureLike) -> None:
        """Compiles a signature given to the decorator. A device function may call one defined
        after it (mutual recursion): a signature whose typing meets a name not defined yet is
        typed at the function's first use instead, when its module has run to the end."""
        try:
            compiled = self.compile(sig)
        except Exception as e:
            if not (self.device and _undefined_name(e)):
                raise
            self._deferred.append(sig)
            return
        if self.device:  # calls convert their arguments to it, as to Numba-CUDA's compiled signatures
            self.device_dispatcher.declare(compiled)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[Callable[..., Dispatcher], tuple[Any, ...]]:
        # what the user wrote: the function, the options, the signatures compiled (with the
        # declared result types) and whether compiling at launch is off; the other process
        # types them again, or finds their binaries in the disk cache
        signatures: _Signatures
        if self.device:
            made = self._device_dispatcher
            signatures = [(argtypes, None) for argtypes in made._device_functions] if made else []
            signatures += [(self._table.parse_signature(sig)[0], None) for sig in self._deferred]
        elif "_table" in self.__dict__:  # a table was made: signatures may be compiled
            table = self._table
            signatures = [(argtypes, o.return_type) for argtypes, o in table.overloads.items()]
        else:
            signatures = []
        eager = "_table" in self.__dict__ and self._table.eager
        state = (self.device, self.options, signatures, eager, self._specialized)
        return _rebuild, (picklable_function(self.py_func), *state)

    def __repr__(self) -> str:
        kind = "device function" if self.device else "kernel"
        return f"<cumlir {kind} {self.py_func.__qualname__}>"

    @made_once
    def _table(self) -> OverloadTable:
        """The kernels by argument types (table.OverloadTable): its module loads the compiler's."""
        from .table import OverloadTable

        return OverloadTable(self)

    def _launching(self) -> Launches:
        """The launchers and routes (launching.Launches): its module loads the runtime's."""
        if self._launches is None:
            from .launching import Launches

            with self._lock:
                if self._launches is None:
                    self._launches = Launches(self, self._table, self._launchers)
        return self._launches

    # ---- as a kernel -------------------------------------------------------------------

    def __getitem__(self, config: Any) -> ConfiguredKernel:
        # a configuration written before gives the same launcher: its checks are done
        try:
            launcher = self._launchers.get(config)
        except TypeError:  # lists in it
            launcher = None
        if launcher is not None and (
            len(config) == 2 and type(config[0]) is int and type(config[1]) is int or plain(config)
        ):
            return launcher
        return self._configure(config)

    def _configure(self, config: Any) -> ConfiguredKernel:
        if self.device:
            raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
        return self._launching().configure(config)

    def _forget_routes(self) -> None:
        """Compiled signatures changed: the argument types may now pick other kernels."""
        if self._launches is not None:
            self._launches.forget()

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        if self.device:
            raise TypeError(
                f"device function {self.__name__}() can only be called from a kernel or another device function"
            )
        raise ValueError(  # Numba-CUDA's error and words
            f"kernel {self.__name__}: the launch configuration was not specified; launch it as "
            f"{self.__name__}[blocks, threads](...)"
        )

    def forall(self, ntasks: int, tpb: int = 0, stream: object = 0, sharedmem: int = 0) -> ForAll:
        """A launch covering *ntasks* threads: ``kernel.forall(n)(*args)``. With ``tpb=0``
        the block size is the one the driver suggests for the most resident threads."""
        if self.device:
            raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
        return self._launching().forall(ntasks, tpb, stream, sharedmem)

    def max_cooperative_grid_blocks(self, blockdim: int | Sequence[int], dynsmem: int = 0) -> int:
        """The most blocks of *blockdim* threads a cooperative launch of this kernel may have
        on the current device; the kernel must have exactly one compiled signature (else ask
        its overload: ``kernel.overloads[argtypes]``)."""
        overloads = self._table.overloads
        if len(overloads) != 1:
            raise TypeError(
                f"kernel {self.__name__} has {len(overloads)} compiled signatures; call "
                "max_cooperative_grid_blocks on one of kernel.overloads, or compile one signature first"
            )
        return next(iter(overloads.values())).max_cooperative_grid_blocks(blockdim, dynsmem)

    def compile(self, sig: SignatureLike) -> KernelOverload | DeviceFunction:
        """Type for a signature (a string like "void(float32[:], int64)" or types): the
        KernelOverload, or the DeviceFunction of a device function. A signature the
        on-disk cache holds is not typed again."""
        argtypes, return_type = self._table.parse_signature(sig)
        if self.device:
            return self.device_dispatcher.compile_device(argtypes, return_type)
        if self.star_args:
            argtypes = self._table.launch_types(argtypes)
        overload, new = self._table.compile(argtypes, return_type)
        if new:
            self._forget_routes()
        return overload

    def overload_for(self, argtypes: tuple[types.Type, ...]) -> KernelOverload:
        """The kernel for the launch argument types (unless signatures were fixed, a new
        one, typed when it is compiled)."""
        return self._table.overload_for(argtypes)

    def cached_overload(self, args: tuple[Any, ...]) -> KernelOverload | None:
        """The kernel for the launch arguments *args* found by their plain types, without
        numba; None where numba must type them (see table.OverloadTable.cached_overload)."""
        return self._table.cached_overload(args)

    def disk_cache(self) -> KernelCache | None:
        """The on-disk cache of this kernel's binaries (a cache.KernelCache), or None when off."""
        return self._table.disk_cache()

    def enable_caching(self) -> None:
        """Use the on-disk cache for this kernel from now on, as ``cache=True`` does."""
        self.options = dataclasses.replace(self.options, cache=True)
        self._table.forget_disk_cache()

    @property
    def compile_stats(self) -> dict[tuple[types.Type, ...], dict[str, float | str]]:
        """Argument types -> where the compile time of that signature went (see
        ``KernelOverload.compile_stats``)."""
        return {argtypes: overload.compile_stats for argtypes, overload in self._table.overloads.items()}

    @property
    def overloads(self) -> dict[tuple[types.Type, ...], KernelOverload]:
        """Argument types -> the KernelOverload typed for them."""
        return dict(self._table.overloads)

    @property
    def signatures(self) -> list[tuple[types.Type, ...]]:
        device = list(self._device_dispatcher._device_functions) if self._device_dispatcher else []
        return list(self._table.overloads) + device

    def inspect_ptx(
        self, signature: SignatureLike | None = None, cc: ComputeCapability | None = None
    ) -> str | bytes | None | dict[tuple[types.Type, ...], str | bytes | None]:
        """The PTX of each compiled signature (or of *signature*), for *cc* or the current device."""
        return self._inspect("ptx", signature, cc)

    def inspect_llvm(
        self, signature: SignatureLike | None = None, cc: ComputeCapability | None = None
    ) -> str | bytes | None | dict[tuple[types.Type, ...], str | bytes | None]:
        """The LLVM IR of each compiled signature (or of *signature*)."""
        return self._inspect("llvm", signature, cc)

    def inspect_asm(
        self, signature: SignatureLike | None = None, cc: ComputeCapability | None = None
    ) -> str | bytes | None | dict[tuple[types.Type, ...], str | bytes | None]:
        """The PTX of each compiled signature (or of *signature*): Numba-CUDA's name for it."""
        return self._inspect("ptx", signature, cc)

    def inspect_types(self, file: TextIO | None = None) -> None:
        """Print the typed Numba IR of each compiled signature (every variable with its type)."""
        for argtypes, overload in self._table.overloads.items():
            print(f"{self.__name__} {argtypes}", file=file or sys.stdout)
            print(overload.typed.dump(), file=file or sys.stdout)

    def inspect_mlir(
        self, signature: SignatureLike | None = None, cc: ComputeCapability | None = None
    ) -> str | bytes | None | dict[tuple[types.Type, ...], str | bytes | None]:
        """The MLIR of each compiled signature (or of *signature*), as lowered."""
        return self._inspect("mlir", signature, cc)

    def _inspect(
        self, output: str, signature: SignatureLike | None, cc: ComputeCapability | None
    ) -> str | bytes | None | dict[tuple[types.Type, ...], str | bytes | None]:
        if self.device:
            return device_code(self, output, signature, cc)
        if signature is not None:
            return self.compile(signature).output(output, cc)  # type: ignore[union-attr]
        return {argtypes: overload.output(output, cc) for argtypes, overload in self._table.overloads.items()}

    def inspect_sass(self, signature: SignatureLike | None = None) -> str | dict[tuple[types.Type, ...], str]:
        """The SASS (nvdisasm's listing of the cubin for the current device) of each compiled
        signature, or of *signature*. Needs nvdisasm (``pip install 'cumlir[tools]'``)."""
        return self._disassemble("sass", signature)

    def inspect_lto_ptx(
        self, signature: SignatureLike | None = None, cc: ComputeCapability | None = None
    ) -> str | dict[tuple[types.Type, ...], str]:
        """The PTX nvJitLink's link-time optimiser makes from the kernel's LTO-IR and the
        LTO-IR it links, for each compiled signature (or *signature*); needs ``lto=True``."""
        if self.device:
            raise TypeError(f"{self.__name__} is a device function; inspect_lto_ptx shows kernels")
        if not self.options.lto:
            raise RuntimeError(f"{self.__name__} was not compiled with lto=True: it has no LTO-IR to link")
        if signature is not None:
            return self._table.overload_of(signature).lto_ptx(cc)
        return {argtypes: overload.lto_ptx(cc) for argtypes, overload in self._table.overloads.items()}

    def inspect_sass_cfg(self, signature: SignatureLike | None = None) -> str | dict[tuple[types.Type, ...], str]:
        """The control-flow graph of the SASS (Graphviz DOT), as inspect_sass."""
        return self._disassemble("sass_cfg", signature)

    def _disassemble(self, listing: str, signature: SignatureLike | None) -> str | dict[tuple[types.Type, ...], str]:
        from ..codegen import disassemble

        disassembler = getattr(disassemble, listing)
        if self.device:
            raise TypeError(f"{self.__name__} is a device function; only kernels have SASS")
        if signature is not None:
            return disassembler(self._table.overload_of(signature).output("cubin"))
        return {
            argtypes: disassembler(overload.output("cubin")) for argtypes, overload in self._table.overloads.items()
        }

    def nrt_stats(self) -> tuple[int, int, int, int]:
        """The device runtime's counters (docs/nrt.md) of this kernel's compiled signatures
        loaded in the current context: ``(alloc, free, mi_alloc, mi_free)``."""
        from ..runtime import nrt_stats

        return nrt_stats.read(self._table.loaded())

    # ---- resources of the loaded kernel (Numba-CUDA's get_*) ----------------------------------

    def get_regs_per_thread(self, signature: SignatureLike | None = None) -> int | dict[tuple[types.Type, ...], int]:
        """Registers each thread of the kernel uses on the current device: for *signature*, for
        the one signature of a specialized kernel, else a dict over the compiled signatures."""
        return self._resource("regs_per_thread", signature)

    def get_shared_mem_per_block(
        self, signature: SignatureLike | None = None
    ) -> int | dict[tuple[types.Type, ...], int]:
        """Bytes of static shared memory per block (as get_regs_per_thread)."""
        return self._resource("shared_mem_per_block", signature)

    def get_local_mem_per_thread(
        self, signature: SignatureLike | None = None
    ) -> int | dict[tuple[types.Type, ...], int]:
        """Bytes of local memory per thread (as get_regs_per_thread)."""
        return self._resource("local_mem_per_thread", signature)

    def get_const_mem_size(self, signature: SignatureLike | None = None) -> int | dict[tuple[types.Type, ...], int]:
        """Bytes of constant memory the kernel uses (as get_regs_per_thread)."""
        return self._resource("const_mem_size", signature)

    def get_max_threads_per_block(
        self, signature: SignatureLike | None = None
    ) -> int | dict[tuple[types.Type, ...], int]:
        """The largest block the kernel can be launched with on the current device (as
        get_regs_per_thread)."""
        return self._resource("max_threads_per_block", signature)

    def _resource(self, name: str, signature: SignatureLike | None) -> int | dict[tuple[types.Type, ...], int]:
        if signature is not None:
            return self._table.overload_of(signature).resource(name)
        if self._specialized:
            return next(iter(self._table.overloads.values())).resource(name)
        return {argtypes: overload.resource(name) for argtypes, overload in self._table.overloads.items()}

    def get_metadata(
        self, signature: SignatureLike | None = None
    ) -> KernelMetadata | dict[tuple[types.Type, ...], KernelMetadata]:
        """The metadata of the kernel compiled for *signature* (``KernelOverload.metadata``:
        its symbol, code, options, resources), else a dict of it over the compiled signatures."""
        if signature is not None:
            return self._table.overload_of(signature).metadata
        return {argtypes: overload.metadata for argtypes, overload in self._table.overloads.items()}

    # ---- Numba's dispatcher interface -------------------------------------------------------

    def get_overload(self, signature: SignatureLike) -> KernelOverload | DeviceFunction:
        """The compiled kernel (KernelOverload) of *signature*; for a device function, its
        typed DeviceFunction."""
        if self.device:
            return self.device_dispatcher.get_overload(self._table.argtypes_of(signature))
        return self._table.overload_of(signature)

    @property
    def nopython_signatures(self) -> list[Signature]:
        """The numba Signature of each compiled kernel (or typed device function)."""
        from numba.core import types
        from numba.core.typing import signature

        if self.device:
            return self.device_dispatcher.nopython_signatures
        return [signature(types.void, *argtypes) for argtypes in self._table.overloads]

    def get_call_template(
        self, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> tuple[type, inspect.Signature, tuple[types.Type, ...], dict[str, types.Type]]:
        """Numba's typing of a call from jitted code: (template, Python signature, argument
        types, keywords), typing the device function for *args* first."""
        if not self.device:
            raise TypeError(f"kernel {self.__name__} cannot be called from device code; only device functions can")
        return self.device_dispatcher.get_call_template(args, kws)

    def typeof_pyval(self, value: object) -> types.Type:
        """The numba type a launch argument *value* is compiled for."""
        return self._table.argument_types((value,))[0]

    def fold_argument_types(
        self, args: Sequence[types.Type], kws: Mapping[str, types.Type]
    ) -> tuple[inspect.Signature, tuple[types.Type, ...]]:
        """(Python signature, argument types): kernels take positional arguments only; a
        device function's keywords and defaults are folded in, as numba does."""
        if self.device:
            return self.device_dispatcher.fold_argument_types(args, kws)
        if kws:
            raise TypeError(f"kernel {self.__name__} takes positional arguments only")
        return inspect.signature(self.py_func), tuple(args)

    @property
    def is_compiling(self) -> int:
        """How many signatures are being compiled now (0: none)."""
        return self._table.compiling

    def disable_compile(self, val: bool = True) -> None:
        """Stop (or, with False, resume) compiling new signatures at launch: arguments must
        then suit a compiled signature."""
        if val and not self._table.overloads:
            raise ValueError(f"{self.__name__} has no compiled signature; compile one before disabling compilation")
        self._table.eager = bool(val)
        self._forget_routes()  # arguments a compiled signature accepted may now compile their own

    def recompile(self) -> None:
        """Compile every compiled signature afresh (after a global it reads has changed)."""
        self._forget_routes()
        home = self._launches.home_config if self._launches is not None else None
        with launch_needs.launching(home):  # kernels whose code depends on it are typed again for it
            self._table.recompile()
        for twin in self._launches.twins() if self._launches is not None else ():
            twin.recompile()  # the kernels of the other launch configurations (mark_launch_config_sensitive)

    @property
    def extensions(self) -> ArgumentHandlers:
        """The argument handlers (``cuda.jit(extensions=[...])``), a list as Numba-CUDA's: a
        handler appended or removed applies to the launches that follow."""
        return handlers_of(self)

    def specialize(self, *args: Any) -> Dispatcher:
        """A kernel compiled for the types of *args* (for the current device) that compiles
        nothing more: launches must suit that signature. An argument may be given as its numba
        type (``float32[::1]``) instead of a value."""
        from ..runtime.driver import current_context

        if self._specialized:
            why = "was made for one signature (by specialize() or cuda.jit given one) and compiles no other"
            raise RuntimeError(f"Dispatcher already specialized: {self.__name__} {why}")
        if self.device:
            raise TypeError(f"{self.__name__} is a device function; only kernels are specialized")
        argtypes = self._table.argument_types(args, types_as_given=True)
        key = (current_context().compute_capability, argtypes)
        specialization = self._specializations.get(key)
        if specialization is None:
            with self._lock:
                specialization = self._specializations.get(key)
                if specialization is None:
                    specialization = Dispatcher(self.py_func, device=False, options=self.options)
                    specialization.compile(argtypes)
                    specialization.disable_compile()
                    specialization._specialized = True
                    self._specializations[key] = specialization
        return specialization

    @property
    def specialized(self) -> bool:
        """Whether this kernel is compiled for one signature only: made by ``specialize``, or by
        ``cuda.jit`` given one signature (a list of them is not specialized), as in Numba-CUDA."""
        return self._specialized

    @property
    def specializations(self) -> Mapping[tuple[tuple[int, int], tuple[types.Type, ...]], Dispatcher]:
        """The kernels ``specialize`` made of this one, by (compute capability, argument types)."""
        return MappingProxyType(self._specializations)

    def configure(
        self,
        griddim: int | Sequence[int],
        blockdim: int | Sequence[int],
        stream: object = 0,
        sharedmem: int = 0,
        cluster: int | Sequence[int] | None = None,
        pdl: bool = False,
    ) -> ConfiguredKernel:
        """The kernel with a launch configuration: ``kernel.configure(g, b)`` is ``kernel[g, b]``;
        *cluster*, a shape of thread-block clusters (sm_90), is ``kernel[g, b, stream, sharedmem, cluster]``.
        *pdl=True* (sm_90): a programmatic dependent launch, which may begin before the kernel
        launched before it in the stream ends; the kernel calls ``intrin.griddepcontrol_wait()``
        before it reads what that one writes (docs/hopper.md)."""
        if pdl is not False:
            if self.device:
                raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
            return self._launching().configure((griddim, blockdim, stream, sharedmem, cluster), pdl)
        if cluster is None:
            return self[griddim, blockdim, stream, sharedmem]
        return self[griddim, blockdim, stream, sharedmem, cluster]

    def mark_launch_config_sensitive(self) -> None:
        """The kernel's code depends on its launch configuration: each configuration (grid,
        block, dynamic shared memory) gets a kernel compiled for it. Called by an extension
        while the kernel compiles for a launch, it marks that compilation too (as
        ``extending.require_launch_config`` does); called before, every launch's."""
        if launch_needs.compiling():
            launch_needs.require_launch_config()  # the launch loop marks the dispatcher once compiled
        else:
            self._launching().mark_sensitive(None)

    def _for_launch_config(self, key: LaunchKey) -> Dispatcher:
        """A dispatcher of the same function whose kernels are compiled for the launch key *key*."""
        twin = Dispatcher(self.py_func, options=self.options)
        twin._launching().mark_sensitive(key)
        return twin

    def call(self, args: Iterable[Any], launch_config: Any) -> None:
        """Launch with the arguments *args* and *launch_config* (what ``configure`` or
        ``kernel[...]`` returns, or a LaunchConfiguration)."""
        self._launching().call(args, getattr(launch_config, "config", launch_config))

    def dump(self, tab: str = "") -> None:
        """Print the kernel and its compiled signatures."""
        print(f"{tab}DUMP {type(self).__name__}[{self.__name__}]")
        for argtypes in self._table.overloads:
            print(f"{tab}  {self.__name__}({', '.join(str(t) for t in argtypes)})")
        print(f"{tab}END DUMP {type(self).__name__}[{self.__name__}]")

    # ---- as a device function ---------------------------------------------------------------

    @property
    def device_dispatcher(self) -> DeviceDispatcher:
        """The DeviceDispatcher that types this function where jitted code calls it."""
        if self._device_dispatcher is None:
            from ..typing.frontend import DeviceDispatcher

            with self._lock:
                if self._device_dispatcher is None:
                    self._device_dispatcher = DeviceDispatcher(self.py_func, self.options)
        if self._deferred:
            with self._lock:
                pending, self._deferred = self._deferred, []
            made = self._device_dispatcher
            for sig in pending:  # its errors are the first use's
                made.declare(made.compile_device(*self._table.parse_signature(sig)))
        return self._device_dispatcher

    def compile_device(self, argtypes: Iterable[types.Type], return_type: types.Type | None = None) -> DeviceFunction:
        return self.device_dispatcher.compile_device(argtypes, return_type)

    @property
    def _numba_type_(self) -> types.Dispatcher:
        return self.device_dispatcher._numba_type_


def _rebuild(
    pyfunc: Callable[..., Any],
    device: bool,
    options: Options,
    signatures: _Signatures,
    eager: bool,
    specialized: bool,
) -> Dispatcher:
    """A Dispatcher unpickled (see Dispatcher.__reduce__): new tables and a new lock."""
    dispatcher = Dispatcher(pyfunc, device=device, options=options, specialized=specialized)
    for argtypes, return_type in signatures:
        if device:
            dispatcher._compile_given(argtypes)
        elif dispatcher._table.compile(argtypes, return_type)[1]:
            dispatcher._forget_routes()
    if eager:
        dispatcher._table.eager = True
    return dispatcher


# Numba-CUDA's dispatcher methods cumlir does not have raise NotImplementedError saying why
for _name in refused.DISPATCHER:
    setattr(Dispatcher, _name, refused.Refused(_name))
