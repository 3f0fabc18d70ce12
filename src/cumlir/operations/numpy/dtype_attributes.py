"""What a dtype known when compiling says of itself (``dt.itemsize``, ``dt.names``,
``dt.shape``, ``dt.base`` ...), for a dtype a kernel captures or is given as a constant.

Each attribute is NumPy's own value, read from the dtype when the kernel is typed: a number,
flag or string is a literal, a tuple one of literals, ``None`` is none, and ``base`` a dtype
again (numba types ``kind`` of numbers only: it is read here for every dtype). ``type`` is
numba's.
"""

from .._support.api import attribute, lazy
from .._support.modules import types

numpy_support = lazy("numba.np.numpy_support")

_READ = frozenset(
    "itemsize num alignment isbuiltin hasobject isalignedstruct isnative kind char name str byteorder "
    "names shape ndim base subdtype".split()
)


def _numpy_dtype(dtype_type):
    return numpy_support.as_dtype(dtype_type.dtype)


def _constant_type(value):
    if value is None:
        return types.none
    if isinstance(value, bool):
        return types.BooleanLiteral(value)
    if isinstance(value, (int, str)):
        return types.literal(value)
    if isinstance(value, tuple):
        return types.Tuple([_constant_type(v) for v in value])
    return types.DType(numpy_support.from_dtype(value))  # base, and the dtype of subdtype


@attribute("DType").typer
def _attribute_typing(dtype_type, name):
    if name not in _READ:
        return None
    return _constant_type(getattr(_numpy_dtype(dtype_type), name))


@attribute("DType").lower
def _attribute_value(lower, dtype_type, value, name):
    result = lower.typing_context.resolve_getattr(dtype_type, name)
    return lower.constant(result, getattr(_numpy_dtype(dtype_type), name))
