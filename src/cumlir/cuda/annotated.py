"""Signatures read from type annotations: ``@cuda.jit(signature="infer")`` and
``annotations_as_signatures=True`` (numba-cuda-mlir's keywords).

An annotation is a numba type (``cuda.float32[::1]``, ``cuda.int32``), a NumPy scalar
type (``np.float32``) or a ctypes one (``ctypes.c_int``); an array class such as
``DeviceNDArray`` names no element type nor dimensions, and is refused.
"""

from __future__ import annotations

import ctypes
import inspect
from types import FunctionType
from typing import Any

WHERE = "cuda.jit(signature='infer')"


class _Unreadable(Exception):
    """An annotation that names no numba type (the message says why)."""


def signature_from_annotations(pyfunc: FunctionType, strict: bool) -> tuple[Any, ...] | Any | None:
    """The signature *pyfunc*'s annotations give: a numba Signature where the result is
    annotated, else a tuple of argument types. Without an annotation on every parameter it is
    a TypeError naming the parameter when *strict* (``signature="infer"``), else None (the
    function is compiled for its launches' types, as without annotations)."""
    try:
        parameters = inspect.signature(pyfunc, eval_str=True)
    except Exception as e:  # a string annotation that names nothing here
        if strict:
            raise TypeError(f"{WHERE}: cannot read the annotations of {pyfunc.__qualname__}: {e}") from None
        return None
    argtypes = []
    for name, parameter in parameters.parameters.items():
        try:
            if parameter.annotation is inspect.Parameter.empty:
                raise _Unreadable("it has no type annotation")
            argtypes.append(numba_type(parameter.annotation))
        except _Unreadable as e:
            if strict:
                raise TypeError(f"{WHERE}: the parameter {name!r} of {pyfunc.__qualname__}: {e}") from None
            return None
    result = parameters.return_annotation
    if result is inspect.Signature.empty:
        return tuple(argtypes)
    try:
        return_type = _none_or_type(result)
    except _Unreadable as e:
        raise TypeError(f"{WHERE}: the result of {pyfunc.__qualname__}: {e}") from None
    return return_type(*argtypes)


def numba_type(annotation: object) -> Any:
    """The numba type an annotation names; _Unreadable saying why if none."""
    from numba.core import types

    if isinstance(annotation, types.Type):
        return annotation
    if isinstance(annotation, type):
        import numpy as np

        if issubclass(annotation, np.generic):
            from numba.np.numpy_support import from_dtype

            return from_dtype(np.dtype(annotation))
        if issubclass(annotation, ctypes._SimpleCData):
            from numba.core.typing.ctypes_utils import from_ctypes

            try:
                return from_ctypes(annotation)
            except TypeError:
                raise _Unreadable(f"the ctypes type {annotation.__name__} has no numba type") from None
        if "NDArray" in annotation.__name__ or hasattr(annotation, "__cuda_array_interface__"):
            raise _Unreadable(
                f"{annotation.__name__} names no element type nor dimensions; annotate it with a numba "
                "array type such as cuda.float32[::1] or cuda.float64[:, :]"
            )
    raise _Unreadable(
        f"the annotation {annotation!r} is not a numba type (cuda.float32[::1], cuda.int32), "
        "a NumPy scalar type nor a ctypes type"
    )


def _none_or_type(annotation: object) -> Any:
    from numba.core import types

    return types.none if annotation is None else numba_type(annotation)
