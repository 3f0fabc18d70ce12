"""Objects that look like CuPy arrays and PyTorch tensors to cumlir's launch (their module
names and the attributes it reads), over NumPy arrays standing for device memory, with
the CUDA Array Interface each library exports. For CPU tests of argument reading."""

import ctypes
import sys
from types import ModuleType, SimpleNamespace

import numpy as np


class FakeCupyArray:
    """CuPy's ``ndarray``: ``data.ptr``, ``data.device_id``, ``_c_contiguous`` ..., and an
    interface naming CuPy's current stream (1 for the default one), as CuPy 13 does."""

    current_stream = 0  # CuPy's current stream of this thread (0: the default stream)

    def __init__(self, host, device_id=0):
        self._host = host
        self.dtype = host.dtype
        self.ndim = host.ndim
        self.size = host.size
        self.shape = host.shape
        self.strides = host.strides
        self.data = SimpleNamespace(ptr=host.ctypes.data, device_id=device_id)
        self._c_contiguous = host.flags.c_contiguous
        self._f_contiguous = host.flags.f_contiguous

    def __getitem__(self, key):
        return FakeCupyArray(self._host[key], self.data.device_id)

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,
            "stream": FakeCupyArray.current_stream or 1,
            "version": 3,
            "strides": None if self._c_contiguous else self.strides,
            "data": (self.data.ptr if self.size else 0, False),
        }


FakeCupyArray.__module__ = "cupy._core.core"


def fake_cupy_module():
    """A ``cupy`` module with what the launch asks of it: the current stream."""
    module = ModuleType("cupy")
    module.cuda = SimpleNamespace(get_current_stream=lambda: SimpleNamespace(ptr=FakeCupyArray.current_stream))
    return module


def install_fake_cupy(monkeypatch):
    """Make ``import cupy`` give the fake module for the rest of the test (and CuPy's own
    stream module unimportable, so that the launch asks the fake for its stream)."""
    from cumlir.runtime import readers

    monkeypatch.setitem(sys.modules, "cupy", fake_cupy_module())
    monkeypatch.setitem(sys.modules, "cupy_backends", None)
    monkeypatch.setattr(FakeCupyArray, "current_stream", 0)
    forget_cupy_streams = readers._cupy_current_stream.cache_clear
    forget_cupy_streams()
    return forget_cupy_streams


_TORCH_DTYPES = {}


class _TorchDtype:
    """A ``torch.dtype``: one object per dtype, compared by identity."""

    def __init__(self, numpy_dtype):
        self.is_complex = numpy_dtype.kind == "c"


class _TorchLayout:
    """``torch.strided``, ``torch.sparse_coo``: one object each, compared by identity."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


STRIDED, SPARSE_COO = _TorchLayout("strided"), _TorchLayout("sparse_coo")


class FakeTensor:
    """PyTorch's ``Tensor``: ``data_ptr()``, ``stride()`` in elements, ``is_contiguous()``,
    ``layout``, ``element_size()`` ..., and the version 2 interface PyTorch exports (no
    stream), refused as PyTorch refuses it: for a tensor that requires grad, a sparse one."""

    def __init__(self, host, device=0, requires_grad=False, conjugated=False):
        self._host = host
        self.dtype = _TORCH_DTYPES.setdefault(host.dtype.str, _TorchDtype(host.dtype))  # one per dtype, as torch's
        self.shape = host.shape
        self.requires_grad = requires_grad
        self.layout = STRIDED
        self._device = device
        self._conjugated = conjugated  # t.conj(): the memory holds the values before conjugation

    def is_conj(self):
        return self._conjugated

    @property
    def is_sparse(self):
        return self.layout is SPARSE_COO

    def dim(self):
        return self._host.ndim

    def element_size(self):
        return self._host.itemsize

    def get_device(self):
        return self._device

    def _strided(self, what):
        if self.layout is not STRIDED:
            raise RuntimeError(f"Tensors of layout {self.layout!r} do not have {what}")

    def is_contiguous(self):
        self._strided("is_contiguous")
        return self._host.flags.c_contiguous

    def stride(self):
        self._strided("strides")
        return tuple(s // self._host.itemsize for s in self._host.strides)

    def data_ptr(self):
        self._strided("storage")
        return self._host.ctypes.data

    def numel(self):
        return self._host.size

    def __getitem__(self, key):
        return FakeTensor(self._host[key], self._device)

    @property
    def T(self):
        return FakeTensor(self._host.T, self._device)

    @property
    def __cuda_array_interface__(self):
        if self._device < 0:
            raise AttributeError("Can't get __cuda_array_interface__ on non-CUDA tensor type")
        if self.is_sparse:
            raise AttributeError("Can't get __cuda_array_interface__ on sparse type")
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad.")
        host = self._host
        strides = None if self.is_contiguous() else host.strides
        return {
            "typestr": host.dtype.str,
            "shape": host.shape,
            "strides": strides,
            "data": (self.data_ptr() if host.size else 0, False),
            "version": 2,
        }

    def __dlpack_device__(self):
        return (2, self._device) if self._device >= 0 else (1, 0)  # kDLCUDA, kDLCPU

    def __dlpack__(self, stream=None, **kwargs):
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        if self.layout is not STRIDED:
            raise RuntimeError("Can't export tensors with layout other than torch.strided")
        raise BufferError("this stand-in exports no DLPack capsule")


FakeTensor.__module__ = "torch"


class FakeNumbaArray:
    """numba-cuda's ``DeviceNDArray``: shape, strides, ``stream``, ``device_ctypes_pointer``
    and the interface numba-cuda 0.30 exports (strides omitted by its own rule)."""

    def __init__(self, host, stream=0):
        self._host = host
        self.shape, self.strides, self.dtype, self.ndim = host.shape, host.strides, host.dtype, host.ndim
        self.stream = stream
        self.device_ctypes_pointer = ctypes.c_void_p(host.ctypes.data or None)

    def __getitem__(self, key):
        return FakeNumbaArray(self._host[key], self.stream)

    @property
    def __cuda_array_interface__(self):
        size, compact = self.dtype.itemsize, True
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent > 1 and stride != 0:
                if size != stride:
                    compact = False
                    break
                size *= extent
        return {
            "shape": self.shape,
            "strides": None if compact else tuple(self.strides),
            "data": (self.device_ctypes_pointer.value or 0, False),
            "typestr": self.dtype.str,
            "stream": int(self.stream) if self.stream != 0 else None,
            "version": 3,
        }


FakeNumbaArray.__module__ = "numba.cuda.cudadrv.devicearray"
FakeNumbaArray.__name__ = FakeNumbaArray.__qualname__ = "DeviceNDArray"


class InterfaceOnly:
    """Any other CUDA Array Interface object (a numba device array, say)."""

    def __init__(self, host, stream=None, readonly=False):
        self._host = host
        self.__cuda_array_interface__ = {
            "shape": host.shape,
            "typestr": host.dtype.str,
            "strides": None if host.flags.c_contiguous else host.strides,
            "data": (host.ctypes.data, readonly),
            "stream": stream,
            "version": 3,
        }


def host(shape, dtype=np.float32, order="C"):
    return np.zeros(shape, dtype, order=order)
