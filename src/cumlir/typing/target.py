"""cumlir's entry in numba's target registry.

Numba keys typing templates, ``@overload(target=...)`` and jit dispatchers by a
target class. cumlir's derives from numba's generic GPU target, so templates
written for ``target="generic"`` or ``"gpu"`` apply, while CPU-only ones do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba.core import target_extension as _te
from numba.core.imputils import Registry

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

TARGET_NAME = "cumlir"


class CumlirTarget(_te.GPU):
    """Kernels and device functions compiled by cumlir."""


if TARGET_NAME not in _te.target_registry:
    _te.target_registry[TARGET_NAME] = CumlirTarget
else:  # a reload of this module: keep the class numba already knows (its registry refuses another)
    CumlirTarget = _te.target_registry[TARGET_NAME]  # type: ignore[misc]  # noqa: F811


class TargetInfo:
    """The part of a numba target context that type inference reads."""

    target = CumlirTarget
    # numba then lets device functions return any array; lowering refuses those that need
    # the device runtime when it is off (lowering/function.py, docs/nrt.md)
    enable_nrt = True


def target_override() -> AbstractContextManager[None]:
    """Make cumlir the current target while typing, so its templates are chosen."""
    return _te.target_override(TARGET_NAME)


class _UnusedLlvmliteLowerings:
    """Where numba's llvmlite-based ``@intrinsic`` templates put their lowerings.

    Typing such an intrinsic registers its llvmlite implementation on the target's
    lowering registry; cumlir lowers to MLIR and cannot use it, so calls of them
    are later reported as having no lowering, at their source line.
    """

    def __init__(self) -> None:
        self._registries = {Registry("cumlir-unused-llvmlite"): None}

    def refresh(self) -> None:
        pass


class _NumbaDispatcherView:
    """What numba's templates read from ``dispatcher_registry[target]``."""

    class targetdescr:
        target_context = _UnusedLlvmliteLowerings()


_te.dispatcher_registry[CumlirTarget] = _NumbaDispatcherView
