"""What a record's sub-array field (``("v", np.float32, (3,))``) takes when assigned whole
(``r.v = x``, ``r["v"] = x``): shared by the typing of both spellings (records.py's
``static_setitem``, the typing context's ``resolve_setattr``).

NumPy assigns an array broadcast to the field's shape, or a scalar into every element, each
converted as assignment converts; so does cumlir (records.py stores through a view of the
field). Numba-CUDA takes an array of the field's type only, copying the field's count of
elements from its start.
"""

from .modules import types


def refusal(context, field, value):
    """Why *value* (a numba type) cannot be assigned to the sub-array field of type *field*
    (a ``NestedArray``), or None where it can; *context* is the typing context, which says
    which element conversions assignment makes."""
    element = (types.Number, types.Boolean)
    if not isinstance(field.dtype, element):
        return f"a value into a sub-array field of {field.dtype} (assign its elements)"
    given = value.dtype if isinstance(value, types.Array) else value
    if not isinstance(given, element):
        return f"a {value} into the sub-array field {field} (give an array or a number)"
    if context.can_convert(given, field.dtype) is None:
        return f"{value} into the sub-array field {field}: {given} does not convert to {field.dtype}"
    if isinstance(value, types.Array) and value.ndim > field.ndim:
        return f"a {value.ndim}-d array into the {field.ndim}-d sub-array field {field}"
    return None
