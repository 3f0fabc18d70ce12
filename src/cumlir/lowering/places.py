"""Fields of a value reached through a temporary: ``a[i].x = v``, ``s.inner.x = v``, ``a[i].x``.

Values whose fields are assigned by value (C structs: typerecords' ``assigned_by_value``) are
held in registers, and assigning a field makes a new value of the variable (its setattr rule
returns it). In ``s.inner.x = v`` numba's IR assigns the field of a temporary, ``$t = s.inner``;
as in C, where ``s.inner`` and ``a[i]`` name places, the assignment reaches where the
temporary came from: the enclosing value gets the temporary's new value as its field (and so
on up, for ``s.a.b.x = v``), and an array's element gets the field's bytes stored into it, and
no other byte of the element (the element's field access of _support/elements.py), so that
threads assigning different fields of one element of shared memory do not race. Reading
``a[i].x`` (``a[i].inner.x``) loads the bytes of x alone, as C does, not those of fields
other threads may not have written yet. A variable of the user's keeps a copy, as in C
(``t = a[i]; t.x = v`` leaves the array as it was). A temporary that copies another value on
its way to the assignment (``s.x += a if c else b``: numba carries ``s`` into the block after
the branch as a temporary) assigns that value. Temporaries are numba's, each assigned once,
so where they came from is kept for the whole function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numba.core import errors, types
from numba.core import ir as nir
from numba.core.typing.templates import signature

from .. import typerecords
from ..operations._support.elements import field_access
from .registry import registry

if TYPE_CHECKING:
    from typing import Protocol

    from ..operations._support.builder import Lower, NumbaType, Value

    class MLIRLower(Lower, Protocol):
        """What these functions use of the MLIRLower they are given (function.py, which
        imports this module: named by this protocol, not imported)."""

        typemap: dict[str, NumbaType]
        places: dict[str, Any]

        def load_var(self, var: str | nir.Var) -> Value: ...

        def store_var(self, var: str | nir.Var, value: Value, value_type: NumbaType | None = None) -> None: ...

        def current_value(self, name: str, default: Value) -> Value: ...


# the expressions whose temporaries name a place
PLACE_EXPRESSIONS = frozenset(["getattr", "getitem", "static_getitem"])


@dataclass(frozen=True)
class _Place:
    base: str  # the variable read from
    base_type: NumbaType | None
    base_value: Value  # its value when read (a temporary may be deleted by then, with NRT on)
    attr: str | None  # a field's name, or None for an element
    index: Value  # an element's index
    index_type: NumbaType | None
    copy: bool = False  # a copy of the variable *base* (its value is the variable's own)


# a temporary copying one value on one path into a block and another on another
_CHOSEN = _Place("", None, None, None, None, None, copy=True)


def written_back(ty: NumbaType) -> bool:
    record = typerecords.record_of(ty)
    return record is not None and record.assigned_by_value


def remember(lower: MLIRLower, target: str, expr: nir.Expr) -> None:
    """Note where the temporary *target* (a value assigned by value) was read from."""
    base = expr.value.name
    base_type = lower.typemap[base]
    base_value = lower.load_var(base)
    if expr.op == "getattr":
        place = _Place(base, base_type, base_value, expr.attr, None, None)
    elif expr.op == "getitem":
        place = _Place(base, base_type, base_value, None, lower.load_var(expr.index), lower.typemap[expr.index.name])
    elif expr.index_var is not None:
        index_var = expr.index_var.name
        place = _Place(base, base_type, base_value, None, lower.load_var(index_var), lower.typemap[index_var])
    else:
        return  # an index numba keeps as a constant only (a slice): no element of an array
    lower.places[target] = place


def remember_copy(lower: MLIRLower, target: str, source: str) -> None:
    """Note that the temporary *target* copies the variable *source* (numba carrying a value
    from block to block); copies of different variables on different paths are noted as such."""
    known = lower.places.get(target)
    if known is not None and known.base != source:
        lower.places[target] = _CHOSEN
        return
    lower.places[target] = _Place(source, lower.typemap[source], None, None, None, None, copy=True)


def assign_field(lower: MLIRLower, var: nir.Var, attr: str, field_value: Value, new_value: Value) -> None:
    """``var.attr = field_value``, of which *new_value* is *var*'s new value."""
    _assign(lower, var.name, new_value, [attr], field_value)


def _assign(lower: MLIRLower, name: str, new_value: Value, path: list[str], field_value: Value) -> None:
    """Bind *name* to *new_value*, in which the field reached through *path* now holds
    *field_value*, and carry the assignment to where a temporary came from."""
    lower.store_var(name, new_value)
    place = lower.places.get(name)
    if place is None:
        return
    if place is _CHOSEN:
        raise errors.UnsupportedError(
            "a field of a value chosen at run time cannot be assigned ((s if c else t).x = v): assign each one's",
            lower.loc,
        )
    if place.copy:  # the variable copied gets the new value too
        _assign(lower, place.base, new_value, path, field_value)
        return
    base_value = lower.current_value(place.base, place.base_value)
    if place.attr is not None:
        rule = registry.find_setattr(place.base_type, place.attr)
        if rule is None:
            raise errors.UnsupportedError(
                f"the field {place.attr!r} of a {place.base_type} cannot be assigned, so neither can its fields "
                "(assign a copy to a variable, change it, and build the value again)",
                lower.loc,
            )
        sig = signature(types.none, place.base_type, lower.typemap[name])
        new_base = rule(lower, sig, [base_value, new_value], place.attr)
        if new_base is not None:
            _assign(lower, place.base, new_base, [place.attr, *path], field_value)
        return
    access = _field_access(place)
    if access is None:
        raise errors.UnsupportedError(
            f"a member of a {place.base_type} cannot be assigned, so neither can its fields: assign the whole value",
            lower.loc,
        )
    pointer = lower.element_pointer(place.base_type, base_value, place.index_type, place.index)
    access[1](lower, place.base_type.dtype, pointer, path, field_value)


def _field_access(place: _Place) -> tuple[Any, Any] | None:
    """The element's field access (_support/elements.py) where *place* is an array's element."""
    if not isinstance(place.base_type, (types.Array, types.CPointer)):
        return None
    return field_access(place.base_type.dtype)


def read_field(lower: MLIRLower, expr: nir.Expr) -> Value | None:
    """``a[i].x`` (``a[i].inner.x``): the field loaded from the element's bytes holding it, where
    the value read from is a temporary taken from an array's element; else None."""
    path, name = [expr.attr], expr.value.name
    place = lower.places.get(name)
    while place is not None and (place.attr is not None or place.copy) and place is not _CHOSEN:
        if place.attr is not None:
            path.insert(0, place.attr)
        place = lower.places.get(place.base)
    if place is None or place is _CHOSEN:
        return None
    access = _field_access(place)
    if access is None:
        return None
    base_value = lower.current_value(place.base, place.base_value)
    pointer = lower.element_pointer(place.base_type, base_value, place.index_type, place.index)
    return access[0](lower, place.base_type.dtype, pointer, path)
