"""C structs and unions (``cuda.experimental.struct`` and ``union``): making one, reading and
assigning its fields, and arrays of them.

``Point()`` in a kernel makes a value whose bytes are zero; ``Point(1.0, y=2.0)`` sets the
fields given, by position in their declared order or by name (a union takes one field). A
field read is typed as the field's type (a nested struct, union or C array as its own
value); assigning it converts the value to that type, a bit field keeping its low bits as
C does, and a signed bit field reads back sign-extended. An unknown field is a typing error
naming the fields there are.

Values are held in registers as their bytes (typerecords/c_structs.py, _c_words.py), so
reading a field is a shift of the integer holding it and assigning one makes a new value of
the variable; ``a[i].x = v`` and ``s.inner.x = v`` write the new value of the temporary back
into the enclosing value (lowering/places.py), or stores the field's bytes into the array's
element (and no other byte of it). A union's fields share its bytes: a field reads the
bytes the last assignment left, as in C.

Arrays of them (``cuda.local.array(n, Point)``, ``cuda.shared.array``) are memrefs of
bytes with byte strides; an element is loaded and stored whole, in pieces covering the bytes
its fields hold (never its padding), and ``a[i].x`` reads and ``a[i].x = v`` writes the bytes
of x alone, as C does.
"""

from .._support.api import attribute, constant, declare, named_type
from .._support.elements import ELEMENT_ACCESS, FIELD_ACCESS
from .._support.modules import errors
from . import _c_words as words
from .records import advance, element_pointer

# ---- typing ---------------------------------------------------------------------------------


@attribute("CAggregate").typer
def _field_typing(ty, attr):
    field = ty.layout.field(attr)
    if field is not None:
        return field.type
    if attr.startswith("__"):
        return None  # numba asks for __call__ and the like of every type
    raise errors.TypingError(f"{ty!r} has no field {attr!r} (fields: {', '.join(ty.layout.names)})")


# ---- lowering -------------------------------------------------------------------------------


def read_field(lower, ty, value, name):
    field = ty.layout.field(name)
    if field.is_bit_field:
        return words.read_bit_field(lower, value, ty, field)
    return words.read(lower, value, ty, field.type, 8 * field.offset)


def write_field(lower, ty, value, name, field_value):
    """*value* with the field *name* holding *field_value* (of the field's type)."""
    field = ty.layout.field(name)
    if field.is_bit_field:
        return words.write_bit_field(lower, value, ty, field, field_value)
    return words.write(lower, value, ty, field.type, 8 * field.offset, field_value)


@declare(named_type("CAggregateClass")).lower("*Any")
def make(lower, sig, args):
    """``Point(...)``: zero bytes, then each field given (a None argument is one left out)."""
    ty = sig.return_type
    value = words.zero(lower, ty)
    for field, arg in zip(ty.layout.fields, args):
        if arg is not None:
            value = write_field(lower, ty, value, field.name, arg)
    return value


@constant("CAggregate")
def global_value(lower, ty, pyval):
    """A value made on the host and read as a global: its bytes, a constant."""
    return words.constant(lower, ty, bytes(pyval))


@attribute("CAggregate").lower
def field_getattr(lower, ty, value, attr):
    return read_field(lower, ty, value, attr)


@attribute("CAggregate").lower_set
def field_setattr(lower, sig, args, attr):
    return write_field(lower, sig.args[0], args[0], attr, args[1])


def _load_element(lower, ty, array, indices):
    return words.load_value(lower, ty, element_pointer(array, indices))


def _store_element(lower, ty, value, array, indices):
    words.store_value(lower, ty, value, element_pointer(array, indices))


def _field_at(ty, path):
    """(the field reached through the field names *path* from a value of *ty*, the bit its
    container starts at)."""
    bit = 0
    for name in path[:-1]:
        field = ty.layout.field(name)
        bit += 8 * field.offset
        ty = field.type
    return ty.layout.field(path[-1]), bit


def _load_field(lower, ty, pointer, path):
    """``a[i].f.g``: the field reached through *path* of the element at *pointer*, loaded from
    its own bytes alone."""
    field, bit = _field_at(ty, path)
    if field.is_bit_field:
        return words.load_bit_field(lower, pointer, bit + field.bit, field)
    return words.load(lower, field.type, advance(pointer, bit // 8 + field.offset))


def _store_field(lower, ty, pointer, path, value):
    """``a[i].f.g = value``: the bytes of the field reached through *path* stored into the
    element at *pointer*, the element's other bytes left alone (a bit field: the bytes holding it)."""
    field, bit = _field_at(ty, path)
    if field.is_bit_field:
        words.store_bit_field(lower, pointer, bit + field.bit, field, value)
    else:
        words.store(lower, field.type, value, advance(pointer, bit // 8 + field.offset))


ELEMENT_ACCESS["CAggregate"] = (_load_element, _store_element)
FIELD_ACCESS["CAggregate"] = (_load_field, _store_field)
