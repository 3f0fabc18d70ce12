"""Numba types to MLIR types and back, for lowering callbacks (numba-cuda-mlir's
``lowering_utilities.type_conversions``).

``to_mlir_type`` asks cumlir's data models, so it agrees with what the compiler emits.
``to_numba_type`` is the inverse for the MLIR types one Numba type maps to unambiguously:
signless integers read as signed (as Numba's default integers) and memrefs as arrays of
any layout. Both need a current MLIR context (a lowering callback runs inside one).
"""

import functools

import numpy as np
from mlir import ir
from numba.core import types
from numba.core.typing.templates import Signature
from numba.np import numpy_support

from ..models import default_manager


@functools.singledispatch
def to_mlir_type(obj: object) -> ir.Type:
    """The MLIR type of a value of *obj*: a Numba type, a NumPy dtype, a NumPy scalar
    class, or a Numba signature (an MLIR function type)."""
    raise TypeError(f"to_mlir_type: no MLIR type for {obj!r} (give a Numba type, a NumPy dtype or a signature)")


@to_mlir_type.register(types.Type)
def _numba_type(obj: types.Type) -> ir.Type:
    return default_manager.value_type(obj)


@to_mlir_type.register(np.dtype)
def _dtype(obj: np.dtype) -> ir.Type:
    return default_manager.value_type(numpy_support.from_dtype(obj))


@to_mlir_type.register(type)
def _scalar_class(obj: type) -> ir.Type:
    if issubclass(obj, np.generic):
        return _dtype(np.dtype(obj))
    raise TypeError(f"to_mlir_type: no MLIR type for the class {obj.__name__} (give a Numba type or a NumPy dtype)")


@to_mlir_type.register(Signature)
def _signature(obj: Signature) -> ir.FunctionType:
    results = [] if obj.return_type == types.none else [to_mlir_type(obj.return_type)]
    return ir.FunctionType.get([to_mlir_type(a) for a in obj.args], results)


@to_mlir_type.register(ir.Value)
def _value(obj: ir.Value) -> ir.Type:
    return obj.type


_FLOATS: dict[str, types.Type] = {"f16": types.float16, "f32": types.float32, "f64": types.float64}
_INTEGERS: dict[int, types.Type] = {1: types.boolean, 8: types.int8, 16: types.int16, 32: types.int32, 64: types.int64}


@functools.singledispatch
def to_numba_type(obj: object) -> types.Type:
    """The Numba type of an MLIR type (or of an MLIR value's type)."""
    raise TypeError(f"to_numba_type: no Numba type for {obj!r} (give an MLIR type or value)")


@to_numba_type.register(ir.Value)
def _of_value(obj: ir.Value) -> types.Type:
    return to_numba_type(obj.type)


@to_numba_type.register(ir.Type)
def _of_type(obj: ir.Type) -> types.Type:
    text = str(obj)
    if isinstance(obj, ir.IntegerType):
        if obj.width in _INTEGERS:
            return _INTEGERS[obj.width]
    elif text in _FLOATS:
        return _FLOATS[text]
    elif text == "index":
        return types.intp
    elif text == "!llvm.ptr":
        return types.voidptr
    elif isinstance(obj, ir.MemRefType):
        return types.Array(to_numba_type(obj.element_type), obj.rank, "A")
    raise TypeError(f"to_numba_type: no Numba type for the MLIR type {text}")
