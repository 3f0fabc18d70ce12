"""DLPack: the C structures (with ctypes), exporting device arrays as capsules and
importing any CUDA tensor that has ``__dlpack__``.

Both capsule kinds are spoken: the legacy ``dltensor`` (a DLManagedTensor) and the
versioned ``dltensor_versioned`` (a DLManagedTensorVersioned, DLPack 1.x). A
producer hands the consumer a capsule; the consumer renames it ``used_...`` and
calls the tensor's deleter when it no longer needs the memory. A capsule that is
never consumed calls the deleter itself when it is destroyed.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .layout import contiguous_strides, element_strides

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

VERSION = (1, 1)  # the newest DLPack this module writes and reads

# DLDeviceType
CPU = 1
CUDA = 2
CUDA_HOST = 3
CUDA_MANAGED = 13
_DEVICE_NAMES = {
    1: "CPU",
    2: "CUDA",
    3: "CUDA host",
    4: "OpenCL",
    7: "Vulkan",
    8: "Metal",
    10: "ROCm",
    13: "CUDA managed",
}
_CUDA_READABLE = (CUDA, CUDA_MANAGED)

READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY
IS_COPIED = 2  # DLPACK_FLAG_BITMASK_IS_COPIED

LEGACY_NAME = b"dltensor"
VERSIONED_NAME = b"dltensor_versioned"
_USED = {LEGACY_NAME: b"used_dltensor", VERSIONED_NAME: b"used_dltensor_versioned"}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


_LEGACY_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _LEGACY_DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


_VERSIONED_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _VERSIONED_DELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]


# ---- data types ----------------------------------------------------------------------------

# DLDataTypeCode: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLComplex 5, kDLBool 6
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KINDS = {code: kind for kind, code in _CODES.items()}
_CODE_NAMES = {3: "opaque handle", 4: "bfloat", 7: "float8", 8: "float6", 9: "float4"}


def dl_dtype(dtype: DTypeLike) -> DLDataType:
    """The DLDataType of a NumPy dtype; BufferError for those DLPack cannot describe."""
    dtype = np.dtype(dtype)
    code = _CODES.get(dtype.kind)
    if code is None or dtype.byteorder == ">":
        raise BufferError(f"arrays of dtype {dtype} cannot be exported through DLPack")
    return DLDataType(code, dtype.itemsize * 8, 1)


def numpy_dtype(dl: DLDataType) -> np.dtype:
    """The NumPy dtype of a DLDataType; TypeError for those NumPy has no equivalent of."""
    kind = _KINDS.get(dl.code)
    if dl.lanes != 1:
        raise TypeError(f"DLPack vector types ({dl.lanes} lanes) are not supported")
    if kind is None:
        name = _CODE_NAMES.get(dl.code, f"code {dl.code}")
        raise TypeError(f"DLPack tensors of {name} elements ({dl.bits} bits) are not supported")
    try:
        dtype: np.dtype | None = np.dtype(f"{kind}{dl.bits // 8}") if kind != "b" else np.dtype(np.bool_)
    except TypeError:
        dtype = None
    if dtype is None or dl.bits % 8 or dtype.itemsize * 8 != dl.bits:
        raise TypeError(f"DLPack tensors of {dl.bits}-bit {_DEVICE_KIND_WORD[kind]} elements are not supported")
    return dtype


_DEVICE_KIND_WORD = {"i": "signed integer", "u": "unsigned integer", "f": "float", "c": "complex", "b": "bool"}


def device_name(device_type: int) -> str:
    return _DEVICE_NAMES.get(device_type, f"device type {device_type}")


# ---- capsules ------------------------------------------------------------------------------

_api = ctypes.pythonapi
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
# the capsule is passed as a raw address: in a destructor its reference count is already zero
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.c_void_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# names handed to PyCapsule_SetName must outlive the capsule: keep them here
_NAME_BUFFERS = {name: ctypes.create_string_buffer(name) for name in (*_USED, *_USED.values())}

# what an exported tensor keeps alive, by the address of its managed struct; the deleter drops it
_exported: dict[int, tuple[object, ...]] = {}


def _release(address: int) -> None:
    _exported.pop(address, None)


@_LEGACY_DELETER
def _legacy_deleter(managed: ctypes._Pointer[DLManagedTensor]) -> None:
    _release(ctypes.addressof(managed.contents))


@_VERSIONED_DELETER
def _versioned_deleter(managed: ctypes._Pointer[DLManagedTensorVersioned]) -> None:
    _release(ctypes.addressof(managed.contents))


def _capsule_destructor_for(name: bytes) -> Any:
    @_CAPSULE_DESTRUCTOR
    def destructor(capsule: int | None) -> None:
        # a consumer renames the capsule; still carrying the original name means nobody took it
        if _api.PyCapsule_IsValid(capsule, name):
            address = _api.PyCapsule_GetPointer(capsule, name)
            if address:
                _release(address)

    return destructor


_DESTRUCTORS = {name: _capsule_destructor_for(name) for name in (LEGACY_NAME, VERSIONED_NAME)}


def export(
    owner: object,
    pointer: int,
    shape: Sequence[int],
    strides: Sequence[int],
    dtype: DTypeLike,
    device_id: int,
    versioned: bool,
    readonly: bool = False,
    copied: bool = False,
) -> object:
    """A DLPack capsule describing device memory at *pointer* (byte *strides*); *owner*
    stays alive until the consumer calls the deleter."""
    itemsize = np.dtype(dtype).itemsize
    elements = element_strides(strides, itemsize)
    if elements is None:
        raise BufferError(f"byte strides {tuple(strides)} are not a multiple of the item size {itemsize}")
    ndim = len(shape)
    shape_c = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_c = (ctypes.c_int64 * max(ndim, 1))(*elements)
    if versioned:
        managed: DLManagedTensorVersioned | DLManagedTensor = DLManagedTensorVersioned()
        managed.version = DLPackVersion(*VERSION)
        managed.deleter = _versioned_deleter
        managed.flags = (READ_ONLY if readonly else 0) | (IS_COPIED if copied else 0)
        name = VERSIONED_NAME
    else:
        managed = DLManagedTensor()
        managed.deleter = _legacy_deleter
        name = LEGACY_NAME
    tensor = managed.dl_tensor
    tensor.data = pointer or None
    tensor.device = DLDevice(CUDA, device_id)
    tensor.ndim = ndim
    tensor.dtype = dl_dtype(dtype)
    tensor.shape = ctypes.cast(shape_c, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides_c, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    address = ctypes.addressof(managed)
    _exported[address] = (managed, shape_c, strides_c, owner)
    return _api.PyCapsule_New(address, _NAME_BUFFERS[name], _DESTRUCTORS[name])


def version_for(max_version: tuple[int, int] | None) -> bool:
    """Whether to write a versioned capsule, given the consumer's ``max_version``."""
    if max_version is None:
        return False
    if not (isinstance(max_version, (tuple, list)) and len(max_version) == 2):
        raise TypeError(f"max_version must be a (major, minor) tuple, got {max_version!r}")
    return int(max_version[0]) >= 1


class ImportedTensor:
    """A consumed capsule: the tensor's description, and the memory kept alive until this
    object dies (then the producer's deleter runs)."""

    dtype: np.dtype  # None only while the constructor reads it

    def __init__(self, capsule: object) -> None:
        if type(capsule).__name__ != "PyCapsule":
            raise TypeError(f"__dlpack__ returned a {type(capsule).__name__}, not a DLPack capsule")
        address = id(capsule)
        name = _api.PyCapsule_GetName(address)
        if name not in _USED:
            raise BufferError(f"a DLPack capsule named {name!r} cannot be consumed (already used?)")
        raw = _api.PyCapsule_GetPointer(address, name)
        if name == VERSIONED_NAME:
            managed: DLManagedTensorVersioned | DLManagedTensor = DLManagedTensorVersioned.from_address(raw)
            if managed.version.major != VERSION[0]:
                raise BufferError(
                    f"DLPack {managed.version.major}.{managed.version.minor} tensors are not supported "
                    f"(this reader speaks {VERSION[0]}.x)"
                )
            self.readonly = bool(managed.flags & READ_ONLY)
        else:
            managed = DLManagedTensor.from_address(raw)
            self.readonly = False
        self._managed = managed
        self._capsule = capsule
        tensor = managed.dl_tensor
        self.device = (tensor.device.device_type, tensor.device.device_id)
        ndim = tensor.ndim
        self.shape = tuple(tensor.shape[i] for i in range(ndim))
        self.dtype = None  # type: ignore[assignment]
        try:
            self.dtype = numpy_dtype(tensor.dtype)
        finally:
            # the capsule is ours from here on: mark it used so it is not freed twice
            _api.PyCapsule_SetName(address, _NAME_BUFFERS[_USED[name]])
            self._consumed = True
        itemsize = self.dtype.itemsize
        if tensor.strides:
            self.strides = tuple(tensor.strides[i] * itemsize for i in range(ndim))
        else:  # NULL strides: compact row-major
            self.strides = contiguous_strides(self.shape, itemsize, "C")
        self.pointer = (tensor.data or 0) + tensor.byte_offset

    def __del__(self) -> None:
        if getattr(self, "_consumed", False):
            managed = self._managed
            self._consumed = False
            if managed.deleter:
                managed.deleter(ctypes.pointer(managed))


def import_capsule(obj: Any, stream: int) -> ImportedTensor:
    """Take *obj*'s tensor through ``__dlpack__``: its device must be CUDA memory the
    current GPU can read. *stream* is the consumer's stream (DLPack numbering)."""
    device_of = getattr(obj, "__dlpack_device__", None)
    exporter = getattr(obj, "__dlpack__", None)
    if device_of is None or exporter is None:
        raise TypeError(f"a {type(obj).__name__} does not support DLPack (no __dlpack__ / __dlpack_device__)")
    device_type, _ = device_of()
    if int(device_type) not in _CUDA_READABLE:
        raise BufferError(
            f"a {type(obj).__name__} on a {device_name(int(device_type))} device cannot be used as a CUDA device array"
        )
    try:
        capsule = exporter(stream=stream, max_version=VERSION)
    except TypeError:  # producers older than DLPack 1.0 take no max_version
        capsule = exporter(stream=stream)
    return ImportedTensor(capsule)
