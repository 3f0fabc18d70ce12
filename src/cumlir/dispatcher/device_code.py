"""The code of a device function (``inspect_asm``, ``inspect_llvm`` of a ``@cuda.jit(device=True)``
function), as Numba-CUDA shows it: the function exported under numba's mangled name with
Numba's ABI, per signature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numba.core import types

    from ..chips import ComputeCapability
    from ..typing.signatures import SignatureLike


def device_code(
    dispatcher: Any, output: str, signature: SignatureLike | None, cc: ComputeCapability | None
) -> str | bytes | dict[tuple[types.Type, ...], str | bytes | None]:
    """*dispatcher*'s code (``output`` "ptx" or "llvm") for *signature*, or for each signature
    it was compiled for."""
    if output not in ("ptx", "llvm"):
        raise TypeError(
            f"{dispatcher.__name__} is a device function: inspect_llvm and inspect_asm show its code, "
            f"inspect_{output} shows kernels'"
        )
    if signature is None:
        compiled = dispatcher.device_dispatcher._device_functions
        return {argtypes: _code(dispatcher, output, argtypes, cc) for argtypes in list(compiled)}
    return _code(dispatcher, output, signature, cc)


def _code(dispatcher: Any, output: str, signature: SignatureLike, cc: ComputeCapability | None) -> str | bytes:
    from ..compiler import device_function  # loads MLIR: when code is asked for
    from ..lowering.entry import numba_abi_name
    from ..runtime.driver import current_compute_capability

    argtypes, return_type = dispatcher._table.parse_signature(signature)
    callee = dispatcher.device_dispatcher.compile_device(argtypes, return_type)
    options = dispatcher.options
    chip = cc or options.chip or current_compute_capability(f"compiling {dispatcher.__name__} to {output}")
    symbol = numba_abi_name(dispatcher.py_func, argtypes)
    return device_function(callee, symbol, chip, abi="numba", output=output, options=options)  # type: ignore[return-value]
