"""Numba types to MLIR types and back, for lowering callbacks (numba-cuda-mlir's
``lowering_utilities.type_conversions``).

``to_mlir_type`` asks cumlir's data models, so it agrees with what the compiler emits.
``to_numba_type`` is the inverse for the MLIR types one Numba type maps to unambiguously:
signless integers read as signed (as Numba's default integers) and memrefs as arrays of
any layout. Both need a current MLIR context (a lowering callback runs inside one) for
MLIR types; ``to_numba_type`` also names the Numba type of a NumPy scalar class
(``np.float32``), a ctypes type (``ctypes.c_int``, ``c_void_p``), a NumPy dtype, and the
signature a function's annotations give, as numba-cuda-mlir's does, without one.
"""

import ctypes
import functools
import inspect

import numpy as np
from mlir import ir
from numba.core import types
from numba.core.typing import ctypes_utils
from numba.core.typing.templates import Signature, signature
from numba.np import numpy_support

from ..models import default_manager
from ..typerecords.bfloat16 import bfloat16
from ..typerecords.narrow_floats import narrow_floats
from ..typerecords.tf32 import tf32


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
    if issubclass(obj, (np.generic, ctypes._SimpleCData)):
        return to_mlir_type(to_numba_type(obj))
    raise TypeError(f"to_mlir_type: no MLIR type for the class {obj.__name__} (give a Numba type or a NumPy dtype)")


@to_mlir_type.register(Signature)
def _signature(obj: Signature) -> ir.FunctionType:
    results = [] if obj.return_type == types.none else [to_mlir_type(obj.return_type)]
    return ir.FunctionType.get([to_mlir_type(a) for a in obj.args], results)


@to_mlir_type.register(ir.Value)
def _value(obj: ir.Value) -> ir.Type:
    return obj.type


_FLOATS: dict[str, types.Type] = {
    "f16": types.float16,
    "f32": types.float32,
    "f64": types.float64,
    "bf16": bfloat16,
    "tf32": tf32,
    # MLIR's narrow float types, by the names of cumlir's types (held as i8 in registers)
    **{str(ty): ty for ty in narrow_floats.values()},
}
_INTEGERS: dict[int, types.Type] = {1: types.boolean, 8: types.int8, 16: types.int16, 32: types.int32, 64: types.int64}


@functools.singledispatch
def to_numba_type(obj: object) -> types.Type | Signature:
    """The Numba type of an MLIR type (or of an MLIR value's type, an MLIR type attribute),
    of a NumPy scalar class, dtype or ctypes type; the Signature of an MLIR function type or
    of a Python signature whose parameters are all annotated (``inspect.signature(f)``)."""
    raise TypeError(
        f"to_numba_type: no Numba type for {obj!r} (give an MLIR type or value, a NumPy scalar type or "
        "dtype, a ctypes type, or an annotated inspect.Signature)"
    )


@to_numba_type.register(types.Type)
def _of_numba_type(obj: types.Type) -> types.Type:
    return obj


@to_numba_type.register(type)
def _of_class(obj: type) -> types.Type:
    # np.str_, np.bytes_ and np.void name no size: their dtypes hold 0 characters or bytes
    if issubclass(obj, np.generic) and np.dtype(obj).itemsize:
        return numpy_support.from_dtype(np.dtype(obj))
    elif issubclass(obj, (ctypes._SimpleCData, ctypes._Pointer)):
        try:
            return ctypes_utils.from_ctypes(obj)
        except TypeError:
            raise TypeError(f"to_numba_type: the ctypes type {obj.__name__} has no Numba type") from None
    raise TypeError(
        f"to_numba_type: no Numba type for the class {obj.__name__} (give a NumPy scalar type such as "
        "np.float32, or a ctypes type such as ctypes.c_int)"
    )


@to_numba_type.register(np.dtype)
def _of_dtype(obj: np.dtype) -> types.Type:
    return numpy_support.from_dtype(obj)


@to_numba_type.register(inspect.Signature)
def _of_signature(obj: inspect.Signature) -> Signature:
    """The signature the annotations give (each a Numba type, NumPy scalar type or ctypes
    type); a missing annotation is a TypeError naming the parameter. An unannotated result is
    ``none``, as numba-cuda-mlir reads a kernel's."""
    argtypes = []
    for name, parameter in obj.parameters.items():
        if parameter.annotation is inspect.Parameter.empty:
            raise TypeError(f"to_numba_type: the parameter {name!r} has no type annotation")
        argtypes.append(_annotation(name, parameter.annotation))
    result = obj.return_annotation
    if result is inspect.Signature.empty or result is None:
        return signature(types.none, *argtypes)
    return signature(_annotation("return", result), *argtypes)


def _annotation(name: str, annotation: object) -> types.Type:
    try:
        found = to_numba_type(annotation)
    except TypeError as e:
        raise TypeError(f"to_numba_type: the annotation of {name!r}: {e}") from None
    if isinstance(found, Signature):
        raise TypeError(f"to_numba_type: the annotation of {name!r} is a signature, not a type")
    return found


@to_numba_type.register(ir.TypeAttr)
def _of_type_attribute(obj: ir.TypeAttr) -> types.Type | Signature:
    return to_numba_type(obj.value)


@to_numba_type.register(ir.FunctionType)
def _of_function_type(obj: ir.FunctionType) -> Signature:
    """numba-cuda-mlir's reading: no result is ``none``, several a tuple."""
    results = [to_numba_type(r) for r in obj.results]
    arguments = [to_numba_type(a) for a in obj.inputs]
    if not results:
        return signature(types.none, *arguments)
    if len(results) == 1:
        return signature(results[0], *arguments)
    same = all(r == results[0] for r in results)
    return signature(types.UniTuple(results[0], len(results)) if same else types.Tuple(results), *arguments)


@to_numba_type.register(ir.Value)
def _of_value(obj: ir.Value) -> types.Type | Signature:
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
        return types.Array(_of_type(obj.element_type), obj.rank, "A")
    raise TypeError(f"to_numba_type: no Numba type for the MLIR type {text}")
