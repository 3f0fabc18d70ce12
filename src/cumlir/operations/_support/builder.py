"""What a lowering rule is given: the builder protocol.

Every rule of an operation module receives the builder lowering one function as its first
argument, ``lower``. This protocol is all a rule may use of it; ``MLIRLower``
(``lowering/function.py`` with ``lowering/builder_api.py``) implements it, and the type
checker holds the two together (``lowering/function.py`` states that it does).
MLIR values and types and numba types are named in annotations only, so importing this
module loads neither.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from typing import TypeAlias

    from mlir import ir
    from numba.core import types
    from numba.core.typing.templates import Signature

    from ...linkable import LinkItem
    from ...options import Options

    # a numba value while it is lowered: an MLIR value; None (lowering.function.NO_VALUE) for a type
    # with no runtime representation, a tuple of MLIR values for an aggregate held apart (models.py)
    Value: TypeAlias = ir.Value
    MLIRType: TypeAlias = ir.Type
    NumbaType: TypeAlias = types.Type
else:
    Value = MLIRType = NumbaType = Signature = Any


class ModuleBuilder(Protocol):
    """The module being built, as rules see it (``lower.module``)."""

    cooperative: bool

    def add_link_items(self, items: Sequence[LinkItem]) -> None: ...

    def constant_array(self, data: Any, memref_type: MLIRType) -> str: ...  # its symbol

    def string_constant(self, text: str) -> str: ...  # its symbol

    def declare_function(self, name: str, arg_types: Sequence[MLIRType], result_types: Sequence[MLIRType]) -> str: ...


class Lower(Protocol):
    """The builder of one function, as a rule ``rule(lower, sig, args)`` sees it."""

    dmm: Any  # models.DataModelManager: the data model of each numba type
    typing_context: Any
    loc: Any  # numba's source location of the statement being lowered
    symbol: str

    @property
    def module(self) -> ModuleBuilder: ...  # read-only: a rule changes the module, never which one it is

    @property
    def options(self) -> Options: ...

    def get_mlir_type(self, numba_type: NumbaType) -> MLIRType: ...

    def cast(self, value: Value, fromty: NumbaType, toty: NumbaType) -> Value: ...

    def constant(self, ty: NumbaType, pyval: Any) -> Value: ...

    def call(self, key: Any, sig: Signature, args: Sequence[Value]) -> Value | None: ...

    def call_function(
        self, fn: Callable[..., Any], argtypes: Sequence[NumbaType], args: Sequence[Value]
    ) -> tuple[Value, NumbaType]: ...

    def call_python(self, pyfunc: Callable[..., Any], sig: Signature, args: Sequence[Value]) -> Value: ...

    def call_external(self, name: str, result_type: MLIRType | None, args: Sequence[Value]) -> Value | None: ...

    def make_struct(self, ty: NumbaType, values: Sequence[Value]) -> Value: ...

    def empty_value(self, ty: NumbaType) -> Value: ...  # zeros, and arrays owning nothing

    def extract(self, struct: Value, ty: NumbaType, index: int) -> Value: ...

    def alloca_insertion_point(self) -> contextlib.AbstractContextManager[None]: ...

    def alloca(self, ty: MLIRType, count: int = 1) -> Value: ...

    def element_pointer(self, array_type: NumbaType, array: Value, index_type: NumbaType, index: Value) -> Value: ...

    def memref_from_params(self, array_type: NumbaType, params: Sequence[Value]) -> Value: ...

    def record_raise(self, exception_class: type[BaseException], args: Sequence[Any]) -> None: ...

    def require_nrt(self, what: str) -> None: ...
    def require_wide_addresses(self, what: str) -> None: ...

    def runs_once_per_array(self) -> bool: ...

    def nrt_allocate(self, nbytes: Value, align: Value) -> Value: ...

    def meminfo_array(
        self, array_type: NumbaType, meminfo: Value, sizes: Sequence[Value], strides: Sequence[Value] | None = None
    ) -> Value: ...

    def unowned(self, memref_value: Value) -> Value: ...

    def mark_fresh(self, value: Value) -> Value: ...

    def require_cooperative_launch(self) -> None: ...

    def mlir_convert(self, value: Value, target_mlir_type: MLIRType) -> Value: ...

    @property
    def mlir_gpu_module(self) -> Any: ...  # the gpu.module op

    @property
    def target_context(self) -> Any: ...  # the ``context`` argument of extensions' callbacks (extending.py)


# the shapes of the rules the records of _api.py hold
CallRule = Callable[[Lower, Signature, Sequence[Value]], "Value | None"]
AttributeRule = Callable[[Lower, NumbaType, Value, str], Value]
# a setattr rule of a value assigned by value (a C struct) returns the receiver's new value
SetAttributeRule = Callable[[Lower, Signature, Sequence[Value], str], "Value | None"]
CastRule = Callable[[Lower, NumbaType, NumbaType, Value], Value]
ConstantRule = Callable[[Lower, NumbaType, Any], Value]
InstanceRule = Callable[[Lower, Any, Signature, Sequence[Value]], "Value | None"]
RegisterRule = Callable[[Lower], Value]
NamespaceAttributeRule = Callable[[Lower, str], Value]
