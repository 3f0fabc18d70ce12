"""The element type an argument naming a dtype stands for (``a.view(d)``, ``cuda.shared.array(n, d)``)."""

from .modules import npydecl, types


def named_dtype(argument):
    """The numba type the argument type *argument* names as a dtype: what numba's parse_dtype
    reads (a NumPy type, an np.dtype, a constant string), or a stub naming a type
    (``cuda.float32x2``: its ``names_type``); None where it names none."""
    element = npydecl.parse_dtype(argument)
    if element is None and isinstance(argument, types.Function):
        names_type = getattr(argument.typing_key, "names_type", None)
        element = names_type() if names_type is not None else None
    return element
