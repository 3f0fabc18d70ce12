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
    ``inline``, ``forceinline``, ``link``, ``lto``, ``cache``, ``shared_memory_carveout``)
    and ``backend``; they are checked here, and an unknown one raises TypeError.
    """
    from ..dispatcher import Dispatcher
    from ..options import Options

    if not isinstance(device, bool):
        raise TypeError(f"cuda.jit: device must be True or False, got {device!r}")
    compile_options = Options.from_keywords("cuda.jit", options)
    function = function_or_signatures(func_or_sig, "cuda.jit")
    if function is not None:
        return Dispatcher(function, device=device, options=compile_options)

    sigs = cast("SignatureLike | list[SignatureLike] | None", func_or_sig)  # not a function (checked above)
    if sigs is not None and not isinstance(sigs, list):
        sigs = [sigs]

    def decorate(pyfunc: Callable[..., Any]) -> Dispatcher:
        return Dispatcher(python_function(pyfunc, "cuda.jit"), sigs, device=device, options=compile_options)

    return decorate


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
