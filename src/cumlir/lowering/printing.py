"""``print()`` in kernels, through CUDA's device-side ``vprintf(format, arguments)``.

Formats are Numba-CUDA's: integers as %lld or %llu, floats as %f (bfloat16, tf32 and the
narrow floats too), complex numbers as ``(%f%+fj)`` (cumlir's: Numba-CUDA refuses them),
booleans as True/False, string constants verbatim, tuples in parentheses, ``cuda.threadIdx``
and the other thread-indexing registers as the tuple ``(x, y, z)``; items separated
by spaces and the line ended with a newline. Only string constants are written into the
format: a numeric constant is printed through its format like any value, so ``print(1.5)``
prints ``1.500000`` as in Numba-CUDA.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from mlir import ir
from mlir.dialects import arith, llvm
from mlir.dialects import complex as mlir_complex
from numba.core import errors, types

from .. import typerecords
from ..operations._support.strings import printable
from ..typing.operations import StubNamespace
from .registry import registry

if TYPE_CHECKING:
    from numba.core import ir as nir
    from numba.core.typing.templates import Signature

    from ..operations._support.builder import Lower, NumbaType, Value
    from .expressions import StarMember

    class _Printer(Lower, Protocol):
        """What printing uses of the MLIRLower it is given (function.py, which imports this
        module: named by this protocol, not imported)."""

        calltypes: dict[nir.Inst, Signature]

        def load_var(self, var: str | nir.Var) -> Value: ...

        def spread(self, vararg: nir.Var | None, loc: nir.Loc) -> list[StarMember]: ...

        def operand(self, item: nir.Var | StarMember) -> tuple[Value, NumbaType]: ...

        def has_value(self, numba_type: NumbaType) -> bool: ...


def _format_item(
    lower: _Printer, ty: types.Type, value: Value | None, constant: str | None
) -> tuple[str, list[ir.Value]]:
    """(format text, [MLIR values]) for one printed item."""
    if constant is not None or isinstance(ty, types.StringLiteral):
        text = str(constant if constant is not None else ty.literal_value)  # type: ignore[attr-defined]  # a StringLiteral
        return text.replace("%", "%%"), []
    if isinstance(ty, types.Boolean):
        truth = lower.cast(value, ty, types.boolean)
        return "%s", [llvm.select(truth, _string(lower, "True"), _string(lower, "False"))]
    if isinstance(ty, types.Integer):
        wide = types.int64 if ty.signed else types.uint64  # type: ignore[attr-defined]  # numba's stubs
        return ("%lld" if ty.signed else "%llu"), [lower.cast(value, ty, wide)]  # type: ignore[attr-defined]
    record = typerecords.record_of(ty)
    if isinstance(ty, types.Float) or (record is not None and record.prints_as == "float"):
        return "%f", [lower.cast(value, ty, types.float64)]
    if isinstance(ty, types.Complex):  # as Python writes it: (1.500000-2.000000j)
        part = ty.underlying_float
        real, imag = (lower.cast(p, part, types.float64) for p in (mlir_complex.re(value), mlir_complex.im(value)))
        return "(%f%+fj)", [real, imag]
    if isinstance(ty, types.BaseTuple):
        return _as_tuple([_format_item(lower, t, lower.extract(value, ty, i), None) for i, t in enumerate(ty.types)])  # type: ignore[attr-defined]
    if isinstance(ty, types.NoneType):
        return "None", []
    if isinstance(ty, StubNamespace) and ty.stub.printed_attributes:  # cuda.threadIdx: its x, y and z
        return _format_attributes(lower, ty, ty.stub.printed_attributes)
    if isinstance(ty, types.UnicodeType):
        return "%s", [printable(lower, value)]
    if isinstance(ty, types.Array):
        raise errors.UnsupportedError(
            f"print() of an array ({ty}) is not supported in kernels, as in Numba-CUDA: print its shape "
            "(print(a.shape)) or its elements (print(a[i]))",
            lower.loc,
        )
    raise errors.UnsupportedError(f"print() of a value of type {ty} is not supported", lower.loc)


def _format_attributes(lower: _Printer, ty: StubNamespace, attrs: Sequence[str]) -> tuple[str, list[ir.Value]]:
    """A namespace's attributes printed as a tuple, each read by its rule."""
    parts = []
    for attr in attrs:
        attrty = lower.typing_context.resolve_getattr(ty, attr)
        rule = registry.find_getattr(ty, attr)
        assert attrty is not None and rule is not None, f"{ty}.{attr} is printed but not declared"
        parts.append(_format_item(lower, attrty, rule(lower, ty, None, attr), None))
    return _as_tuple(parts)


def _as_tuple(parts: Sequence[tuple[str, list[ir.Value]]]) -> tuple[str, list[ir.Value]]:
    """Printed items shown as Python shows a tuple of them."""
    texts = [p[0] for p in parts]
    body = texts[0] + "," if len(texts) == 1 else ", ".join(texts)
    return f"({body})", [v for p in parts for v in p[1]]


def _string(lower: _Printer, text: str) -> ir.Value:
    """A pointer to a NUL-terminated constant string in the module."""
    symbol = lower.module.string_constant(text)
    return llvm.AddressOfOp(llvm.PointerType.get(), symbol).result


def lower_print(lower: _Printer, stmt: nir.Print) -> None:
    sig = lower.calltypes[stmt]
    formats: list[str]
    values: list[ir.Value]
    formats, values = [], []
    # print(a, *t): the members of t follow the named items, as typing counted them
    items = [*stmt.args, *lower.spread(stmt.vararg, stmt.loc)]
    for index, (item, ty) in enumerate(zip(items, sig.args)):
        constant = stmt.consts.get(index)
        if not isinstance(constant, str):
            constant = None  # numbers print through their %-format, as values do
        value = lower.operand(item)[0] if constant is None and lower.has_value(ty) else None
        text, item_values = _format_item(lower, ty, value, constant)
        formats.append(text)
        values += item_values
    if len(values) > 32:
        raise errors.UnsupportedError("print() takes at most 32 values on the GPU", stmt.loc)
    _vprintf(lower, " ".join(formats) + "\n", values)


def _vprintf(lower: _Printer, text: str, values: Sequence[ir.Value]) -> None:
    """vprintf takes the format and a pointer to the arguments laid out as a C struct
    (each promoted to 8 bytes: long long, double or a pointer)."""
    i32 = ir.IntegerType.get_signless(32)
    buffer = llvm.ZeroOp(llvm.PointerType.get()).result
    if values:
        record = llvm.StructType.get_literal([v.type for v in values])
        with lower.alloca_insertion_point():
            one = arith.constant(i32, 1)
            buffer = llvm.AllocaOp(llvm.PointerType.get(), one, record, alignment=8).result
        for index, value in enumerate(values):
            field = llvm.getelementptr(llvm.PointerType.get(), buffer, [], [0, index], record, 0)
            llvm.store(value, field)
    lower.call_external("vprintf", i32, [_string(lower, text), buffer])
