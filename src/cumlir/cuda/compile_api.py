"""Compiling without launching: PTX, LTO-IR or LLVM IR for use by other languages.

Everything here works on a machine with no GPU and no driver when ``cc`` is given.
See docs/compiling.md for the two ABIs of device functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields
from typing import TYPE_CHECKING, Any, cast

from .decorators import python_function

if TYPE_CHECKING:
    from numba.core import types

    from ..codegen.targets import ComputeCapability
    from ..dispatcher.overload import KernelOverload
    from ..linkable import LinkableCode
    from ..options import Options
    from ..typing.frontend import DeviceDispatcher
    from ..typing.signatures import SignatureLike

    # what a compiled function's code is: PTX or LLVM IR text, or LTO-IR bytes
    Code = str | bytes

ABIS = ("c", "numba")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def compile(
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    debug: bool = False,
    lineinfo: bool = False,
    device: bool = True,
    fastmath: bool | set[str] = False,
    cc: ComputeCapability | None = None,
    opt: bool | None = None,
    abi: str = "c",
    abi_info: dict[str, str] | None = None,
    output: str = "ptx",
    **options: Any,
) -> tuple[Code, types.Type]:
    """Compile *pyfunc* for *sig*; returns ``(code, return_type)``.

    ``code`` is PTX text (``output="ptx"``), LTO-IR bytes (``"ltoir"``) or LLVM IR text
    (``"llvm"``). With ``device=True`` the function is a device function with the C ABI
    (``abi="c"``: named ``pyfunc.__name__`` or ``abi_info["abi_name"]``, returning its
    result) or Numba's (``abi="numba"``: a mangled name, the result stored through a
    pointer passed first, a status code returned). *sig* may give only the argument
    types; the return type is then inferred. ``cc`` is a compute capability such as
    ``(9, 0)``; without one, the options' ``chip``, else the current device's. ``opt``
    (None: True) may be given as ``opt_level`` instead. Further keywords are the options
    of ``cuda.jit`` (``forceinline``, ``launch_bounds``, ``max_registers`` ...).
    """
    settings = dict(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt, **options)
    return _compile("cuda.compile", pyfunc, sig, device, cc, abi, abi_info, output, settings)


def _compile(
    where: str,
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    device: bool,
    cc: ComputeCapability | None,
    abi: str,
    abi_info: dict[str, str] | None,
    output: str,
    settings: dict[str, Any],
    with_link: bool = False,
    kernel_outputs: bool = False,
) -> tuple[Any, types.Type]:  # (code, or (code, link items) with *with_link*; the return type)
    """*kernel_outputs*: any stage's output of a kernel (mlir, cubin ...), not only the codes
    other languages' toolchains take."""
    from ..chips import arch_suffix
    from ..options import Options
    from ..stages import LIBRARY_OUTPUTS, OUTPUTS, check_choice
    from ..typing.signatures import parse_signature

    python_function(pyfunc, where)
    check_choice("abi", abi, ABIS)
    check_choice("output", output, OUTPUTS if kernel_outputs and not device else LIBRARY_OUTPUTS)
    argtypes, return_type = parse_signature(sig)
    if cc is not None and arch_suffix(cc):  # "sm_90a", (9, 0, "a"): the options' chip and its target
        settings, cc = {**settings, "cc": cc}, None
    compile_options = _with_jit_options(pyfunc, Options.from_keywords(where, settings))
    chip = _compute_capability(where, cc, compile_options)
    if device:
        return _device(pyfunc, argtypes, return_type, chip, compile_options, abi, abi_info, output, with_link)
    return _kernel(pyfunc, argtypes, return_type, chip, compile_options, abi, output, with_link)


def _with_jit_options(pyfunc: Any, given: Options) -> Options:
    """For a ``@cuda.jit`` function, its own options (``launch_bounds``, ``fastmath`` ...) under
    those the call gives: a call's option overrides the function's where it is not the default,
    as numba-cuda-mlir's ``compile_ptx`` updates a dispatcher's options with the ones passed."""
    from ..options import Options  # noqa: F811 - at run time: the annotations' import is for checkers only

    own = getattr(pyfunc, "options", None)
    if not isinstance(own, Options):
        return given
    defaults = Options()
    changed = {
        f.name: getattr(given, f.name) for f in fields(Options) if getattr(given, f.name) != getattr(defaults, f.name)
    }
    return own.replace(**changed)


def compile_for_current_device(
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    debug: bool = False,
    lineinfo: bool = False,
    device: bool = True,
    fastmath: bool | set[str] = False,
    opt: bool | None = None,
    abi: str = "c",
    abi_info: dict[str, str] | None = None,
    output: str = "ptx",
    **options: Any,
) -> tuple[Code, types.Type]:
    """``compile`` for the compute capability of the current device."""
    return compile(
        pyfunc,
        sig,
        debug=debug,
        lineinfo=lineinfo,
        device=device,
        fastmath=fastmath,
        cc=None,
        opt=opt,
        abi=abi,
        abi_info=abi_info,
        output=output,
        **options,
    )


def compile_ptx(
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    debug: bool = False,
    lineinfo: bool = False,
    device: bool = False,
    fastmath: bool | set[str] = False,
    cc: ComputeCapability | None = None,
    opt: bool | None = None,
    abi: str = "numba",
    abi_info: dict[str, str] | None = None,
    **options: Any,
) -> tuple[str, types.Type]:
    """Compile *pyfunc* for *sig* into PTX; returns ``(ptx, return_type)``.

    As ``compile(..., output="ptx")``, but a kernel and Numba's ABI by default.
    """
    settings = dict(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt, **options)
    ptx, return_type = _compile("cuda.compile_ptx", pyfunc, sig, device, cc, abi, abi_info, "ptx", settings)
    return cast(str, ptx), return_type  # PTX is text


def compile_ptx_for_current_device(
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    debug: bool = False,
    lineinfo: bool = False,
    device: bool = False,
    fastmath: bool | set[str] = False,
    opt: bool | None = None,
    abi: str = "numba",
    abi_info: dict[str, str] | None = None,
    **options: Any,
) -> tuple[str, types.Type]:
    """``compile_ptx`` for the compute capability of the current device."""
    return compile_ptx(
        pyfunc,
        sig,
        debug=debug,
        lineinfo=lineinfo,
        device=device,
        fastmath=fastmath,
        cc=None,
        opt=opt,
        abi=abi,
        abi_info=abi_info,
        **options,
    )


def _compute_capability(where: str, cc: ComputeCapability | None, options: Options | None = None) -> tuple[int, int]:
    """*cc*, else the options' ``chip``, else the current device's (for the call *where*)."""
    from ..codegen.targets import parse_cc

    if cc is not None and options is not None and options.chip is not None and parse_cc(cc) != options.chip:
        major, minor = options.chip
        raise ValueError(f"cc={cc!r} and chip='sm_{major}{minor}' name different compute capabilities")
    if cc is None and options is not None:
        cc = options.chip
    if cc is None:
        from ..runtime.driver import current_compute_capability

        cc = current_compute_capability(where)
    return parse_cc(cc)


def _py_function(pyfunc: Callable[..., Any]) -> Any:
    return getattr(pyfunc, "py_func", pyfunc)


def _symbol(
    pyfunc: Callable[..., Any], argtypes: tuple[types.Type, ...], abi: str, abi_info: dict[str, str] | None
) -> str:
    """The name the compiled device function gets: ``abi_info["abi_name"]`` if given (with
    either ABI, so that a Numba-ABI function can be declared by a name of one's choosing),
    else the function's name (C ABI) or numba's mangled name (Numba ABI)."""
    abi_info = abi_info or {}
    unknown = set(abi_info) - {"abi_name"}
    if unknown:
        raise ValueError(f"unknown abi_info keys {sorted(unknown)}; abi_info takes 'abi_name'")
    if abi == "numba" and "abi_name" not in abi_info:
        from ..lowering.entry import numba_abi_name

        return numba_abi_name(_py_function(pyfunc), argtypes)
    name = abi_info.get("abi_name", _py_function(pyfunc).__name__)
    if not isinstance(name, str) or not _C_IDENTIFIER.match(name):
        raise ValueError(
            f"abi_name {name!r} is not a C identifier (letters, digits and '_', not starting with a digit)"
        )
    return name


def _device(
    pyfunc: Callable[..., Any],
    argtypes: tuple[types.Type, ...],
    return_type: types.Type | None,
    cc: tuple[int, int],
    options: Options,
    abi: str,
    abi_info: dict[str, str] | None,
    output: str,
    with_link: bool = False,
) -> tuple[Any, types.Type]:
    from ..compiler import device_function

    symbol = _symbol(pyfunc, argtypes, abi, abi_info)
    callee = _device_dispatcher(pyfunc, options).compile_device(argtypes, return_type)
    code = device_function(callee, symbol, cc, abi=abi, output=output, options=options, with_link=with_link)
    return code, callee.typed.return_type


def _device_dispatcher(pyfunc: Callable[..., Any], options: Options) -> DeviceDispatcher:
    """The DeviceDispatcher typing *pyfunc* (a Python function or a @cuda.jit dispatcher)."""
    from ..typing.frontend import DeviceDispatcher

    dispatcher = getattr(pyfunc, "device_dispatcher", None)
    return dispatcher if dispatcher is not None else DeviceDispatcher(pyfunc, options)


def _kernel(
    pyfunc: Callable[..., Any],
    argtypes: tuple[types.Type, ...],
    return_type: types.Type | None,
    cc: tuple[int, int],
    options: Options,
    abi: str,
    output: str,
    with_link: bool = False,
) -> tuple[Any, types.Type]:
    from ..compiler import kernel, output_of

    if abi != "numba":
        raise NotImplementedError(f"abi={abi!r} applies to device functions; kernels use abi='numba'")
    function = _py_function(pyfunc)
    c = kernel(function, argtypes, cc, options, until="typed", return_type=return_type, output=output)
    code = output_of(c, output)
    return ((code, list(c.link)) if with_link else code), c.return_type


def compile_all(
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    debug: bool | None = None,
    lineinfo: bool = False,
    device: bool = True,
    fastmath: bool | set[str] = False,
    cc: ComputeCapability | None = None,
    opt: bool | None = None,
    abi: str = "c",
    abi_info: dict[str, str] | None = None,
    output: str = "ltoir",
    forceinline: bool = False,
    launch_bounds: int | tuple[int, ...] | None = None,
) -> tuple[list[Code | LinkableCode], types.Type]:
    """``compile``, returning ``(codes, return_type)``: *codes* lists the function's code
    first, then that of every item it links (``declare_device(link=...)``, ``link=``):
    CUDA C++ compiled with NVRTC to the same *output*, other items as their LinkableCode
    objects (PTXSource, Cubin, ...), for a linker of your own."""
    from ..linkable import CUSource, load
    from ..nvrtc import compile_source

    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"compile_all makes 'ptx' or 'ltoir', not {output!r}")
    if forceinline and output != "ltoir":
        raise ValueError("compile_all: forceinline=True needs output='ltoir'")
    settings: dict[str, Any] = {
        "debug": bool(debug),
        "lineinfo": lineinfo,
        "fastmath": fastmath,
        "opt": True if opt is None else opt,
    }
    settings.update(forceinline=forceinline, launch_bounds=launch_bounds)
    (code, items), result = _compile("cuda.compile_all", pyfunc, sig, device, cc, abi, abi_info, output, settings, True)
    cc = _compute_capability("cuda.compile_all", cc)
    codes = [code]
    for item in map(load, items):
        codes.append(compile_source(item.data, cc, item.name, output) if isinstance(item, CUSource) else item)
    return codes, result


def compile_mlir(
    pyfunc: Callable[..., Any],
    sig: SignatureLike,
    optimized: bool = False,
    cc: ComputeCapability | None = None,
    **options: Any,
) -> str:
    """numba-cuda-mlir's ``compile_mlir``: the MLIR text of *pyfunc* compiled as a kernel for
    *sig*, a ``gpu.module`` holding the kernel's ``gpu.func``: as lowered (the ``mlir``
    stage), or after cumlir's MLIR passes with ``optimized=True`` (the ``optimized`` stage).
    ``cc`` is the chip the module targets (without one, the current device's); further keywords
    are the options of ``cuda.jit``."""
    if not isinstance(optimized, bool):
        raise TypeError(f"compile_mlir: optimized must be True or False, got {optimized!r}")
    output = "optimized" if optimized else "mlir"
    text, _ = _compile("cuda.compile_mlir", pyfunc, sig, False, cc, "numba", None, output, options, kernel_outputs=True)
    return cast(str, text)


def compile_cubin(
    pyfunc: Callable[..., Any], sig: SignatureLike, cc: ComputeCapability | None = None, **options: Any
) -> bytes:
    """numba-cuda-mlir's ``compile_cubin``: the cubin (an ELF file) of *pyfunc* compiled as a
    kernel for *sig* and linked (linking/) with everything it links, for the chip *cc*
    (without one, the current device's); further keywords are the options of ``cuda.jit``."""
    cubin, _ = _compile(
        "cuda.compile_cubin", pyfunc, sig, False, cc, "numba", None, "cubin", options, kernel_outputs=True
    )
    return cast(bytes, cubin)


def compile_for(pyfunc: Callable[..., Any], *args: Any, cc: ComputeCapability | None = None) -> Any:
    """numba-cuda-mlir's ``compile_for``: compile the kernel *pyfunc* (a Python function or a
    ``@cuda.jit`` kernel) for the types a launch with the arguments *args* would have, for the
    chip *cc* (without one, the current device's). Returns the compiled kernel of those types,
    as ``kernel.compile(sig)`` does (its ``output("ptx")``, resources ...); the arguments are
    only looked at, never copied."""
    from ..dispatcher import Dispatcher
    from ..runtime.arguments import argument_type
    from .decorators import jit

    dispatcher = pyfunc if isinstance(pyfunc, Dispatcher) else jit(python_function(pyfunc, "cuda.compile_for"))
    if dispatcher.device:
        raise TypeError("cuda.compile_for compiles kernels; compile a device function with cuda.compile")
    # a kernel's overload: device functions were refused above
    overload = cast("KernelOverload", dispatcher.compile(tuple(argument_type(v, k) for k, v in enumerate(args))))
    overload.compilation(_compute_capability("cuda.compile_for", cc))
    return overload
