"""The compiler: one ordered list of named stages, each a short function from one
artefact to the next, all reading one ``Options`` object.

    typed       Python function -> typed Numba IR              typing/frontend.py
    mlir        typed IR -> MLIR gpu.module                    lowering/
    optimized   MLIR inlining, canonicalization, CSE           codegen/passes/
    llvm        MLIR -> LLVM dialect (math -> libdevice)       codegen/passes/, Backend.prepare
    codegen     the code generator: PTX or LTO-IR              codegen/nvptx/, codegen/nvvm/
    cubin       the linker, with the link items                linking/

``run(compilation, until)`` runs the stages up to *until*. ``--emit``,
``cuda.compile(output=...)`` and the dispatcher's ``inspect_*`` all stop this one
list at a stage. Everything before ``cubin`` runs without a GPU; ``cubin`` needs
nvJitLink or the CUDA driver's linker, not a device. The runtime receives the cubin and
only loads and launches it.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import FunctionType
from typing import TYPE_CHECKING, Protocol, TypeVar

from . import backends, launch_needs
from .codegen import backend_for, get_backend
from .codegen.cpu.objects import host_image
from .codegen.passes import pipeline
from .codegen.targets import CODE_FORMATS, parse_cc
from .codegen.targets import suffix as target_suffix
from .compile_stats import FIGURE_OF_STAGE
from .dumps import after_run, after_stage
from .frontend_lock import FRONTEND_LOCK
from .linkable import LTOIR, PTXSource, uses_nrt
from .linking import link_cubin
from .lowering.entry import add_entry
from .lowering.exceptions import EXCEPTION_GLOBAL
from .lowering.module import ModuleBuilder
from .lowering.refcount import RuntimeNeeded, WideAddressesNeeded
from .nrt.compiled import runtime as nrt_runtime
from .options import Options
from .stages import LIBRARY_OUTPUTS, OUTPUTS, STAGES, check_choice
from .typing import star_parameters, target_options
from .typing.context import typing_context
from .typing.frontend import type_function as frontend_type_function
from .typing.nesting import room_to_nest

if TYPE_CHECKING:
    from mlir import ir
    from numba.core import types

    from .codegen.targets import ComputeCapability
    from .linkable import LinkItem
    from .raise_sites import RaiseSite
    from .typing.frontend import DeviceFunction, TypedFunction


# ---- what is compiled: a kernel, or a device function behind a public wrapper -----------


@dataclass(frozen=True)
class KernelEntry:
    """A Python function compiled as a kernel (its PTX ``.entry``)."""

    pyfunc: FunctionType
    argtypes: tuple[types.Type, ...]
    name: str | None = None
    return_type: types.Type | None = None  # as declared by a signature, if one was given

    def type(self, options: Options, cc: tuple[int, int] | None) -> TypedFunction:
        code = self.pyfunc.__code__
        where = f"kernel {self.pyfunc.__name__} ({code.co_filename}:{code.co_firstlineno})"
        check_kernel_parameters(where, self.pyfunc)
        check_kernel_result(where, self.return_type)
        # typed without a declared void result, so that a kernel returning a value is reported
        # as such (numba would say it cannot convert the value to none)
        argtypes = star_parameters.bundled(self.pyfunc, self.argtypes, where)
        typed = type_function(self.pyfunc, argtypes, options=options, chip=cc or options.chip)
        check_kernel_result(where, typed.return_type)
        return typed

    def lower(self, builder: ModuleBuilder, typed: TypedFunction) -> str:
        return builder.add_kernel(typed, self.name)

    def describe(self) -> str:
        return f"kernel {self.pyfunc.__name__}"


@dataclass(frozen=True)
class DeviceEntry:
    """A typed device function (a typing.frontend.DeviceFunction) exported as
    *symbol* with the "c" or "numba" ABI (see lowering/entry.py)."""

    callee: DeviceFunction
    symbol: str
    abi: str

    def type(self, options: Options, cc: tuple[int, int] | None) -> TypedFunction:
        return self.callee.typed

    def lower(self, builder: ModuleBuilder, typed: TypedFunction) -> str:
        return add_entry(builder, self.callee, self.symbol, self.abi)

    def describe(self) -> str:
        return f"device function {self.symbol}"


class Entry(Protocol):
    """What a Compilation compiles: a KernelEntry or a DeviceEntry."""

    def type(self, options: Options, cc: tuple[int, int] | None) -> TypedFunction: ...

    def lower(self, builder: ModuleBuilder, typed: TypedFunction) -> str: ...

    def describe(self) -> str: ...


_T = TypeVar("_T")


def _made(artefact: _T | None, what: str) -> _T:
    """*artefact* of a compilation, which a stage made; AttributeError if there is none (as reading
    an attribute of None would raise): the stage has not run, or, for the MLIR module, the codegen
    stage consumed it."""
    if artefact is None:
        raise AttributeError(f"the compilation holds no {what}")
    return artefact


def _code(c: Compilation) -> str | bytes:
    """The codegen stage's code (see _made)."""
    if c.code is None:
        raise AttributeError("the compilation holds no code")
    return c.code


@dataclass
class Compilation:
    """One function compiled for one chip: each stage fills in the next artefact."""

    entry: Entry | None  # None: a module lowered elsewhere (from_module)
    cc: tuple[int, int] | None  # None: a compilation that stops at ``typed``
    options: Options = field(default_factory=Options)
    code_format: str = "ptx"  # what the codegen stage makes: "ptx" or "ltoir"
    done: str | None = None  # the last stage run
    typed: TypedFunction | None = None  # the typed stage's
    builder: ModuleBuilder | None = None  # the mlir stage's (its .module is the MLIR module); None after codegen
    symbol: str | None = None  # the entry's name in the generated code
    raise_sites: list[RaiseSite] = field(default_factory=list)  # debug mode: what each exception code means
    exception_global: str | None = None  # debug mode: the global a raising thread writes its code to
    link: list[LinkItem] = field(default_factory=list)  # every link item the code needs
    cooperative: bool = False  # the code synchronizes the grid: launch it cooperatively
    code: str | bytes | None = None  # PTX text or LTO-IR bytes
    cubin: bytes | None = None
    timings: dict[str, float] = field(default_factory=dict)  # compile_stats figure -> seconds spent in this process

    @property
    def argtypes(self) -> tuple[types.Type, ...]:
        if not isinstance(self.entry, KernelEntry):
            raise AttributeError(f"{self.entry!r} is not a kernel: it has no argument types")
        return self.entry.argtypes

    @property
    def ptx(self) -> str | bytes | None:
        if self.code_format != "ptx":
            raise ValueError(f"this compilation made {self.code_format}, not PTX")
        return self.code

    @property
    def return_type(self) -> types.Type:
        return _made(self.typed, "typed function").return_type

    @property
    def module(self) -> ir.Module:
        return _made(self.builder, "MLIR module").module


# ---- the stages ----------------------------------------------------------------------------


def _typed(c: Compilation) -> None:
    c.typed = _made(c.entry, "entry").type(c.options, c.cc)


def _mlir(c: Compilation) -> None:
    options, builder = c.options, None
    while builder is None:  # lowered again outside the handlers: its errors stand on their own
        try:
            builder = _lower(c, options)
        except RuntimeNeeded:  # NRT automatic: some function allocates, so all count references
            options = options.replace(nrt=True)
        except WideAddressesNeeded:  # an array of unknown span: every offset in 64 bits
            options = options.replace(index_bits=64)
    c.raise_sites = list(builder.raise_sites)
    c.exception_global = EXCEPTION_GLOBAL if c.raise_sites else None
    c.link = _unique([*c.options.link, *builder.link_items])
    builder.finish_runtime(_needs_nrt(c))
    if builder.uses_nrt and c.cc is not None:
        c.link.append(nrt_runtime(c.cc, c.code_format))
    c.cooperative = builder.cooperative


def _lower(c: Compilation, options: Options) -> ModuleBuilder:
    c.builder = builder = ModuleBuilder(typing_context(), options)
    typed = _made(c.typed, "typed function")
    with target_options.under(typed.target):  # the device functions typed for its options
        c.symbol = _made(c.entry, "entry").lower(builder, typed)
    return builder


def _needs_nrt(c: Compilation) -> bool:
    """Whether the device runtime is linked (docs/nrt.md): NRT is not off and the code
    allocates, or a link item is marked nrt=True; such an item with nrt=False is refused."""
    marked = [item for item in c.link if uses_nrt(item)]
    if marked and c.options.nrt is False:
        what = _made(c.entry, "entry").describe()
        raise ValueError(
            f"{what}: the link item {marked[0].name} is marked nrt=True, but nrt=False switches NRT off; "
            "leave nrt unset or set it to True"
        )
    return bool(marked)


def _optimized(c: Compilation) -> None:
    with _made(c.builder, "MLIR module").context:
        pipeline.set_target(c.module, c.cc, c.options)  # type: ignore[arg-type]  # None: set_target refuses it
        pipeline.run_stage(c.module, "optimized", c.options)


def _llvm(c: Compilation) -> None:
    with _made(c.builder, "MLIR module").context:
        pipeline.run_stage(c.module, "llvm", c.options)
        get_backend(c.options.backend).prepare(c.module, c.options)


def _codegen(c: Compilation) -> None:
    backend = backend_for(c.options.backend, c.code_format)
    with _made(c.builder, "MLIR module").context:
        c.code = backend.code(c.module, _made(c.cc, "chip"), c.options, c.code_format)
    c.builder = None  # the MLIR module was consumed: free it


def _cubin(c: Compilation) -> None:
    name = f"{c.symbol}.{c.code_format}"
    made = _code(c)
    if c.code_format == "host":  # the simulator's: linked and optimized for the CPU
        c.cubin = host_image(str(made), c.link)
        return
    code = PTXSource(made, name=name) if c.code_format == "ptx" else LTOIR(made, name=name)
    # debug=True: ptxas keeps the DWARF of locals (and compiles without optimising, as -g does);
    # lineinfo=True: the line tables (nvJitLink keeps those of the PTX anyway, the driver's JIT
    # only when asked)
    ptxas = ("-g",) if c.options.debug else ("-lineinfo",) if c.options.lineinfo else ()
    chip = _made(c.cc, "chip")
    c.cubin = link_cubin([code, *c.link], chip, (*ptxas, *c.options.ptxas_options), target_suffix(chip, c.options))


_RUN: dict[str, Callable[[Compilation], None]] = {
    "typed": _typed,
    "mlir": _mlir,
    "optimized": _optimized,
    "llvm": _llvm,
    "codegen": _codegen,
    "cubin": _cubin,
}

# the stages that use numba's typing and the registries: one thread at a time (frontend_lock.py);
# the later ones run in parallel, each thread in its own MLIR context
_FRONTEND_STAGES = frozenset({"typed", "mlir"})


def run(compilation: Compilation, until: str) -> Compilation:
    """Run the stages after the last one done, up to and including *until* (a name of STAGES)."""
    if until not in _RUN:
        raise ValueError(f"unknown stage {until!r}; stages: {', '.join(STAGES)}")
    start = STAGES.index(compilation.done) + 1 if compilation.done else 0
    timings = compilation.timings
    for name in STAGES[start : STAGES.index(until) + 1]:
        began = time.perf_counter()
        with room_to_nest(), launch_needs.compiling_kernel():  # chains of device functions nest typing and lowering
            if name in _FRONTEND_STAGES:
                with FRONTEND_LOCK:
                    _RUN[name](compilation)
            else:
                _RUN[name](compilation)
        figure = FIGURE_OF_STAGE[name]
        timings[figure] = timings.get(figure, 0.0) + time.perf_counter() - began
        compilation.done = name
        after_stage(name, compilation)
    if start <= STAGES.index(until):
        after_run(compilation)
    return compilation


def compilation(
    entry: Entry | None, cc: ComputeCapability | None, options: Options | None = None, output: str | None = None
) -> Compilation:
    """A Compilation of *entry* for *cc* that will make *output* (a key of OUTPUTS; None: a
    cubin, from LTO-IR with lto=True); *cc* may be None for a compilation that stops at ``typed``."""
    if output is not None:
        check_output(output)
    options = options or Options()
    default = backends.REGISTRY[options.backend or backends.DEFAULT].code_format
    # host code is linked whole: lto=True asks nothing more of it
    code_format = output if output in CODE_FORMATS else ("ltoir" if options.lto and default != "host" else default)
    return Compilation(entry=entry, cc=parse_cc(cc) if cc else None, options=options, code_format=code_format)


def output_of(c: Compilation, output: str) -> str | bytes:
    """What a user asked for, from a compilation that ran up to its stage: text or bytes."""
    run(c, OUTPUTS[check_output(output)])
    if output == "typed":
        return _made(c.typed, "typed function").dump()
    if output in ("mlir", "optimized"):
        return str(c.module)
    if output == "llvm":
        return _llvm_text(c)
    return _made(c.cubin, "cubin") if output == "cubin" else _code(c)


def check_output(output: str) -> str:
    return check_choice("output", output, OUTPUTS)


def _llvm_text(c: Compilation) -> str:
    """LLVM IR of the module, as the options' code generator compiles it."""
    with _made(c.builder, "MLIR module").context:
        return get_backend(c.options.backend).llvm_ir(c.module, _made(c.cc, "chip"), c.options)


def _unique(items: Iterable[_T]) -> list[_T]:
    result: list[_T] = []
    for item in items:
        if item not in result:
            result.append(item)
    return result


# ---- one kernel for several chips: what a dispatcher compiles per argument types ------------


@dataclass
class KernelBuild:
    """A kernel for one tuple of argument types, typed once (when first needed) and then
    compiled for each chip up to any stage: every chip's Compilation starts from the one
    typed function. The dispatcher keeps one per overload."""

    entry: KernelEntry
    options: Options = field(default_factory=Options)
    typed: TypedFunction | None = None  # once typed
    chips: dict[tuple[int, int], Compilation] = field(default_factory=dict)  # chip -> its Compilation
    # chip -> the function typed for it, where it is typed per chip (see type())
    _per_chip: dict[tuple[int, int], TypedFunction] = field(default_factory=dict)
    # compile_stats figure -> seconds: the typing and every chip
    timings: dict[str, float] = field(default_factory=dict)

    def type(self, cc: ComputeCapability | None = None) -> TypedFunction:
        """The typed function: numba's frontend runs on the first call. A function whose
        consteval read its options (typing/target_options.py) is typed again for each chip
        (*cc*, where given) it is compiled for."""
        chip = parse_cc(cc) if cc is not None else self.options.chip
        if self.typed is None:
            self.typed = self._typed_for(chip)
            return self.typed
        if not self.typed.target_dependent or chip is None or self.typed.target_chip == chip:
            return self.typed
        found = self._per_chip.get(chip)
        if found is None:
            found = self._per_chip[chip] = self._typed_for(chip)
        return found

    def type_eagerly(self) -> TypedFunction | None:
        """Type now (an eager signature, at decoration), but for a kernel whose consteval
        reads its chip before one is known and fails: None, it is typed when compiled for one."""
        try:
            return self.type()
        except target_options.ChipNeeded:
            return None

    def _typed_for(self, chip: tuple[int, int] | None) -> TypedFunction:
        return _made(self._run(compilation(self.entry, chip, self.options), "typed").typed, "typed function")

    def compile(self, cc: ComputeCapability, until: str = "cubin") -> Compilation:
        """The Compilation for chip *cc*, run up to the stage *until* (stages run before are
        not run again)."""
        chip = parse_cc(cc)
        c = self.chips.get(chip)
        if c is None:
            c = self.chips[chip] = self._from_typed(chip)
        try:
            return self._run(c, until)
        except BaseException:
            # a stage cut short (an error, KeyboardInterrupt) may have changed the MLIR module
            # in place half way: the next compile starts again from the typed function
            if self.chips.get(chip) is c:
                del self.chips[chip]
            raise

    def output(self, output: str, cc: ComputeCapability) -> str | bytes:
        """What a user asked for (a key of OUTPUTS) from a Compilation of its own: a stage
        consumes the MLIR module of the one before, so a chip's Compilation that went on
        has none left to print."""
        return output_of(self._from_typed(cc, output), output)

    def _from_typed(self, cc: ComputeCapability, output: str | None = None) -> Compilation:
        c = compilation(self.entry, cc, self.options, output)
        c.typed, c.done = self.type(cc), "typed"
        return c

    def _run(self, c: Compilation, until: str) -> Compilation:
        c.timings.clear()
        run(c, until)
        for figure, seconds in c.timings.items():
            self.timings[figure] = self.timings.get(figure, 0.0) + seconds
        return c


# ---- shorthands used by the public API, the command line and tests -------------------------


def type_function(
    pyfunc: FunctionType,
    argtypes: Iterable[types.Type],
    return_type: types.Type | None = None,
    options: Options | None = None,
    chip: tuple[int, int] | None = None,
) -> TypedFunction:
    """The typed stage alone: numba's frontend under cumlir's typing context (for the
    compilation's *options* and *chip*, which consteval may read)."""
    return frontend_type_function(pyfunc, argtypes, return_type, options, chip)


def kernel_symbol(pyfunc: FunctionType, options: Options | None) -> str:
    """A kernel's name in its code: its function's, or the options' ``capi`` name."""
    capi = options.capi if options is not None else False
    return capi if isinstance(capi, str) else pyfunc.__name__


def check_kernel_parameters(where: str, pyfunc: FunctionType) -> None:
    """A kernel's parameters are its launch's arguments, by position (the last ones may be
    gathered by *args): **kwargs and keyword-only parameters are a TypeError naming them
    and *where*."""
    parameters = inspect.signature(pyfunc).parameters.values()
    keywords = [p for p in parameters if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    if keywords:
        named = [str(p) if p.kind is p.VAR_KEYWORD else f"the keyword-only parameter {p.name}" for p in keywords]
        positional = [str(p) for p in parameters if p not in keywords]
        raise TypeError(
            f"{where} takes {' and '.join(named)}, which a kernel cannot: a launch passes its arguments by "
            f"position only (def {pyfunc.__name__}({', '.join(positional)}))"
        )


def check_kernel_result(where: str, return_type: types.Type | None) -> None:
    """A kernel returns nothing: raise TypeError naming *where* otherwise."""
    if return_type is not None and str(return_type) not in ("none", "void"):
        raise TypeError(f"{where}: a kernel must return None, but it returns {return_type}")


def kernel(
    pyfunc: FunctionType,
    argtypes: Iterable[types.Type],
    cc: ComputeCapability | None,
    options: Options | None = None,
    name: str | None = None,
    until: str = "codegen",
    typed: TypedFunction | None = None,
    return_type: types.Type | None = None,
    output: str | None = None,
) -> Compilation:
    """Compile *pyfunc* as a kernel for *argtypes* up to the stage *until*; the Compilation."""
    entry = KernelEntry(pyfunc, tuple(argtypes), name or kernel_symbol(pyfunc, options), return_type)
    c = compilation(entry, cc, options, output)
    if typed is not None:
        c.typed, c.done = typed, "typed"
    return run(c, until)


def from_module(builder: ModuleBuilder, cc: ComputeCapability, options: Options | None = None) -> Compilation:
    """A Compilation that starts from a module already lowered by *builder* (many kernels, say)."""
    c = compilation(None, cc, options or builder.options)
    c.builder, c.done = builder, "mlir"
    return c


def kernel_ptx(
    typed: TypedFunction, cc: ComputeCapability, name: str | None = None, options: Options | None = None
) -> Compilation:
    """The PTX of an already typed kernel (the stages after ``typed``)."""
    return kernel(typed.pyfunc, typed.args, cc, options, name, typed=typed)


def emit(
    pyfunc: FunctionType,
    argtypes: Iterable[types.Type],
    output: str,
    cc: ComputeCapability | None,
    options: Options | None = None,
) -> str | bytes:
    """One stage's text for *pyfunc* compiled as a kernel (the command line's ``--emit``)."""
    c = compilation(KernelEntry(pyfunc, tuple(argtypes), kernel_symbol(pyfunc, options)), cc, options, output)
    return output_of(c, output)


def device_function(
    callee: DeviceFunction,
    symbol: str,
    cc: ComputeCapability,
    abi: str = "c",
    output: str = "ptx",
    options: Options | None = None,
    with_link: bool = False,
) -> str | bytes | tuple[str | bytes, list[LinkItem]]:
    """A typed device function exported as *symbol*: PTX, LTO-IR or LLVM IR (the compile API);
    with *with_link*, also the link items its code needs (``(code, items)``)."""
    check_choice("output", output, LIBRARY_OUTPUTS)
    c = compilation(DeviceEntry(callee, symbol, abi), cc, options, output)
    code = output_of(c, output)
    return (code, list(c.link)) if with_link else code
