"""Typing of record fields: an unknown field name is a typing error naming the field.

numba's own record templates look fields up unchecked (a bare KeyError escapes type
inference); these templates come first and reject unknown names, then defer to numba's.
"""

from numba.core import errors, types
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate

from ..registry import register, register_attr


def _check_field(record, name):
    if isinstance(name, str) and name not in record.fields:
        raise errors.TypingError(f"the record {record} has no field '{name}' (fields: {', '.join(record.fields)})")
    if isinstance(name, int) and not -len(record.fields) <= name < len(record.fields):
        raise errors.TypingError(f"the record {record} has no field at position {name}")


@register_attr
class RecordFields(AttributeTemplate):
    key = types.Record

    def generic_resolve(self, record, attr):
        _check_field(record, attr)
        return None  # a known field: numba's template types it


@register
class RecordStaticGetItem(AbstractTemplate):
    key = "static_getitem"

    def generic(self, args, kws):
        if len(args) == 2 and isinstance(args[0], types.Record):
            _check_field(args[0], args[1])


@register
class RecordStaticSetItem(AbstractTemplate):
    key = "static_setitem"

    def generic(self, args, kws):
        if len(args) == 3 and isinstance(args[0], types.Record):
            _check_field(args[0], args[1])
