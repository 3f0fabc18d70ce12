"""What ``@cuda.jit`` returns, and what it compiles and launches through.

    surface.py      Dispatcher: Numba-CUDA's dispatcher (``kernel[...]``, ``inspect_*``,
                    ``get_*``, ``specialize``, ``configure``/``call``, ...), delegating to
    launching.py    ConfiguredKernel (``kernel[grid, block]``), ForAll (``kernel.forall``),
                    the routes of the fast path: what the loaded kernel's LaunchRecord gives
    table.py        OverloadTable: the kernels by argument types, the numba-free lookup by
                    plain types of kernels in the on-disk cache, settling them
    overload.py     KernelOverload: one tuple of argument types, compiled through one
                    compiler.KernelBuild per chip, the on-disk cache, loaded per context
    config_keys.py  launch configurations as keys of the launcher cache

Each imports only those below it (pyproject.toml's contracts). The dispatcher imports
neither numba nor MLIR until something is compiled: decorating a function loads only
surface.py and config_keys.py; the table and the launchers load with their first use.
"""

from __future__ import annotations

from .surface import Dispatcher

__all__ = ["ConfiguredKernel", "Dispatcher", "ForAll", "KernelOverload"]


def __getattr__(name: str) -> type:
    # the classes of the compiling and launching sides, named here, load their modules when first asked for
    if name == "KernelOverload":
        from .overload import KernelOverload

        return KernelOverload
    if name in ("ConfiguredKernel", "ForAll"):
        from . import launching

        return getattr(launching, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
