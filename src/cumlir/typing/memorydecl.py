"""Typing of the memory-space intrinsics: ``cuda.shared.array``, ``cuda.local.array``,
``cuda.const.array_like`` and ``cuda.syncthreads``.

Shapes, dtypes and alignments are compile-time constants; every array is an
ordinary C-layout ``Array`` so kernels index it like any other.
"""

from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing.npydecl import parse_dtype
from numba.core.typing.templates import AttributeTemplate, CallableTemplate, ConcreteTemplate, signature

from ..cuda import stubs
from .registry import register_attr, register_global


class MemoryNamespace(types.Dummy):
    """cuda.shared, cuda.local or cuda.const."""

    def __init__(self, space):
        self.space = space
        super().__init__(name=f"cuda.{space}")

    @property
    def key(self):
        return self.space


def _shape(name, shape):
    """The extents of a constant shape: an int or a tuple of ints known at compile time."""
    extents = shape.types if isinstance(shape, types.BaseTuple) else (shape,)
    if not isinstance(shape, (types.Integer, types.BaseTuple)) or not all(
        isinstance(e, types.IntegerLiteral) for e in extents
    ):
        raise TypingError(f"{name}: the shape must be an int or a tuple of ints known at compile time, got {shape}")
    values = tuple(e.literal_value for e in extents)
    for extent in values:
        if extent < 0:
            raise TypingError(f"{name}: the shape {values} has a negative extent")
    return values


def _dtype(name, dtype):
    try:
        nb_dtype = parse_dtype(dtype)
    except TypingError as e:
        raise TypingError(f"{name}: {e}") from None
    if not isinstance(nb_dtype, (types.Number, types.Boolean)):
        raise TypingError(f"{name}: the dtype must be a numeric or boolean type such as float32, got {dtype}")
    return nb_dtype


def itemsize(dtype):
    """Bytes per element (booleans are stored as one byte)."""
    return 1 if isinstance(dtype, types.Boolean) else dtype.bitwidth // 8


def alignment_of(name, alignment, dtype):
    """The requested alignment in bytes, or None; a power of two at least the item size."""
    if alignment is None or isinstance(alignment, (types.NoneType, types.Omitted)):
        return None
    if not isinstance(alignment, types.IntegerLiteral):
        raise TypingError(f"{name}: alignment must be an int known at compile time, got {alignment}")
    value = alignment.literal_value
    if value <= 0 or value & (value - 1):
        raise TypingError(f"{name}: alignment must be a power of 2, got {value}")
    if value < itemsize(dtype):
        raise TypingError(f"{name}: alignment {value} is less than the item size of {dtype} ({itemsize(dtype)} bytes)")
    return value


def array_spec(name, shape, dtype, alignment):
    """(extents, Numba dtype, alignment or None) of an array allocation, validated."""
    nb_dtype = _dtype(name, dtype)
    return _shape(name, shape), nb_dtype, alignment_of(name, alignment, nb_dtype)


def _array_typer(name, dynamic_allowed):
    def typer(shape, dtype, alignment=None):
        extents, nb_dtype, _ = array_spec(name, shape, dtype, alignment)
        if 0 in extents and len(extents) > 1 and dynamic_allowed:
            raise TypingError(f"{name}: a dynamic shared array (shape 0) is 1-D, got the shape {extents}")
        return types.Array(nb_dtype, len(extents), "C")

    return typer


class SharedArrayTemplate(CallableTemplate):
    key = stubs.shared.array

    def generic(self):
        return _array_typer("cuda.shared.array", dynamic_allowed=True)


class LocalArrayTemplate(CallableTemplate):
    key = stubs.local.array

    def generic(self):
        return _array_typer("cuda.local.array", dynamic_allowed=False)


class ConstArrayLikeTemplate(CallableTemplate):
    key = stubs.const.array_like

    def generic(self):
        def typer(ndarray):
            if not isinstance(ndarray, types.Array):
                raise TypingError(f"cuda.const.array_like needs a module-level NumPy array, got {ndarray}")
            return ndarray

        return typer


class SyncthreadsTemplate(ConcreteTemplate):
    key = stubs.syncthreads
    cases = [signature(types.none)]


_NAMESPACE_FUNCTIONS = {
    "shared": {"array": SharedArrayTemplate},
    "local": {"array": LocalArrayTemplate},
    "const": {"array_like": ConstArrayLikeTemplate},
}

for _space in _NAMESPACE_FUNCTIONS:
    register_global(getattr(stubs, _space), MemoryNamespace(_space))
register_global(stubs.syncthreads, types.Function(SyncthreadsTemplate))


@register_attr
class MemoryNamespaceAttributes(AttributeTemplate):
    key = MemoryNamespace

    def generic_resolve(self, ty, attr):
        template = _NAMESPACE_FUNCTIONS[ty.space].get(attr)
        return types.Function(template) if template is not None else None
