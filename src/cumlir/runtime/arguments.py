"""Kernel arguments at launch: their Numba types, and packing them into parameters.

Types come from the Python values: ints are int64, floats float64, complex numbers
complex128, NumPy scalars keep their dtype (a structured scalar is a Record), tuples
and namedtuples are typed member by member, ``ctypes.c_void_p`` is a ``voidptr``, a
value naming its type (``_numba_type_``) of a family with a packer that type (a C struct);
NumPy arrays and objects exposing ``__cuda_array_interface__``
(CuPy, PyTorch, ...) become ``Array(dtype, ndim, layout)``. NumPy arrays live on
the host: they are copied to the device before the launch and back after it, as
Numba-CUDA does. Device arrays are used in place: cumlir's own are recognised by
their type, mapped host arrays pass their device address, and objects that only
speak DLPack (cuda.core buffers) are imported for the launch.

Parameters follow the kernel ABI of lowering/kernel_abi.py: a scalar is one
parameter, a complex number two; an N-d array is (data pointer, offset, sizes,
strides), offset and strides counted in elements; a raw pointer (``CPointer``,
``voidptr``: a kernel compiled for one takes a device address as an int) and a
record one pointer; a tuple its members' parameters. Each parameter occupies an
8-byte slot of one buffer.
"""

from __future__ import annotations

import ctypes
import enum
import struct
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import numba_models, typerecords
from ..lazy import lazy

# a parameter's slot in the buffer, and numba's numbers, as the families' packers share them
from ..typerecords._packing import SCALAR_FORMATS as _SCALAR_FORMATS
from ..typerecords._packing import SLOT, complex_value
from ..typerecords._packing import ScalarParameter as _ScalarParameter
from . import extension_arguments, placement, tensor_maps
from .arg_hints import ArgHint
from .array_types import array_type as _array_type
from .array_types import ml_dtypes_float as _ml_dtypes_float
from .devicearray import DeviceNDArray, import_dlpack
from .devicerecord import DeviceRecord
from .driver import CudaDriverError
from .hostmemory import mapped_pointer
from .layout import cai_dtype, contiguous_strides, element_strides, record_bytes
from .plain_types import PlainArray, PlainNumber, PlainType

if TYPE_CHECKING:
    from typing import Protocol

    from numba.core import types
    from numba.core.typing import typeof as numba_typeof
    from numba.np import numpy_support

    from ..typerecords.vectors import VectorType
    from ..types import TensorMap

    class Staging(Protocol):
        """What a parameter packs for: a launch's HostArrayStaging, or the fast path's stand-in."""

        stream: int  # the launch's CUstream handle

        def stage_host_array(
            self, array: np.ndarray, copy_in: bool = ..., copy_out: bool = ...
        ) -> tuple[int, tuple[int, ...], tuple[int, ...], int]: ...

        def wait_for_producer(self, stream: int | None) -> None: ...

    class Parameter(Protocol):
        """How a kernel parameter of one type is packed: its slots, written from a value."""

        slots: int

        def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None: ...

else:  # numba: a launch of a kernel found in the disk cache by its plain types never loads it
    types = lazy("numba.core.types")
    numpy_support = lazy("numba.np.numpy_support")
    numba_typeof = lazy("numba.core.typing.typeof")


# ---- argument types ----------------------------------------------------------------------


# (dtype, ndim, C and F contiguity, writeable) -> the Numba type of such NumPy arrays
_HOST_TYPES: dict[tuple[np.dtype, int, bool, bool, bool], types.Array] = {}


def _host_array_type(value: np.ndarray, index: int | str) -> types.Array:
    """The type of a NumPy array, by what fixes it: NumPy's contiguity flags follow the
    rules array_layout follows, so they stand for the shape and strides."""
    flags = value.flags
    key = (value.dtype, value.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable)
    ty = _HOST_TYPES.get(key)
    if ty is None:
        ty = _array_type(value.dtype, value.shape, value.strides, not flags.writeable, index)
        if len(_HOST_TYPES) < 4096:
            _HOST_TYPES[key] = ty
    return ty


def _scalar_type(value: Any, index: int | str) -> types.Type:
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return types.boolean
    if isinstance(value, int):
        return _enum_member_type(value, index) if isinstance(value, enum.Enum) else types.int64
    if isinstance(value, float):
        return types.float64
    if isinstance(value, np.generic):
        try:
            return numpy_support.from_dtype(value.dtype)
        except Exception:
            number = _ml_dtypes_float(value.dtype)
            if number is not None:
                return number
    # kinds checked only after the common ones, which keep their cost
    if isinstance(value, complex):
        return types.complex128
    if isinstance(value, tuple):
        members = [argument_type(v, f"{index}[{k}]") for k, v in enumerate(value)]
        return types.BaseTuple.from_types(members, type(value))
    if isinstance(value, ctypes.c_void_p):
        return types.voidptr
    if isinstance(value, enum.Enum):
        return _enum_member_type(value, index)
    if isinstance(value, tensor_maps.TiledTensorMap) or tensor_maps.is_driver_tensor_map(value):
        from .. import types as cumlir_types  # loads numba: for a tensor map only

        return cumlir_types.TensorMap(getattr(value, "rank", None))
    declared = getattr(value, "_numba_type_", None)  # a value of a family that packs it (a C struct)
    if declared is not None and getattr(typerecords.record_of(declared), "packer", None) is not None:
        return declared
    raise TypeError(f"argument {index}: values of type {type(value).__name__} cannot be passed to a kernel")


def _enum_member_type(value: enum.Enum, index: int | str) -> types.EnumMember:
    """numba's type of an enum member (IntEnumMember or EnumMember of its class), as Numba-CUDA
    types such an argument; the kernel receives its value, which must be a number or a bool."""
    try:
        ty = numba_typeof.typeof(value)
    except ValueError as e:  # numba's "heterogeneous enum"
        raise TypeError(f"argument {index}: the enum member {value!r} cannot be passed to a kernel: {e}") from None
    if not isinstance(ty.dtype, (types.Integer, types.Float, types.Boolean)):
        raise TypeError(
            f"argument {index}: the enum member {value!r} cannot be passed to a kernel: its class's values are "
            f"{ty.dtype}, not numbers; pass a number, or read the member inside the kernel"
        )
    return ty


def cuda_array_interface(value: Any) -> dict[str, Any] | None:
    """The ``__cuda_array_interface__`` dict of *value*, or None. A PyTorch tensor whose
    conjugation is pending (``t.conj()``) is refused: its interface names the memory of
    the unconjugated values."""
    try:
        interface = value.__cuda_array_interface__
    except AttributeError:
        return None
    is_conj = getattr(value, "is_conj", None)
    if is_conj is not None and is_conj():
        raise TypeError(
            "a tensor whose conjugation is pending (t.conj()) cannot be passed to a kernel: its memory holds "
            "the values before conjugation; pass t.resolve_conj()"
        )
    return interface


def argument_type(value: Any, index: int | str) -> types.Type:
    """The Numba type a launch argument is compiled for."""
    if isinstance(value, DeviceNDArray):
        ty = value._argument_type
        if ty is None:
            ty = value._argument_type = _array_type(value.dtype, value.shape, value.strides, value._readonly, index)
        return ty
    if isinstance(value, np.ndarray):
        return _host_array_type(value, index)
    if isinstance(value, ArgHint):  # after the common kinds, which keep their cost
        return argument_type(value.value, index)
    declared = numba_models.argument_type(value)  # a class an extension typed (numba's typeof_impl) first
    if declared is not None:
        return declared
    if isinstance(value, DeviceRecord):  # a record in device memory: the record itself
        return value._numba_type_
    cai = cuda_array_interface(value)
    if cai is not None:
        dtype = cai_dtype(cai)
        return _array_type(dtype, tuple(cai["shape"]), cai.get("strides"), bool(cai["data"][1]), index)
    if hasattr(value, "__dlpack__"):
        return argument_type(import_dlpack(value, -1), index)  # -1: typing needs no stream ordering
    return _scalar_type(value, index)


def _device_memory(
    value: Any, index: int | str, launch: Staging
) -> tuple[int, tuple[int, ...], tuple[int, ...] | None, int]:
    """(pointer, shape, byte strides, itemsize) of an array argument, staging host arrays."""
    if isinstance(value, DeviceNDArray):
        _check_device(value, index, getattr(launch, "ordinal", None))
        return value.device_pointer, value.shape, value.strides, value.dtype.itemsize
    if isinstance(value, np.ndarray):
        pointer = mapped_pointer(value)
        if pointer is None:
            return launch.stage_host_array(value)
        return pointer, value.shape, value.strides, value.itemsize
    if isinstance(value, ArgHint):  # after the common kinds, which keep their cost
        if isinstance(value.value, np.ndarray) and mapped_pointer(value.value) is None:
            return launch.stage_host_array(value.value, value.copy_in, value.copy_out)
        return _device_memory(value.value, index, launch)
    cai = cuda_array_interface(value)
    if cai is not None:
        _check_device(value, index, getattr(launch, "ordinal", None))
        launch.wait_for_producer(cai.get("stream"))
        return cai["data"][0] or 0, tuple(cai["shape"]), cai.get("strides"), cai_dtype(cai).itemsize
    if hasattr(value, "__dlpack__"):
        imported = import_dlpack(value, launch.stream or 1)  # DLPack calls the legacy default stream 1
        return imported.device_pointer, imported.shape, imported.strides, imported.dtype.itemsize
    raise TypeError(f"argument {index}: expected an array, got {type(value).__name__}")


def _check_device(value: Any, index: int | str, ordinal: int | None) -> None:
    """Refuse an array of another device than the launch's (the kernel would fault on its
    address): asked only where the process sees several devices."""
    if ordinal is None or not placement.several_devices():
        return
    found = placement.array_device(value)
    if found is not None and found != ordinal:
        raise ValueError(
            f"argument {index}: the {type(value).__name__} is on CUDA device {found}, but the kernel is launched "
            f"on device {ordinal} (the current device, which CUMLIR_STRICT_DEVICE=1 keeps launches on); "
            f"launch inside `with cuda.gpus[{found}]:` or copy the array to device {ordinal}"
        )


# ---- packing ------------------------------------------------------------------------------
# the families of typerecords/ bring their own packers (record.packer); numba's types are packed here


class _EnumParameter:
    """An enum member (numba's EnumMember or IntEnumMember): its value, as its value type."""

    def __init__(self, ty: types.EnumMember, index: int | str) -> None:
        self.index = index
        self.type = ty
        self._value = _ScalarParameter(ty.dtype, index)
        self.slots = self._value.slots

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        if not isinstance(value, self.type.instance_class):
            raise TypeError(
                f"argument {self.index}: expected a member of {self.type.instance_class.__name__}, got {value!r}"
            )
        self._value.pack(value.value, buffer, offset, launch)  # type: ignore[attr-defined]  # a member of its enum


class _ArrayParameter:
    def __init__(self, ty: types.Array[Any] | PlainArray, index: int | str) -> None:
        self.index = index
        self.type = ty
        self.ndim = ty.ndim
        self.slots = 2 + 2 * ty.ndim
        self._format = "Qq" + "q" * (2 * ty.ndim)
        numbers = isinstance(ty, PlainArray)  # of NumPy numbers: nothing to ask numba
        # arrays of records, fixed-width strings and vectors count offset and strides in bytes (docs/abi.md)
        self._byte_strides = not numbers and (_is_record(ty.dtype) or _counts_bytes(ty.dtype))
        # the kernel loads vectors with their alignment: every element must have it
        self._alignment = ty.dtype.alignment if not numbers and _is_vector(ty.dtype) else 1

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        pointer, shape, strides, itemsize = _device_memory(value, self.index, launch)
        if len(shape) != self.ndim:
            raise TypeError(f"argument {self.index}: expected a {self.ndim}-d array, got {len(shape)}-d")
        if strides is None:
            strides = contiguous_strides(shape, itemsize, "C")
        unit = 1 if self._byte_strides else itemsize
        elements = element_strides(strides, unit)
        if elements is None:
            s = next(s for s in strides if s % unit)
            raise ValueError(
                f"argument {self.index}: a byte stride of {s} is not a multiple of the item size {itemsize}"
            )
        if self._alignment > 1:
            _check_alignment(self.index, self.type.dtype, pointer, strides)  # type: ignore[arg-type]  # a vector type
        values = (pointer, 0, *shape, *elements)
        for k, v in enumerate(values):
            struct.pack_into(self._format[k], buffer, offset + SLOT * k, v)


class _ComplexParameter:
    """Two parameters: the real and the imaginary part, in the complex type's float type."""

    slots = 2

    def __init__(self, ty: types.Complex | PlainNumber, index: int | str) -> None:
        self.index = index
        self.type = ty
        self._format = "ff" if ty.bitwidth == 64 else "dd"

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        value = complex_value(value, self.index, self.type)
        parts = (value.real, value.imag)
        struct.pack_into(self._format[0], buffer, offset, parts[0])
        struct.pack_into(self._format[1], buffer, offset + SLOT, parts[1])


class _PointerParameter:
    """A raw pointer (``CPointer(T)``, ``voidptr``): a device address given as an int (what
    Numba-CUDA takes), a ``ctypes.c_void_p``, or a device array whose data it points to."""

    slots = 1

    def __init__(self, ty: types.CPointer | types.RawPointer, index: int | str) -> None:
        self.index = index
        self.type = ty
        self._dtype = getattr(ty, "dtype", None)  # None for voidptr

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        try:
            struct.pack_into("Q", buffer, offset, self._address(value, launch))
        except struct.error:
            raise OverflowError(f"argument {self.index}: {value!r} is not a 64-bit address") from None

    def _address(self, value: Any, launch: Staging) -> int:
        if isinstance(value, ctypes.c_void_p):
            return value.value or 0
        if isinstance(value, bool):
            raise TypeError(f"argument {self.index}: a {self.type} takes a device address, not a bool")
        if isinstance(value, (int, np.integer)):
            return int(value)
        if isinstance(value, np.ndarray) and mapped_pointer(value) is None:
            raise TypeError(
                f"argument {self.index}: a {self.type} takes a device address; a NumPy array lives on the host "
                "(copy it to the device with cuda.to_device, or pass a mapped array)"
            )
        if isinstance(value, (DeviceNDArray, np.ndarray)) or cuda_array_interface(value) is not None:
            self._check_dtype(argument_type(value, self.index))  # type: ignore[arg-type]  # an array's: an Array
            return _device_memory(value, self.index, launch)[0]
        if hasattr(value, "__index__"):
            return value.__index__()
        raise TypeError(
            f"argument {self.index}: a {self.type} takes a device address (an int) or a device array, "
            f"got {type(value).__name__}"
        )

    def _check_dtype(self, array_type: types.Array) -> None:
        if self._dtype is not None and array_type.dtype != self._dtype:
            raise TypeError(f"argument {self.index}: a {self.type} cannot point to an array of {array_type.dtype}")


class _TupleParameter:
    """A tuple or namedtuple: its members' parameters, in order."""

    def __init__(self, ty: types.BaseTuple, index: int | str) -> None:
        self.index = index
        self.type = ty
        self.members = [_parameter(t, f"{index}[{k}]") for k, t in enumerate(ty.types)]  # type: ignore[attr-defined]  # every tuple type has them
        self.slots = sum(m.slots for m in self.members)

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        if not isinstance(value, tuple) or len(value) != len(self.members):
            raise TypeError(
                f"argument {self.index}: expected a tuple of {len(self.members)} values ({self.type}), got {value!r}"
            )
        for member, item in zip(self.members, value):
            member.pack(item, buffer, offset, launch)
            offset += SLOT * member.slots


def _is_record(ty: object) -> bool:
    return isinstance(ty, types.Record)


def _counts_bytes(ty: object) -> bool:
    """Whether arrays of *ty*, a family of typerecords/, count bytes: a struct's (vectors) or
    one whose record says so (fixed-width strings)."""
    record = typerecords.record_of(ty)
    return record is not None and (record.members is not None or record.element_bytes is not None)


def _is_vector(ty: object) -> bool:
    """Whether *ty* is held as a struct of members (CUDA's vector types): arrays of it count
    bytes, and every element must have the type's alignment."""
    record = typerecords.record_of(ty)
    return record is not None and record.members is not None


def _check_alignment(index: int | str, vty: VectorType, pointer: int, strides: Sequence[int]) -> None:
    if pointer % vty.alignment or any(s % vty.alignment for s in strides):
        raise ValueError(
            f"argument {index}: an array of {vty} must be aligned to {vty.alignment} bytes "
            f"(address {pointer:#x}, byte strides {tuple(strides)})"
        )


class _RecordParameter:
    """A NumPy record (np.void): passed by reference to a device copy, copied back after the
    launch so that the kernel's writes reach the host record, as Numba-CUDA does; a
    DeviceRecord by its own address."""

    slots = 1

    def __init__(self, ty: types.Record, index: int | str) -> None:
        self.index = index
        self.type = ty

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        if not isinstance(value, (np.void, DeviceRecord)) or value.dtype != self.type.dtype:
            raise TypeError(f"argument {self.index}: expected a record of dtype {self.type.dtype}, got {value!r}")
        if isinstance(value, DeviceRecord):  # used in place, as a device array is
            struct.pack_into("Q", buffer, offset, value.device_pointer)
            return
        pointer = launch.stage_host_array(record_bytes(value))[0]
        struct.pack_into("Q", buffer, offset, pointer)


class _DatetimeParameter:
    """A datetime64 or timedelta64: its count in the type's unit, as one int64."""

    def __init__(self, ty: types.NPDatetime | types.NPTimedelta, index: int | str) -> None:
        self.index = index
        self.type = ty
        self.slots = 1
        kind = "M" if ty.type_name == "datetime64" else "m"
        self._dtype = np.dtype(f"{kind}8[{ty.unit}]" if ty.unit else f"{kind}8")

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        if not isinstance(value, (np.datetime64, np.timedelta64)) or value.dtype.kind != self._dtype.kind:
            raise TypeError(f"argument {self.index}: expected a {self.type}, got {value!r}")
        try:
            count = np.array(value).astype(self._dtype, casting="same_kind").view(np.int64)
        except TypeError:
            raise TypeError(f"argument {self.index}: {value!r} cannot be expressed in {self.type}") from None
        struct.pack_into("q", buffer, offset, int(count))


class _TensorMapParameter:
    """A TMA tensor map: its 128 bytes by value, one parameter of 16 slots (docs/abi.md)."""

    slots = tensor_maps.DESCRIPTOR_BYTES // SLOT
    one_parameter = True

    def __init__(self, ty: TensorMap, index: int | str) -> None:
        self.index = index
        self.type = ty

    def pack(self, value: Any, buffer: ctypes.Array[ctypes.c_uint8], offset: int, launch: Staging) -> None:
        data = tensor_maps.descriptor_bytes(value)
        if data is None:
            raise TypeError(
                f"argument {self.index}: expected a tensor map (cuda.tensor_map.tiled, or a "
                f"cuda.bindings.driver.CUtensorMap), got {type(value).__name__}"
            )
        rank = self.type.rank
        if rank is not None and getattr(value, "rank", rank) != rank:
            raise TypeError(f"argument {self.index}: the kernel was compiled for a tensor map of rank {rank}")
        buffer[offset : offset + len(data)] = data  # type: ignore[call-overload]  # ctypes takes bytes, mypy a list


def parameter_offsets(parameters: Iterable[Parameter]) -> list[int]:
    """The byte offset of each kernel parameter in the buffer: one a slot, except a
    parameter that spans several slots (a tensor map)."""
    offsets = []
    base = 0
    for parameter in parameters:
        members = getattr(parameter, "members", None)
        if members is not None:
            offsets += [base + o for o in parameter_offsets(members)]
        elif getattr(parameter, "one_parameter", False):
            offsets.append(base)
        else:
            offsets += [base + SLOT * k for k in range(parameter.slots)]
        base += SLOT * parameter.slots
    return offsets


def _parameter(ty: types.Type | PlainType, index: int | str) -> Parameter:
    if isinstance(ty, PlainArray):
        return _ArrayParameter(ty, index)
    if isinstance(ty, PlainNumber):
        return _ComplexParameter(ty, index) if ty.name.startswith("complex") else _ScalarParameter(ty, index)
    if isinstance(ty, types.Array):
        return _ArrayParameter(ty, index)
    if isinstance(ty, types.Record):
        return _RecordParameter(ty, index)
    if str(ty) in _SCALAR_FORMATS:
        return _ScalarParameter(ty, index)
    record = typerecords.record_of(ty)
    if record is not None and record.packer is not None:
        return record.packer(ty, index)
    if isinstance(ty, types.Complex):
        return _ComplexParameter(ty, index)
    if isinstance(ty, types.EnumMember):
        return _EnumParameter(ty, index)
    if isinstance(ty, (types.NPDatetime, types.NPTimedelta)):
        return _DatetimeParameter(ty, index)
    if isinstance(ty, (types.CPointer, types.RawPointer)):
        return _PointerParameter(ty, index)
    if isinstance(ty, types.BaseTuple):
        return _TupleParameter(ty, index)
    from ..types import TensorMap  # loads numba: reached past every plain type

    if isinstance(ty, TensorMap):
        return _TensorMapParameter(ty, index)
    return extension_arguments.parameter(ty, index, _parameter, _AddressParameter)  # type: ignore[arg-type]  # a numba type


class _AddressParameter(_PointerParameter):
    """A pointer or opaque handle of a type an extension declared: an address, as a raw
    pointer takes it (its pointee is the extension's to check)."""

    def __init__(self, ty: types.Type, index: int | str) -> None:
        self.index = index
        self.type = ty  # type: ignore[assignment]  # an extension's type, where raw pointers have theirs
        self._dtype = None

    def _address(self, value: Any, launch: Staging) -> int:
        try:
            return super()._address(value, launch)
        except TypeError:
            raise TypeError(
                f"argument {self.index}: a {self.type} takes a device address (an int, a ctypes.c_void_p, an "
                f"object with __index__) or a device array, got {type(value).__name__}; an argument handler "
                "(cuda.jit(extensions=[...])) may give the address of other objects"
            ) from None


class ArgumentPacker:
    """Packs the arguments of one compiled kernel into a parameter buffer and pointer array."""

    def __init__(self, argtypes: Iterable[types.Type | PlainType]) -> None:
        self.parameters = [_parameter(ty, i) for i, ty in enumerate(argtypes)]
        self.slots = sum(p.slots for p in self.parameters)
        self.offsets = parameter_offsets(self.parameters)

    def passes_as(self, index: int, given: types.Type) -> bool:
        """Whether an argument handler may give argument *index* as a value of type *given*
        other than the compiled one: an address (numba-cuda's examples pass a pointer as a
        uint64) for a pointer parameter, which takes ints."""
        if not isinstance(self.parameters[index], _PointerParameter):
            return False
        return isinstance(given, (types.CPointer, types.RawPointer)) or (
            isinstance(given, types.Integer) and given.bitwidth == 64  # type: ignore[attr-defined]  # numba's stubs
        )

    def pack(
        self, args: Sequence[Any], launch: Staging
    ) -> tuple[ctypes.Array[ctypes.c_void_p], ctypes.Array[ctypes.c_uint8]]:
        """A (pointer array, buffer) pair; keep both alive until cuLaunchKernel returns."""
        buffer = (ctypes.c_uint8 * max(SLOT * self.slots, SLOT))()
        base = ctypes.addressof(buffer)
        pointers = (ctypes.c_void_p * max(len(self.offsets), 1))(*[base + o for o in self.offsets])
        offset = 0
        for index, (parameter, value) in enumerate(zip(self.parameters, args)):
            try:
                parameter.pack(value, buffer, offset, launch)
            except CudaDriverError as e:  # staging a host array: which one
                e.doing(f"argument {index}")
                raise
            offset += SLOT * parameter.slots
        return pointers, buffer
