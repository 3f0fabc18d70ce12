"""The decorators: ``@cuda.jit``, and ``cuda.declare_device`` (as in Numba-CUDA's module of that name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

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
    import inspect

    from ..dispatcher import Dispatcher
    from ..options import Options

    if not isinstance(device, bool):
        raise TypeError(f"cuda.jit: device must be True or False, got {device!r}")
    compile_options = Options.from_keywords("cuda.jit", options)
    if inspect.isfunction(func_or_sig):
        return Dispatcher(func_or_sig, device=device, options=compile_options)
    if func_or_sig is not None and not isinstance(func_or_sig, (str, list, tuple)) and callable(func_or_sig):
        raise TypeError(f"@cuda.jit decorates Python functions, not {type(func_or_sig).__name__} objects")

    sigs = func_or_sig
    if sigs is not None and not isinstance(sigs, list):
        sigs = [sigs]

    def decorate(pyfunc: Callable[..., Any]) -> Dispatcher:
        return Dispatcher(pyfunc, sigs, device=device, options=compile_options)

    return decorate
