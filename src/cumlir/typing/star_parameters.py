"""Kernels taking ``*args``: the launch's arguments past the named parameters are one tuple
inside the kernel (numba's StarArgTuple), as in numba-cuda-mlir.

A kernel is compiled, cached and launched for the flat types of its launch's arguments,
``(float32[:], float32[:], int64)`` for ``k[g, b](r, x, n)`` of ``def k(r, *args)``: a
tuple's kernel parameters are its members' in order (abi.md), so the kernel's parameters
are the same flat or bundled, and the launch path packs the arguments as they come. Only
the typing sees the bundle: ``(float32[:], StarArgTuple(float32[:], int64))``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from numba.core import types
from numba.core.types.containers import _StarArgTupleMixin


def named_count(pyfunc: Callable[..., Any]) -> int | None:
    """How many positional parameters *pyfunc* names before its ``*args``; None without one."""
    parameters = list(inspect.signature(pyfunc).parameters.values())
    for index, parameter in enumerate(parameters):
        if parameter.kind is parameter.VAR_POSITIONAL:
            return index
    return None


def bundled(pyfunc: Callable[..., Any], argtypes: Sequence[types.Type], where: str) -> tuple[types.Type, ...]:
    """The types numba types the kernel *pyfunc* with for the launch types *argtypes*: those
    past its named parameters as one StarArgTuple (kept where *argtypes* gives the bundle
    itself). A kernel without ``*args`` keeps *argtypes*."""
    named = named_count(pyfunc)
    argtypes = tuple(argtypes)
    if named is None:
        return argtypes
    if len(argtypes) < named:
        raise TypeError(
            f"{where} takes at least {named} arguments (before *{_star_name(pyfunc)}), "
            f"but {len(argtypes)} argument types were given"
        )
    if _given_bundle(argtypes, named):
        return argtypes
    return (*argtypes[:named], types.StarArgTuple.from_types(argtypes[named:]))


def launch_types(pyfunc: Callable[..., Any], argtypes: Sequence[types.Type]) -> tuple[types.Type, ...]:
    """The launch's argument types a kernel's signature stands for: a signature may give the
    ``*args`` bundle as one StarArgTuple (numba's form), which stands for its members."""
    named = named_count(pyfunc)
    argtypes = tuple(argtypes)
    if named is None or not _given_bundle(argtypes, named):
        return argtypes
    return (*argtypes[:named], *argtypes[named].types)  # type: ignore[attr-defined]  # a StarArgTuple


def _given_bundle(argtypes: tuple[types.Type, ...], named: int) -> bool:
    return len(argtypes) == named + 1 and isinstance(argtypes[named], _StarArgTupleMixin)


def _star_name(pyfunc: Callable[..., Any]) -> str:
    named = named_count(pyfunc)
    return list(inspect.signature(pyfunc).parameters)[named] if named is not None else ""
