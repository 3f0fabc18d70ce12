"""Types an extension declared with numba's own API: the data model it registered with
numba's ``register_model`` (``numba.extending``, or numba-cuda's ``numba.cuda.extending``),
and the type numba's ``typeof_impl`` gives its Python values, read so that cumlir can hold
and pass such values without a declaration of its own.

numba's models describe values in llvmlite's types; cumlir's models.py makes its own from
what is described here: a ``PointerModel`` or ``OpaqueModel`` is a pointer (an opaque handle
is passed as one, as numba passes it), a ``StructModel`` its named members, a
``PrimitiveModel`` of an integer, float or pointer type that type. Types of numba's and
cumlir's own classes are left to cumlir's models. numba's modules are imported when a type
first needs them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from .lazy import lazy

numba_models = lazy("numba.core.datamodel.models")  # llvmlite's types, for extension types only
numba_registry = lazy("numba.core.datamodel.registry")
numba_typeof = lazy("numba.core.typing.typeof")

_OWN = ("numba.", "numba_cuda.", "cumlir.")


@dataclass(frozen=True)
class Described:
    """What numba's model of an extension type holds: ``kind`` is "pointer", "struct" (with
    ``members``: (name, numba type) pairs) or "scalar" (with ``mlir_type``, MLIR type text)."""

    kind: str
    members: tuple[tuple[str, Any], ...] = ()
    mlir_type: str = ""


class Untranslatable(TypeError):
    """numba holds a model for the type that cumlir cannot hold the same way."""


def owned(cls: type) -> bool:
    """Whether *cls* is numba's or cumlir's own (their models and typing are cumlir's)."""
    return cls.__module__ == "numba" or cls.__module__.startswith(_OWN)


def _managers() -> list[Any]:
    found = [numba_registry.default_manager]
    cuda_models = sys.modules.get("numba.cuda.models")  # numba-cuda's, where the program imported it
    if cuda_models is not None and hasattr(cuda_models, "cuda_data_manager"):
        found.append(cuda_models.cuda_data_manager)
    return found


def described(fe_type: Any) -> Described | None:
    """numba's model of *fe_type*, an extension's type, as cumlir can hold it; None where numba
    holds none for its class (or the class is numba's or cumlir's). Raises Untranslatable,
    saying why, for a model cumlir cannot hold."""
    cls = type(fe_type)
    if owned(cls):
        return None
    for manager in _managers():
        handler = manager._handlers.get(cls)
        if handler is not None:
            return _describe(manager, handler, fe_type)
    return None


def _describe(manager: Any, handler: Any, fe_type: Any) -> Described:
    # a pointer's model reads its pointee's: a handle of any kind is one address
    if isinstance(handler, type) and issubclass(handler, (numba_models.PointerModel, numba_models.OpaqueModel)):
        return Described("pointer")
    name = getattr(handler, "__qualname__", repr(handler))
    try:
        model = handler(manager, fe_type)
    except Exception as e:
        raise Untranslatable(f"numba's data model {name} of {fe_type} could not be made: {e}") from None
    if isinstance(model, numba_models.StructModel):
        return Described("struct", tuple(zip(model._fields, model._members)))
    if isinstance(model, (numba_models.PointerModel, numba_models.OpaqueModel)):
        return Described("pointer")
    if isinstance(model, numba_models.PrimitiveModel):
        text = _mlir_text(model.get_value_type())
        if text == "!llvm.ptr":
            return Described("pointer")
        if text:
            return Described("scalar", mlir_type=text)
    raise Untranslatable(
        f"numba's data model {name} of {fe_type} is not one cumlir holds (a PointerModel, OpaqueModel, "
        "StructModel, or PrimitiveModel of an integer, float or pointer type); register a model with "
        "cumlir.models.register_model"
    )


def _mlir_text(llvm_type: Any) -> str:
    """The MLIR type of an llvmlite integer, float or pointer type; "" for any other."""
    ir = sys.modules["llvmlite.ir"]  # loaded by numba's models, which made *llvm_type*
    if isinstance(llvm_type, ir.IntType):
        return f"i{llvm_type.width}"
    if isinstance(llvm_type, ir.PointerType):
        return "!llvm.ptr"
    floats = {ir.HalfType: "f16", ir.FloatType: "f32", ir.DoubleType: "f64"}
    return floats.get(type(llvm_type), "")


def argument_type(value: Any) -> Any | None:
    """The numba type of a launch argument whose class an extension typed with numba's
    ``typeof_impl`` (or that names its type by ``_numba_type_``); None for other values."""
    registries: list[Any] = [numba_typeof]
    cuda_typeof = sys.modules.get("numba.cuda.typing.typeof")  # numba-cuda's own registry
    if cuda_typeof is not None:
        registries.append(cuda_typeof)
    for module in registries:
        typer = module.typeof_impl.dispatch(type(value))
        if not owned_function(typer):
            return module.typeof(value, module.Purpose.argument)
    named = getattr(value, "_numba_type_", None)
    return named if named is not None and not owned(type(value)) else None


def owned_function(function: Any) -> bool:
    module = getattr(function, "__module__", None) or ""
    return module == "numba" or module.startswith(_OWN)
