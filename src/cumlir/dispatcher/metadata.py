"""``KernelOverload.metadata``: what a compiled kernel's compile result holds, by the keys of
numba-cuda-mlir's ``metadata`` (and Numba-CUDA's ``dispatcher.get_metadata()``).

A read-only mapping whose values are computed on first read and kept: the code for the
chip the kernel compiles for without a launch (the ``chip=`` option, else the current
device's; compiling it where neither is known raises as ``inspect_ptx()`` does), and the
resources the driver reports of the kernel loaded on the current device. Keys whose value
cumlir cannot give are absent (numba-cuda-mlir's ``transformed_source``: cumlir rewrites no
Python source; its ``setup_callbacks``: cumlir's runtime needs none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..codegen.targets import chip
from ..nrt import RUNTIME_NAME
from ..runtime.driver import current_compute_capability

if TYPE_CHECKING:
    from ..compiler import Compilation
    from ..launch_needs import LaunchNeeds
    from ..options import Options

    class _Dispatcher(Protocol):
        @property
        def __name__(self) -> str: ...

        @property
        def options(self) -> Options: ...

    class KernelOverload(Protocol):
        """What the metadata reads of its overload (overload.KernelOverload, which imports this module)."""

        @property
        def dispatcher(self) -> _Dispatcher: ...

        @property
        def needs(self) -> LaunchNeeds: ...

        def compilation(self, cc: tuple[int, int], until: str = "cubin") -> Compilation: ...

        def output(self, output: str, cc: tuple[int, int] | None = None) -> str | bytes | None: ...

        def resource(self, name: str) -> int: ...


def _cc(overload: KernelOverload) -> tuple[int, int]:
    options = overload.dispatcher.options
    return options.chip or current_compute_capability(f"reading the metadata of {overload.dispatcher.__name__}")


def _compiled(overload: KernelOverload) -> Compilation:
    return overload.compilation(_cc(overload), "cubin")


def _code(overload: KernelOverload, code_format: str) -> str | bytes | None:
    c = _compiled(overload)
    return c.code if c.code_format == code_format else None


def _target_options(overload: KernelOverload) -> dict[str, Any]:
    """The options the kernel was compiled with, by their keywords of cuda.jit."""
    options = overload.dispatcher.options
    return {
        name: getattr(options, name) for name in options.__dataclass_fields__ if name not in ("dumps", "extensions")
    }


# key -> how to compute it from the overload
_KEYS: dict[str, Callable[[KernelOverload], Any]] = {
    "func_name": lambda o: _compiled(o).symbol,
    "ptx": lambda o: _code(o, "ptx"),
    "ltoir": lambda o: _code(o, "ltoir"),
    "cubin": lambda o: _compiled(o).cubin,
    "mlir_module_str": lambda o: o.output("mlir", _cc(o)),
    "mlir_module_optimized": lambda o: o.output("optimized", _cc(o)),
    "gpu_target": lambda o: chip(_cc(o), o.dispatcher.options.arch_specific),
    "targetoptions": _target_options,
    "needs_nrt": lambda o: any(getattr(item, "name", None) == RUNTIME_NAME for item in _compiled(o).link),
    "use_cooperative": lambda o: _compiled(o).cooperative,
    # Numba-CUDA's: the code depends on the launch configuration it compiled for (extending.md)
    "launch_config_sensitive": lambda o: o.needs.config is not None,
    **{
        name: (lambda o, name=name: o.resource(name))  # type: ignore[misc]  # the name bound per key
        for name in (
            "regs_per_thread",
            "shared_mem_per_block",
            "const_mem_size",
            "local_mem_per_thread",
            "max_threads_per_block",
        )
    },
}


class KernelMetadata(Mapping[str, Any]):
    """The metadata of one KernelOverload: every key of _KEYS, each computed when first read."""

    def __init__(self, overload: KernelOverload) -> None:
        self._overload = overload
        self._known: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._known:
            if key not in _KEYS:
                raise KeyError(key)
            self._known[key] = _KEYS[key](self._overload)
        return self._known[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_KEYS)

    def __len__(self) -> int:
        return len(_KEYS)

    def __repr__(self) -> str:
        return f"<metadata of {self._overload!r}: {', '.join(_KEYS)}>"
