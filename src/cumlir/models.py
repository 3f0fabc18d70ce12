"""Data models: how a value of each Numba type is represented in MLIR.

A model gives the MLIR type of a value in registers (``get_value_type``), its
type in memory (``get_data_type``: array elements, kernel parameters) and the
conversions between the two. Types without a runtime value (functions, modules,
classes, ``None``) have ``has_value = False`` and are never materialised.
Models are looked up by the Numba type's class, most derived first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import types

from . import numba_models, typerecords
from . import types as cumlir_types

# what makes the model of a numba type: a model class, or a function choosing one
ModelFactory = Callable[["DataModelManager", Any], "DataModel"]
_M = TypeVar("_M", bound=ModelFactory)


class DataModel:
    has_value = True

    def __init__(self, dmm: DataModelManager, fe_type: types.Type | None) -> None:
        self._dmm = dmm
        self.fe_type: Any = fe_type  # its class's attributes are read: a model knows its family

    def get_value_type(self) -> ir.Type:
        raise NotImplementedError

    def get_data_type(self) -> ir.Type:
        return self.get_value_type()

    # A value is normally one MLIR value; composite models hold several (see CompositeModel).
    # Block arguments carry the flattened form.
    def flat_types(self) -> list[ir.Type]:
        return [self.get_value_type()]

    def flatten(self, value: Any) -> list[ir.Value]:
        return [value]

    def unflatten(self, values: Sequence[ir.Value]) -> Any:
        return values[0]

    def as_data(self, value: ir.Value) -> ir.Value:
        """Value -> its in-memory form (an MLIR value of get_data_type())."""
        return value

    def from_data(self, value: ir.Value) -> ir.Value:
        """In-memory form -> value."""
        return value

    def memref_element(self) -> tuple[ir.Type, int]:
        """(MLIR element type, unit of static strides) of an array of this type."""
        return self.get_data_type(), 1


class PrimitiveModel(DataModel):
    """A type represented by one MLIR value, the same in registers and memory: *mlir_type*,
    or what it gives when called. Models outlive MLIR contexts (each thread has its own,
    replaced now and then), so a type made in another context is made again, from its text,
    in the current one."""

    def __init__(
        self, dmm: DataModelManager, fe_type: types.Type | None, mlir_type: ir.Type | Callable[[], ir.Type]
    ) -> None:
        super().__init__(dmm, fe_type)
        self._mlir_type = mlir_type

    def get_value_type(self) -> ir.Type:
        made = self._mlir_type
        if callable(made):
            return made()
        current = ir.Context.current
        if made.context != current:
            made = self._mlir_type = ir.Type.parse(str(made), current)
        return made


class PointerModel(PrimitiveModel):
    """A raw pointer (``CPointer(T)``, ``voidptr``, an array's ``ctypes``): an ``!llvm.ptr`` in
    the generic address space, as a C ``T*`` parameter (operations/python/pointers.py)."""

    def __init__(self, dmm: DataModelManager, fe_type: types.Type) -> None:
        super().__init__(dmm, fe_type, llvm.PointerType.get)


class OpaqueModel(DataModel):
    """Compile-time-only values: functions, modules, classes, None, register groups."""

    has_value = False

    def get_value_type(self) -> ir.Type:
        raise TypeError(f"{self.fe_type} has no runtime representation")


class BoundFunctionModel(DataModel):
    """A method bound to its receiver (``z.conjugate``): held as the receiver's value."""

    def __init__(self, dmm: DataModelManager, fe_type: types.BoundFunction) -> None:
        super().__init__(dmm, fe_type)
        self._receiver = dmm.lookup(fe_type.this)
        self.has_value = self._receiver.has_value

    def get_value_type(self) -> ir.Type:
        return self._receiver.get_value_type()


class BooleanModel(DataModel):
    """i1 in registers, one byte (0 or 1) in memory, as NumPy stores bools."""

    def get_value_type(self) -> ir.Type:
        return ir.IntegerType.get_signless(1)

    def get_data_type(self) -> ir.Type:
        return ir.IntegerType.get_signless(8)

    def as_data(self, value: ir.Value) -> ir.Value:
        return arith.extui(self.get_data_type(), value)

    def from_data(self, value: ir.Value) -> ir.Value:
        zero = arith.constant(value.type, 0)
        return arith.cmpi(arith.CmpIPredicate.ne, value, zero)


class IntegerModel(DataModel):
    def get_value_type(self) -> ir.Type:
        return ir.IntegerType.get_signless(self.fe_type.bitwidth)


_FLOATS = {16: ir.F16Type, 32: ir.F32Type, 64: ir.F64Type}


class FloatModel(DataModel):
    def get_value_type(self) -> ir.Type:
        return _FLOATS[self.fe_type.bitwidth].get()


class DatetimeModel(DataModel):
    """datetime64 and timedelta64: an int64 count of their unit, NaT the smallest int64, as NumPy
    stores them (so arrays of them are arrays of int64)."""

    def get_value_type(self) -> ir.Type:
        return ir.IntegerType.get_signless(64)


class CompositeModel(DataModel):
    """A value made of parts held side by side as a Python tuple, never as one MLIR value.

    Used for iterators built from other iterators (enumerate, zip) and for
    iteration state next to the iterated value: parts may be mutable memrefs,
    which an LLVM struct cannot hold.
    """

    def part_models(self) -> list[DataModel]:
        raise NotImplementedError

    def get_value_type(self) -> ir.Type:
        raise TypeError(f"{self.fe_type} is held as several values, not one MLIR value")

    def flat_types(self) -> list[ir.Type]:
        return [t for part in self.part_models() for t in part.flat_types()]

    def flatten(self, value: Any) -> list[ir.Value]:
        return [v for part, member in zip(self.part_models(), value) for v in part.flatten(member)]

    def unflatten(self, values: Sequence[ir.Value]) -> Any:
        parts, start = [], 0
        for part in self.part_models():
            n = len(part.flat_types())
            parts.append(part.unflatten(values[start : start + n]))
            start += n
        return tuple(parts)


def _counter(dmm: DataModelManager) -> PrimitiveModel:
    """A one-element mutable i64 counter: the position of an iterator."""
    return PrimitiveModel(dmm, None, lambda: ir.MemRefType.get([1], ir.IntegerType.get_signless(64)))


class EnumerateModel(CompositeModel):
    """(count, source iterator)."""

    def part_models(self) -> list[DataModel]:
        return [_counter(self._dmm), self._dmm.lookup(self.fe_type.source_type)]


class ZipModel(CompositeModel):
    """(source iterators...)."""

    def part_models(self) -> list[DataModel]:
        return [self._dmm.lookup(t) for t in self.fe_type.source_types]


class SequenceIteratorModel(CompositeModel):
    """(position, the tuple or array iterated)."""

    def part_models(self) -> list[DataModel]:
        container = getattr(self.fe_type, "container", None) or self.fe_type.array_type
        return [_counter(self._dmm), self._dmm.lookup(container)]


class ComplexModel(DataModel):
    """MLIR's complex<f32> / complex<f64>, in registers and in memory."""

    def get_value_type(self) -> ir.Type:
        return ir.ComplexType.get(_FLOATS[self.fe_type.bitwidth // 2].get())


class StructModel(DataModel):
    """Aggregates held in registers as an LLVM literal struct of the members' values.

    An aggregate with a member that an LLVM struct cannot hold (an array's memref, a
    composite value) is held apart instead: a Python tuple of its members' values,
    flattened into block and function arguments like a CompositeModel.

    Extensions name the members: ``StructModel(dmm, fe_type, [("x", types.float32), ...])``.
    """

    _held_apart: bool  # found on first use (held_apart)

    def __init__(
        self, dmm: DataModelManager, fe_type: types.Type, members: Iterable[tuple[str, types.Type]] | None = None
    ) -> None:
        super().__init__(dmm, fe_type)
        self._named_members = list(members) if members is not None else None

    def member_types(self) -> list[types.Type]:
        if self._named_members is None:
            raise NotImplementedError
        return [ty for _, ty in self._named_members]

    def get_field_position(self, name: str) -> int:
        """The index of the member called *name* (models built with named members)."""
        names = [n for n, _ in self._named_members or ()]
        if name not in names:
            raise AttributeError(f"{self.fe_type} has no field {name!r}")
        return names.index(name)

    def get_member_type(self, name: str) -> types.Type:
        return self.member_types()[self.get_field_position(name)]

    @property
    def held_apart(self) -> bool:
        try:
            return self._held_apart
        except AttributeError:
            self._held_apart = any(_needs_parts(self._dmm.lookup(t)) for t in self.member_types())
            return self._held_apart

    def _members(self) -> list[DataModel]:
        return [self._dmm.lookup(t) for t in self.member_types()]

    def get_value_type(self) -> ir.Type:
        if self.held_apart:
            raise TypeError(f"{self.fe_type} is held as several values, not one MLIR value")
        members = []
        for model in self._members():
            if not model.has_value:  # None in (None, 1), say: an empty placeholder keeps positions
                members.append(llvm.StructType.get_literal([]))
                continue
            members.append(model.get_value_type())
        return llvm.StructType.get_literal(members)

    def flat_types(self) -> list[ir.Type]:
        if not self.held_apart:
            return [self.get_value_type()]
        return [t for m in self._members() if m.has_value for t in m.flat_types()]

    def flatten(self, value: Any) -> list[ir.Value]:
        if not self.held_apart:
            return [value]
        return [v for m, member in zip(self._members(), value) if m.has_value for v in m.flatten(member)]

    def unflatten(self, values: Sequence[ir.Value]) -> Any:
        if not self.held_apart:
            return values[0]
        parts: list[Any]
        parts, start = [], 0
        for model in self._members():
            if not model.has_value:
                parts.append(None)
                continue
            n = len(model.flat_types())
            parts.append(model.unflatten(values[start : start + n]))
            start += n
        return tuple(parts)


AggregateTypeModel = StructModel


def _needs_parts(model: DataModel) -> bool:
    """Whether a value of *model* cannot be a member of an LLVM struct: a memref, or a
    complex number (the complex dialect's type, which the LLVM dialect does not take)."""
    if isinstance(model, CompositeModel):
        return True
    if isinstance(model, StructModel):
        return model.held_apart
    return model.has_value and isinstance(model.get_value_type(), (ir.MemRefType, ir.ComplexType))


class TupleModel(StructModel):
    def member_types(self) -> list[types.Type]:
        return list(self.fe_type.types)


class PairModel(StructModel):
    """The (value, is-valid) pair an iterator's next() yields."""

    def member_types(self) -> list[types.Type]:
        return [self.fe_type.first_type, self.fe_type.second_type]


class OptionalModel(StructModel):
    """A value that may be None (``Optional(T)``): the value and whether there is one, as numba
    holds it. Beside a None the value is empty: zeros, arrays owning nothing."""

    def member_types(self) -> list[types.Type]:
        return [self.fe_type.type, types.boolean]


class SliceModel(StructModel):
    """slice(start, stop, step) as three int64 (see lowering/slices.py)."""

    def member_types(self) -> list[types.Type]:
        return [types.int64] * 3


class RangeModel(StructModel):
    """range(start, stop, step)."""

    def member_types(self) -> list[types.Type]:
        return [self.fe_type.dtype] * 3


class ArrayModel(DataModel):
    """A strided memref. C and F layouts make the innermost (outermost) stride a static 1.

    Arrays of records are memrefs of i8 whose offset and strides count bytes (a memref
    cannot hold LLVM aggregates): their sizes are element counts, and the innermost
    (outermost) static stride is the item size.
    """

    def get_value_type(self) -> ir.Type:
        ty = self.fe_type
        element, unit = self._dmm.lookup(ty.dtype).memref_element()
        dyn = ir.ShapedType.get_dynamic_stride_or_offset()
        strides = [dyn] * ty.ndim
        if ty.ndim and ty.layout == "C":
            strides[-1] = unit
        elif ty.ndim and ty.layout == "F":
            strides[0] = unit
        layout = ir.StridedLayoutAttr.get(dyn, strides)
        shape = [ir.ShapedType.get_dynamic_size()] * ty.ndim
        return ir.MemRefType.get(shape, element, layout)


class RecordModel(DataModel):
    """A record is held by reference: a pointer to its bytes, wherever they live (an array
    element, a staged kernel argument). Writes through it land in that memory, as in Numba."""

    def get_value_type(self) -> ir.Type:
        return llvm.PointerType.get()

    def memref_element(self) -> tuple[ir.Type, int]:
        return ir.IntegerType.get_signless(8), self.fe_type.size


class StringModel(StructModel):
    """A string in device code (operations/python/strings.py): its UTF-8 bytes, their count and
    the count of code points."""

    def __init__(self, dmm: DataModelManager, fe_type: types.Type) -> None:
        super().__init__(dmm, fe_type, [("data", types.voidptr), ("nbytes", types.int64), ("length", types.int64)])


class RangeIteratorModel(DataModel):
    """Iteration state of a range: memref<3xT> holding (next value, iterations left, step)."""

    def get_value_type(self) -> ir.Type:
        element = self._dmm.lookup(self.fe_type.yield_type).get_value_type()
        return ir.MemRefType.get([3], element)


class DataModelManager:
    def __init__(self) -> None:
        self._models: dict[type, ModelFactory] = {}
        self._cache: dict[types.Type, DataModel] = {}

    def register(self, type_class: type, model_class: ModelFactory) -> None:
        self._models[type_class] = model_class
        self._cache.clear()

    def lookup(self, fe_type: types.Type) -> DataModel:
        try:
            return self._cache[fe_type]
        except KeyError:
            pass
        model = self._made(fe_type)
        if not isinstance(fe_type, types.Literal):  # one per literal value: kept, they grow without end
            self._cache[fe_type] = model
        return model

    def _made(self, fe_type: types.Type) -> DataModel:
        """The model registered for *fe_type*'s class here, else numba's model of an extension's
        class (numba_models.py), else the one registered for the nearest base class here."""
        cls = type(fe_type)
        if cls not in self._models:
            foreign = numba_models.described(fe_type)
            if foreign is not None:
                return _from_numba(self, fe_type, foreign)
        for base in cls.__mro__:
            model_class = self._models.get(base)
            if model_class is not None:
                return model_class(self, fe_type)
        raise TypeError(
            f"cumlir has no data model for the type {fe_type}: register one with cumlir.models.register_model "
            "(or numba's register_model)"
        )

    def value_type(self, fe_type: types.Type) -> ir.Type:
        return self.lookup(fe_type).get_value_type()


default_manager = DataModelManager()


class ForeignScalarModel(PrimitiveModel):
    """A type numba's PrimitiveModel holds as an integer or float (numba_models.py): that MLIR
    type, parsed from its text."""

    def __init__(self, dmm: DataModelManager, fe_type: types.Type, text: str) -> None:
        super().__init__(dmm, fe_type, lambda: ir.Type.parse(text))
        self.text = text


def _from_numba(dmm: DataModelManager, fe_type: types.Type, foreign: numba_models.Described) -> DataModel:
    if foreign.kind == "pointer":
        return PointerModel(dmm, fe_type)
    if foreign.kind == "struct":
        return StructModel(dmm, fe_type, foreign.members)
    return ForeignScalarModel(dmm, fe_type, foreign.mlir_type)


# the numba types of the MLIR scalar types a kernel parameter of an extension type may be
_SCALARS = {"i1": "boolean", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}
_SCALARS.update({"f16": "float16", "f32": "float32", "f64": "float64"})


def parameter_shape(model: DataModel) -> str | types.Type | None:
    """How a kernel takes an argument of an extension's type held by *model*: "pointer" (one
    address), "members" (a struct: its members' parameters in order), a numba number type
    (one scalar of it), or None where it cannot (lowering/kernel_abi.py, runtime/)."""
    if isinstance(model, PointerModel):
        return "pointer"
    if isinstance(model, StructModel) and model._named_members is not None and not isinstance(model, StringModel):
        return "members"
    if isinstance(model, PrimitiveModel):
        made = model._mlir_type
        text = model.text if isinstance(model, ForeignScalarModel) else None if callable(made) else str(made)
        if text == "!llvm.ptr":
            return "pointer"
        name = _SCALARS.get(text or "")
        return getattr(types, name) if name else None
    return None


def register_model(type_class: type) -> Callable[[_M], _M]:
    """Decorator: ``@register_model(MyType) class MyModel(DataModel): ...``."""

    def decorate(model_class: _M) -> _M:
        default_manager.register(type_class, model_class)
        return model_class

    return decorate


def _value_model(dmm: DataModelManager, fe_type: types.EnumMember) -> DataModel:
    """An enum member is held as its value."""
    return dmm.lookup(fe_type.dtype)


class FamilyModel(DataModel):
    """A family of typerecords/ held as one MLIR value: its record's value type, its data
    type in memory where the record gives one, and the conversions between them. Models
    outlive MLIR contexts (each thread has its own), so the types are parsed from the
    record's text in each context they are asked for in. Arrays of a family whose record
    says ``element_bytes`` are memrefs of bytes with byte strides (C structs)."""

    def __init__(self, dmm: DataModelManager, fe_type: types.Type) -> None:
        super().__init__(dmm, fe_type)
        record = typerecords.record_of(fe_type)
        value = record.value_type  # type: ignore[union-attr]  # a registered family has its record
        self._texts = (value(fe_type) if callable(value) else value, record.data_type)  # type: ignore[union-attr]
        self._as_data, self._from_data = record.as_data, record.from_data  # type: ignore[union-attr]
        self._element_bytes = record.element_bytes  # type: ignore[union-attr]
        self._parsed: tuple[Any, Any, Any] = (None, None, None)  # (context, value type, data type)

    def _types(self) -> tuple[ir.Type, ir.Type]:
        context, value, data = self._parsed
        current = ir.Context.current
        if context is not current:
            value = ir.Type.parse(self._texts[0])
            data = ir.Type.parse(self._texts[1]) if self._texts[1] else value
            self._parsed = (current, value, data)
        return value, data

    def get_value_type(self) -> ir.Type:
        return self._types()[0]

    def get_data_type(self) -> ir.Type:
        return self._types()[1]

    def as_data(self, value: ir.Value) -> ir.Value:
        return self._as_data(value) if self._as_data else value

    def from_data(self, value: ir.Value) -> ir.Value:
        return self._from_data(value) if self._from_data else value

    def memref_element(self) -> tuple[ir.Type, int]:
        if self._element_bytes:  # arrays count bytes (fixed-width strings)
            return ir.IntegerType.get_signless(8), self._element_bytes(self.fe_type)
        return super().memref_element()


class FamilyStructModel(StructModel):
    """A family of typerecords/ held as a struct of its record's members (CUDA's vector types:
    their lanes). Arrays of it are memrefs of bytes with byte strides, as arrays of records,
    so that every access can state the type's own alignment (operations/cuda/vectors.py)."""

    def __init__(self, dmm: DataModelManager, fe_type: types.Type) -> None:
        super().__init__(dmm, fe_type, typerecords.record_of(fe_type).members(fe_type))  # type: ignore[union-attr,misc]

    def memref_element(self) -> tuple[ir.Type, int]:
        return ir.IntegerType.get_signless(8), self.fe_type.size


def _family_model(dmm: DataModelManager, fe_type: types.Type) -> DataModel:
    """The model a type record describes."""
    if typerecords.record_of(fe_type).members:  # type: ignore[union-attr]  # registered for its family
        return FamilyStructModel(dmm, fe_type)
    return FamilyModel(dmm, fe_type)


for _record in typerecords.records():
    for _cls in _record.classes:
        default_manager.register(_cls, _family_model)

for _cls, _model in (
    (types.Boolean, BooleanModel),
    (types.Integer, IntegerModel),
    (types.Float, FloatModel),
    (types.Complex, ComplexModel),
    (types.NPDatetime, DatetimeModel),
    (types.NPTimedelta, DatetimeModel),
    (types.BaseTuple, TupleModel),
    (types.Pair, PairModel),
    (types.Optional, OptionalModel),
    (types.RangeType, RangeModel),
    (types.SliceType, SliceModel),
    (types.EllipsisType, OpaqueModel),
    (types.RangeIteratorType, RangeIteratorModel),
    (types.EnumerateType, EnumerateModel),
    (types.ZipType, ZipModel),
    (types.UniTupleIter, SequenceIteratorModel),
    (types.ArrayIterator, SequenceIteratorModel),
    (types.Array, ArrayModel),
    (types.Record, RecordModel),
    (types.Bytes, ArrayModel),  # a bytes constant: an array of its bytes (operations/numpy/charseqs.py)
    (types.CPointer, PointerModel),
    (types.RawPointer, PointerModel),
    (types.ArrayCTypes, PointerModel),  # a.ctypes: the address of the array's data (numpy/array_ctypes.py)
    (cumlir_types.TensorMap, PointerModel),
    (types.NoneType, OpaqueModel),
    (types.Omitted, OpaqueModel),
    (types.Function, OpaqueModel),
    (types.BoundFunction, BoundFunctionModel),
    (types.Dispatcher, OpaqueModel),
    (types.RecursiveCall, OpaqueModel),
    (types.Module, OpaqueModel),
    (types.NumberClass, OpaqueModel),
    (types.DTypeSpec, OpaqueModel),
    (types.Dummy, OpaqueModel),
    (types.ExceptionClass, OpaqueModel),
    (types.ExceptionInstance, OpaqueModel),
    (types.StringLiteral, OpaqueModel),
    (types.UnicodeType, StringModel),
    (types.EnumMember, _value_model),
):
    default_manager.register(_cls, _model)
