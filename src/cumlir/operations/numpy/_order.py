"""The ``order=`` argument of the functions and methods that make or reshape arrays
(``a.copy``, ``np.empty_like``, ``a.ravel``, ``a.reshape`` ...), as NumPy reads it.

It is a constant string, upper or lower case: ``"C"`` (row-major), ``"F"`` (column-major),
``"A"`` (F where the array is Fortran-contiguous and not C-contiguous, else C) and ``"K"``
(the array's own memory order). The type of an array tells its order where its layout is
C or F; a layout-A array of two or more dimensions is read at run time
(arrayviews.fortran_order_first), and what is made from it then has layout A.
"""

from .._support import arrayviews
from .._support.modules import errors, types


def _choices(allowed):
    return ", ".join(repr(o) for o in allowed)


def order_of(name, order, allowed, default):
    """The order *order* (a numba type: a string literal, None or omitted) names, one of
    *allowed*; a TypingError naming *name* otherwise."""
    if order is None or isinstance(order, (types.NoneType, types.Omitted)):
        return default
    if isinstance(order, types.StringLiteral):
        value = order.literal_value.upper()
        if value in allowed:
            return value
        raise errors.TypingError(f"{name}: order must be one of {_choices(allowed)}, got {order.literal_value!r}")
    raise errors.TypingError(f"{name}: order must be a constant string, one of {_choices(allowed)}; got {order}")


def known(order, array_type):
    """The order "C" or "F" that *order* gives for arrays of *array_type*, or None where only
    the array's strides at run time tell ("A" or "K" of a layout-A array of 2 or more
    dimensions). A 1-d array is in both orders: "C"."""
    if order in "CF":
        return order
    if array_type.ndim < 2 or array_type.layout == "C":
        return "C"
    if array_type.layout == "F":
        return "F"
    return None


def layout_of(order, array_type):
    """The layout of a new array in *order* after one of *array_type*: C, F, or A (its
    strides chosen at run time)."""
    return known(order, array_type) or "A"


def fortran(lower, order, array_type, array):
    """Whether the elements of *array* go in Fortran order under *order*: True or False, or
    an i1 read from its strides (order "A" or "K" of a layout-A array, for both of which a
    Fortran-contiguous array that is not C-contiguous is Fortran and any other C)."""
    found = known(order, array_type)
    if found is not None:
        return found == "F"
    return arrayviews.fortran_order_first(lower, array_type, array)
