"""The typing registry holding cumlir's CUDA declarations (templates and globals)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba.core.typing.templates import Registry

if TYPE_CHECKING:
    from numba.core import types

registry = Registry()
register = registry.register
register_attr = registry.register_attr
register_global = registry.register_global

# Python functions typed by cumlir's declarations alone (value -> its type): numba's CPU
# overloads of them, registered once any numba.njit code compiles, must not accept in
# device code what cumlir refuses (and cannot lower)
exclusive: dict[object, types.Type] = {}
