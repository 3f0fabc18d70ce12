"""Signatures given by users: parsing, and which compiled signature accepts which arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba.core import sigutils, types
from numba.core.typeconv import Conversion
from numba.core.typing.templates import Signature

from ..numba_models import owned
from ..typerecords.vectors import VectorType, matches_record
from ..types import TensorMap
from .context import typing_context
from .signature_text import read_signature

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    # a signature as users give it: "void(float32[:], int64)", a numba Signature, a type or a sequence of types
    SignatureLike: TypeAlias = "str | Signature | types.Type | Sequence[types.Type]"


def parse_signature(sig: SignatureLike) -> tuple[tuple[types.Type, ...], types.Type | None]:
    """(argument types, return type or None) from "void(float32[:], int64)", a Signature or types
    (a C struct's class standing for its type: ``(Point, float32[:])``)."""
    if isinstance(sig, (list, tuple)):
        declared = [_declared_type(t) for t in sig]
        if all(isinstance(t, types.Type) for t in declared):
            return tuple(declared), None  # type: ignore[arg-type]  # types, checked
    if isinstance(sig, types.Type):
        return (sig,), None
    if not isinstance(sig, (str, Signature)):
        raise TypeError(f"a signature is a string, a numba Signature or a tuple of types, not {sig!r}")
    try:
        # numba's grammar with the vector types, parsed, never evaluated
        parsed = read_signature(sig) if isinstance(sig, str) else sig
        argtypes, return_type = sigutils.normalize_signature(parsed)
    except (NameError, SyntaxError, TypeError, AttributeError) as e:
        raise TypeError(f"cannot read the signature {sig!r}: {e}") from None
    return tuple(argtypes), return_type


def _declared_type(given: object) -> object:
    """*given*, or the type of the values an object made to make them declares (what
    ``cuda.experimental.struct`` returns: its ``_numba_type_`` is the class whose dtype it is)."""
    if isinstance(given, types.Type):
        return given
    declared = getattr(given, "_numba_type_", None)
    return declared.dtype if isinstance(declared, types.DTypeSpec) else given


def _accepts_one(declared: types.Type, actual: types.Type) -> bool:
    if declared == actual:
        return True
    if isinstance(declared, types.Array):
        return (
            isinstance(actual, types.Array)
            and (declared.dtype == actual.dtype or _vector_from_host(declared.dtype, actual.dtype))
            and declared.ndim == actual.ndim
            and (declared.layout == "A" or declared.layout == actual.layout)
            and (actual.mutable or not declared.mutable)
        )
    if _vector_from_host(declared, actual):
        return True
    if isinstance(declared, (types.Number, types.Boolean)) and isinstance(actual, (types.Number, types.Boolean)):
        return typing_context().can_convert(actual, declared) is not None
    # kinds checked after the common ones, which keep their cost
    if isinstance(declared, types.BaseTuple):
        return (
            isinstance(actual, types.BaseTuple)
            and len(declared) == len(actual)
            and all(map(_accepts_one, declared.types, actual.types))  # type: ignore[attr-defined]  # numba's stubs
        )
    if isinstance(declared, (types.CPointer, types.RawPointer)):
        # a device address (an int, typed int64), a pointer, or a device array of the pointee type
        if isinstance(actual, types.Array):
            return isinstance(declared, types.RawPointer) or actual.dtype == declared.dtype
        return isinstance(actual, (types.Integer, types.RawPointer)) or (
            isinstance(actual, types.CPointer) and isinstance(declared, types.RawPointer)
        )
    if isinstance(declared, TensorMap):  # a rank unknown on either side is not checked
        return isinstance(actual, TensorMap) and None in (declared.rank, actual.rank)
    return not owned(type(declared)) and _accepts_extension(declared, actual)


def _accepts_extension(declared: types.Type, actual: types.Type) -> bool:
    """A type an extension declared takes what its data model is passed as: an address for a
    pointer, a tuple of its members for a struct, a number for a scalar."""
    from .. import models  # MLIR's bindings, which models name: loaded only for extension types

    try:
        shape = models.parameter_shape(models.default_manager.lookup(declared))
    except TypeError:
        return False
    if shape == "pointer":
        return isinstance(actual, (types.Integer, types.RawPointer, types.CPointer, types.Array))
    if shape == "members":
        members = models.default_manager.lookup(declared).member_types()  # type: ignore[attr-defined]  # a struct
        return (
            isinstance(actual, types.BaseTuple)
            and len(actual) == len(members)
            and all(map(_accepts_one, members, actual.types))  # type: ignore[attr-defined]  # numba's stubs
        )
    return shape is not None and _accepts_one(shape, actual)  # type: ignore[arg-type]  # a number type


def _vector_from_host(declared: types.Type, actual: types.Type) -> bool:
    # NumPy has no vector dtypes: a structured array laying out the vector's lanes stands in
    return isinstance(declared, VectorType) and matches_record(declared, actual)


def first_refused(declared_args: Sequence[types.Type], actual_args: Sequence[types.Type]) -> int | None:
    """The position of the first argument *declared_args* does not accept, or None."""
    return next((k for k, (d, a) in enumerate(zip(declared_args, actual_args)) if not _accepts_one(d, a)), None)


def conversions(declared_args: Sequence[types.Type], actual_args: Sequence[types.Type]) -> tuple[int, int, int]:
    """How far *actual_args* are from *declared_args*, which accepts them: how many arguments
    convert unsafely, safely (or to another array layout), and by promotion. Of the compiled
    signatures accepting a launch, the nearest is launched, as numba's dispatcher chooses."""
    unsafe = safe = promote = 0
    for declared, actual in zip(declared_args, actual_args):
        if declared == actual:
            continue
        kind = None
        if isinstance(declared, (types.Number, types.Boolean)) and isinstance(actual, (types.Number, types.Boolean)):
            kind = typing_context().can_convert(actual, declared)
        if kind == Conversion.unsafe:
            unsafe += 1
        elif kind == Conversion.promote:
            promote += 1
        else:
            safe += 1
    return unsafe, safe, promote


def accepts(declared_args: Sequence[types.Type], actual_args: Sequence[types.Type]) -> bool:
    """Whether a kernel compiled for *declared_args* can be launched with *actual_args*."""
    return len(declared_args) == len(actual_args) and all(map(_accepts_one, declared_args, actual_args))
