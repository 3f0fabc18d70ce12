"""``cuda.experimental``: numba-cuda-mlir's experimental names. ``inline_ptx`` is
``cuda.inline_ptx``, ``intrin`` the module ``cuda.intrin`` and ``consteval`` Python run while
a kernel compiles (typing/consteval.py), ``current_target_options()`` the options of the kernel
being compiled, read in consteval (typing/target_options.py), ``local_array_from`` a local
array filled from a generator expression (typing/array_from.py); ``struct`` and ``union``
declare C structs (with bit fields) and unions as device types (typerecords/_c_host.py,
docs/structs.md); Blackwell's descriptors are refused by name (cumlir/refused.py says why)."""

import importlib as _importlib
import typing as _typing

from .. import refused as _refused


def __getattr__(name: str) -> _typing.Any:
    if name == "inline_ptx":
        return _importlib.import_module("cumlir.operations").stub("inline_ptx")
    if name == "intrin":
        return _importlib.import_module("cumlir.cuda.intrin")
    if name == "consteval":  # numba loads with it, as with any kernel
        return _importlib.import_module("cumlir.typing.consteval").consteval
    if name == "local_array_from":
        return _importlib.import_module("cumlir.operations").stub("local_array_from")
    if name == "current_target_options":
        return _importlib.import_module("cumlir.typing.target_options").current_target_options
    if name in ("struct", "union"):  # numba's types: loaded when first asked for
        return getattr(_importlib.import_module("cumlir.typerecords._c_host"), name)
    if name in _refused.NUMBA_CUDA_MLIR["cuda.experimental"]:
        raise _refused.numba_cuda_mlir_refusal("cuda.experimental", name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(
        set(globals())
        | {"inline_ptx", "intrin", "consteval", "local_array_from", "struct", "union", "current_target_options"}
    )
