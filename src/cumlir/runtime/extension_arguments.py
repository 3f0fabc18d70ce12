"""Launch arguments of types an extension declared (numba's ``register_model`` and
``typeof_impl``, or ``cumlir.models.register_model``): packed by their data models, as
lowering/kernel_abi.py takes them and numba passes them. A pointer or opaque handle is one
address (an int, a ``ctypes.c_void_p``, a device array's data; the pointer parameter of
runtime/arguments.py), a struct of named members its members' parameters in order (a tuple
of their values, a NumPy record with their names, or an object with them as attributes), a
scalar one number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..typerecords._packing import SLOT

if TYPE_CHECKING:
    import ctypes

    from numba.core import types

# arguments.py's Parameter and Staging protocols (that module imports this one)
Parameter = Any
Staging = Any


def parameter(
    ty: types.Type,
    index: int | str,
    parameter_of: Callable[[types.Type, int | str], Parameter],
    pointer: Callable[[types.Type, int | str], Parameter],
) -> Parameter:
    """The parameter of an argument of the extension type *ty*; *parameter_of* makes those of
    its members and scalars, *pointer* that of an address."""
    from .. import models  # MLIR's bindings, which models name: loaded only for extension types

    try:
        model = models.default_manager.lookup(ty)
    except TypeError as e:
        raise TypeError(f"argument {index}: kernel parameters of type {ty} are not supported: {e}") from None
    shape = models.parameter_shape(model)
    if shape == "pointer":
        return pointer(ty, index)
    if shape == "members":
        return MembersParameter(ty, model._named_members, index, parameter_of)  # type: ignore[attr-defined]
    if shape is not None:
        return parameter_of(shape, index)  # type: ignore[arg-type]  # a numba number type
    raise TypeError(
        f"argument {index}: kernel parameters of type {ty} are not supported: its data model "
        f"({type(model).__name__}) is neither a pointer, a struct of named members nor an integer or float"
    )


class MembersParameter:
    """A struct of named members: each member's parameters, in order."""

    def __init__(
        self,
        ty: types.Type,
        members: list[tuple[str, types.Type]],
        index: int | str,
        parameter_of: Callable[[types.Type, int | str], Parameter],
    ) -> None:
        self.index = index
        self.type = ty
        self.names = [name for name, _ in members]
        self.members = [parameter_of(t, f"{index}.{name}") for name, t in members]
        self.slots = sum(m.slots for m in self.members)

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        for member, item in zip(self.members, self._values(value)):
            member.pack(item, buffer, offset, launch)
            offset += SLOT * member.slots

    def _values(self, value: Any) -> list[Any]:
        if isinstance(value, (tuple, list)) and len(value) == len(self.names):
            return list(value)
        if isinstance(value, np.void) and value.dtype.names is not None and set(self.names) <= set(value.dtype.names):
            return [value[name] for name in self.names]
        if all(hasattr(value, name) for name in self.names):
            return [getattr(value, name) for name in self.names]
        raise TypeError(
            f"argument {self.index}: a {self.type} takes a tuple of its {len(self.names)} members "
            f"({', '.join(self.names)}), a record or an object with them as attributes, got {value!r}"
        )
