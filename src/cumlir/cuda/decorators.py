"""The decorators: ``@cuda.jit``, and ``cuda.declare_device`` (as in Numba-CUDA's module of that name)."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import TYPE_CHECKING, Any, cast, overload

from .foreign import declare_device  # noqa: F401  (Numba-CUDA's decorators module has it too)

if TYPE_CHECKING:
    from ..dispatcher import Dispatcher
    from ..typing.signatures import SignatureLike


@overload
def jit(func_or_sig: Callable[..., Any], device: bool = False, **options: Any) -> Dispatcher: ...


@overload
def jit(
    func_or_sig: SignatureLike | list[SignatureLike] | None = None, device: bool = False, **options: Any
) -> Callable[[Callable[..., Any]], Dispatcher]: ...


def jit(
    func_or_sig: Callable[..., Any] | SignatureLike | list[SignatureLike] | None = None,
    device: bool = False,
    **options: Any,
) -> Dispatcher | Callable[[Callable[..., Any]], Dispatcher]:
    """Compile a Python function into a CUDA kernel, or a device function with ``device=True``.

    Forms: ``@cuda.jit``, ``@cuda.jit(device=True)``, ``@cuda.jit("void(float32[:], int64)")``
    and ``@cuda.jit(["sig1", "sig2"])``. Without signatures, a kernel is compiled at its
    first launch for each new combination of argument types. The keywords are Numba-CUDA's
    (``debug``, ``opt``, ``lineinfo``, ``fastmath``, ``max_registers``, ``launch_bounds``,
    ``inline``, ``forceinline``, ``link``, ``lto``, ``cache``, ``shared_memory_carveout``),
    ``backend``, and numba-cuda-mlir's (``opt_level``, ``chip``, ``cc``, ``features``,
    ``ptxas_options``, ``capi``, ``abi_info``, ``signature="infer"``, the ``dump_*``
    switches ...: docs/architecture.md, "Options"); they are checked here, and an unknown
    or refused one raises an exception naming it. ``simulate=True`` runs this kernel as its
    Python function, thread by thread, in any process (docs/simulator.md).
    """
    from .. import simulation

    simulate = options.pop("simulate", False)
    if not isinstance(simulate, bool):
        raise TypeError(f"cuda.jit: simulate must be True or False, got {simulate!r}")
    if simulate or simulation.python_mode():  # the function itself, thread by thread (docs/simulator.md)
        from .python_mode import jit as python_jit

        return python_jit(func_or_sig, device, **options)

    from ..dispatcher import Dispatcher
    from ..options import Options

    if not isinstance(device, bool):
        raise TypeError(f"cuda.jit: device must be True or False, got {device!r}")
    signature = options.pop("signature", None)
    by_annotations = options.pop("annotations_as_signatures", False)
    if not isinstance(by_annotations, bool):
        raise TypeError(f"cuda.jit: annotations_as_signatures must be True or False, got {by_annotations!r}")
    compile_options = Options.from_keywords("cuda.jit", options)
    if device and compile_options.capi:
        raise TypeError(
            "cuda.jit: capi names a kernel's symbol; to export a device function under a name of "
            "your choosing use cuda.compile(f, sig, abi='c', abi_info={'abi_name': ...})"
        )
    function = function_or_signatures(func_or_sig, "cuda.jit")
    given = None if function is not None else cast("SignatureLike | list[SignatureLike] | None", func_or_sig)
    if signature is not None and signature != "infer":
        if given is not None:
            raise TypeError("cuda.jit: signatures given twice: as the first argument and as signature=")
        given = signature
    infer = signature == "infer" or by_annotations

    def decorate(pyfunc: Callable[..., Any]) -> Dispatcher:
        python = python_function(pyfunc, "cuda.jit")
        sigs = given if given is None or isinstance(given, list) else [given]
        if infer:
            sigs = _with_annotations(python, sigs, strict=signature == "infer")
        # one signature (not a list of them) makes a specialized kernel, as in Numba-CUDA
        one = given is not None and not isinstance(given, list) and not infer and not device
        return Dispatcher(python, sigs, device=device, options=compile_options, specialized=one)

    return decorate(function) if function is not None else decorate


def _with_annotations(
    pyfunc: FunctionType, sigs: list[SignatureLike] | None, strict: bool
) -> list[SignatureLike] | None:
    """The signatures of a function compiled with signature="infer" or
    annotations_as_signatures=True: its annotations' one, which signatures given too conflict with."""
    from .annotated import signature_from_annotations

    inferred = signature_from_annotations(pyfunc, strict)
    if inferred is None:
        return sigs
    if sigs:
        raise TypeError(
            f"cuda.jit: conflicting signature sources for {pyfunc.__qualname__}: it has both signatures and "
            "type annotations to compile for; give one of them (or annotations_as_signatures=False to ignore "
            "the annotations)"
        )
    return [inferred]


def python_function(obj: object, where: str) -> FunctionType:
    """The Python function that *where* (a public entry point) compiles: *obj* itself, or the one a
    ``@cuda.jit`` function wraps. Anything else (a number, a builtin such as ``len``, a class) is a
    TypeError saying what was given, before it reaches the compiler (which reads a function's code)."""
    function = getattr(obj, "py_func", obj)
    if isinstance(function, FunctionType):
        return function
    raise TypeError(f"{where} compiles Python functions (def or lambda) and @cuda.jit functions, not {shown(obj)}")


def function_or_signatures(obj: object, where: str) -> FunctionType | None:
    """The first argument of a decorator taking a function or signatures (``cuda.jit``,
    ``cuda.vectorize``): the Python function it is or wraps, or None for signatures (read when
    a function is decorated); a TypeError for anything else."""
    if obj is None or isinstance(obj, (str, list, tuple)) or _numba_signature(obj):
        return None
    if callable(obj):
        return python_function(obj, where)
    raise TypeError(f"{where} takes a Python function or signatures, not {shown(obj)}")


def _numba_signature(obj: object) -> bool:
    # a numba Signature or type (callable: float32(int32) makes a signature), told by its module
    # so that numba is not imported to ask isinstance
    return type(obj).__module__.startswith(("numba.core.types", "numba.core.typing"))


def shown(obj: object) -> str:
    """*obj* as an error message names it: its repr, shortened, and its type."""
    text = repr(obj)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(obj).__name__})"
