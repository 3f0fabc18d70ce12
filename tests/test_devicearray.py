"""Device arrays without a GPU: the DLPack structures and capsules (against NumPy as a
real producer), view geometry, argument types, and the errors of bad input."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime import dlpack
from cumlir.runtime.devicearray import DeviceNDArray

from . import support


def fake_device_array(shape, dtype, strides=None, pointer=0x7000_0000):
    # memory owned elsewhere: nothing is allocated, so no GPU is needed
    return DeviceNDArray(shape, strides, dtype, gpu_data=object(), pointer=pointer)


# ---- DLPack structures -----------------------------------------------------------------------


def test_struct_layout_matches_dlpack_h():
    assert ctypes.sizeof(dlpack.DLDevice) == 8
    assert ctypes.sizeof(dlpack.DLDataType) == 4
    assert ctypes.sizeof(dlpack.DLTensor) == 48
    offsets = {name: getattr(dlpack.DLTensor, name).offset for name, _ in dlpack.DLTensor._fields_}
    assert offsets == {"data": 0, "device": 8, "ndim": 16, "dtype": 20, "shape": 24, "strides": 32, "byte_offset": 40}
    assert ctypes.sizeof(dlpack.DLManagedTensor) == 64
    assert dlpack.DLManagedTensor.deleter.offset == 56
    assert ctypes.sizeof(dlpack.DLManagedTensorVersioned) == 80
    assert dlpack.DLManagedTensorVersioned.flags.offset == 24
    assert dlpack.DLManagedTensorVersioned.dl_tensor.offset == 32


@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 3)])
def test_importing_numpy_capsules_of_both_kinds(rng, max_version):
    host = rng.standard_normal((6, 9)).astype(np.float32)[1::2, ::-3]
    capsule = host.__dlpack__() if max_version is None else host.__dlpack__(max_version=max_version)
    tensor = dlpack.ImportedTensor(capsule)
    assert "used_dltensor" in repr(capsule)
    assert tensor.device == (dlpack.CPU, 0)
    assert tensor.shape == host.shape and tensor.strides == host.strides and tensor.dtype == host.dtype
    assert tensor.pointer == host.__array_interface__["data"][0]
    with pytest.raises(BufferError, match="used"):
        dlpack.ImportedTensor(capsule)


def test_read_only_flag_is_read_from_versioned_capsules():
    host = np.arange(5.0)
    host.flags.writeable = False
    assert dlpack.ImportedTensor(host.__dlpack__(max_version=(1, 0))).readonly


@pytest.mark.parametrize("versioned", [False, True])
def test_exported_capsule_reads_back_and_releases_its_owner(versioned):
    class Owner:
        pass

    owner = Owner()
    alive = weakref.ref(owner)
    capsule = dlpack.export(owner, 0x1000, (3, 4), (-32, 8), np.int64, 0, versioned)
    del owner
    gc.collect()
    assert alive() is not None
    tensor = dlpack.ImportedTensor(capsule)
    assert tensor.device == (dlpack.CUDA, 0)
    assert (tensor.shape, tensor.strides, tensor.pointer, tensor.dtype) == ((3, 4), (-32, 8), 0x1000, np.int64)
    del tensor
    gc.collect()
    assert alive() is None


def test_unconsumed_capsule_releases_its_owner():
    class Owner:
        pass

    owner = Owner()
    alive = weakref.ref(owner)
    capsule = dlpack.export(owner, 0x1000, (8,), (4,), np.float32, 0, True)
    del owner, capsule
    gc.collect()
    assert alive() is None


def test_version_negotiation():
    assert dlpack.version_for(None) is False
    assert dlpack.version_for((0, 8)) is False
    assert dlpack.version_for((1, 0)) is True
    assert dlpack.version_for((2, 0)) is True  # a newer consumer still reads 1.x
    with pytest.raises(TypeError, match="max_version"):
        dlpack.version_for("1.0")


def test_newer_major_version_is_refused():
    capsule = dlpack.export(None, 0x1000, (2,), (8,), np.float64, 0, True)
    managed = dlpack.DLManagedTensorVersioned.from_address(
        ctypes.pythonapi.PyCapsule_GetPointer(ctypes.c_void_p(id(capsule)), b"dltensor_versioned")
    )
    managed.version.major = 2
    with pytest.raises(BufferError, match="DLPack 2"):
        dlpack.ImportedTensor(capsule)


@pytest.mark.parametrize(
    "dtype, code, bits",
    [("int8", 0, 8), ("uint32", 1, 32), ("float16", 2, 16), ("float64", 2, 64), ("complex64", 5, 64), ("bool", 6, 8)],
)
def test_data_types_both_ways(dtype, code, bits):
    dl = dlpack.dl_dtype(dtype)
    assert (dl.code, dl.bits, dl.lanes) == (code, bits, 1)
    assert dlpack.numpy_dtype(dl) == np.dtype(dtype)


def test_unsupported_data_types():
    with pytest.raises(BufferError, match="dtype"):
        dlpack.dl_dtype(np.dtype([("x", np.int32)]))
    with pytest.raises(TypeError, match="bfloat"):
        dlpack.numpy_dtype(dlpack.DLDataType(4, 16, 1))
    with pytest.raises(TypeError, match="lanes"):
        dlpack.numpy_dtype(dlpack.DLDataType(2, 32, 4))


def test_cpu_tensors_are_not_device_arrays():
    with pytest.raises(BufferError, match="CPU"):
        dlpack.import_capsule(np.zeros(3), 1)
    with pytest.raises(TypeError, match="DLPack"):
        dlpack.import_capsule([1, 2, 3], 1)


# ---- views and types -------------------------------------------------------------------------


def test_views_share_memory_with_offset_pointers():
    dev = fake_device_array((40, 60), np.float64)
    view = dev[5:, ::3]
    assert view.gpu_data is dev.gpu_data
    assert (view.shape, view.strides, view.device_pointer) == ((35, 20), (480, 24), dev.device_pointer + 5 * 480)
    assert dev.T.strides == (8, 480) and dev.T.is_f_contiguous() and not dev.T.is_c_contiguous()
    assert dev[::-1].device_pointer == dev.device_pointer + 39 * 480
    assert dev[4].shape == (60,) and dev[None, 3].shape == (1, 60) and dev[..., 2].shape == (40,)
    assert dev.reshape(60, -1).shape == (60, 40) and dev.ravel().shape == (2400,)
    assert dev.transpose(1, 0).shape == (60, 40)


def test_numpys_transpose_of_a_device_array_is_its_view():
    dev = fake_device_array((3, 4, 5), np.int16)
    for axes, view in [(None, np.transpose(dev)), ((2, 0, 1), np.transpose(dev, (2, 0, 1))), ((0, -1, 1), None)]:
        view = view if view is not None else np.transpose(dev, axes)
        host = np.transpose(np.empty((3, 4, 5), np.int16), axes)
        assert type(view) is type(dev) and view.gpu_data is dev.gpu_data
        assert (view.shape, view.strides) == (host.shape, host.strides)


@pytest.mark.parametrize(
    "axes, error, message",
    [
        ((0, 0), ValueError, r"repeated axis in transpose"),
        ((0, 2), ValueError, r"axis 2 is out of bounds for array of dimension 2"),
        ((0, -3), IndexError, r"axis -3 is out of bounds for array of dimension 2"),
        ((1,), ValueError, r"axes don't match array"),
    ],
)
def test_transposing_by_axes_that_are_no_permutation_is_numpys_error(axes, error, message):
    dev = fake_device_array((3, 4), np.float32)
    with pytest.raises(error, match=f"^{message}"):
        np.transpose(dev, axes)
    with pytest.raises(error, match=f"^{message}"):
        np.transpose(np.empty((3, 4)), axes)  # NumPy's own words


def test_kernel_argument_types_come_from_the_layout():
    from cumlir.runtime.arguments import argument_type

    dev = fake_device_array((40, 60), np.float32)
    assert str(argument_type(dev, 0)) == "array(float32, 2d, C)"
    assert str(argument_type(dev.T, 0)) == "array(float32, 2d, F)"
    assert str(argument_type(dev[:, ::2], 0)) == "array(float32, 2d, A)"


def test_cuda_array_interface_of_views():
    dev = fake_device_array((10, 4), np.int16)
    cai = dev.__cuda_array_interface__
    assert cai == {
        "shape": (10, 4),
        "strides": None,
        "data": (dev.device_pointer, False),
        "typestr": "<i2",
        "stream": None,
        "version": 3,
    }
    assert dev[::2].__cuda_array_interface__["strides"] == (16, 2)
    assert cuda.is_cuda_array(dev) and not cuda.is_cuda_array(np.zeros(3))


def test_cuda_array_interface_import_shares_the_pointer():
    class Producer:
        __cuda_array_interface__ = {
            "shape": (3, 5),
            "strides": (8, 24),
            "typestr": "<f8",
            "data": (0x5000, True),
            "version": 3,
        }

    dev = cuda.as_cuda_array(Producer())
    assert (dev.shape, dev.strides, dev.device_pointer, dev.dtype) == ((3, 5), (8, 24), 0x5000, np.float64)
    assert dev._readonly


def test_bad_indices_and_shapes():
    dev = fake_device_array((4, 5), np.float32)
    with pytest.raises(IndexError, match="too many"):
        dev[1, 2, 3]
    with pytest.raises(IndexError, match="out of bounds"):
        dev[4]
    with pytest.raises(IndexError, match="integer and slice"):
        dev[np.array([1, 2])]
    with pytest.raises(IndexError, match="integer and slice"):
        dev[True]
    with pytest.raises(IndexError, match="valid indices"):
        dev[1.5]
    with pytest.raises(ValueError, match="size 20"):
        dev.reshape(3, 7)
    with pytest.raises(NotImplementedError, match="contiguous"):
        dev.T.reshape(20)
    with pytest.raises(TypeError, match="0-d"):
        len(fake_device_array((), np.float32))


def test_bad_arguments_raise_before_touching_the_gpu():
    with pytest.raises(ValueError, match="negative"):
        cuda.device_array((3, -1))
    with pytest.raises(TypeError, match="shape"):
        cuda.device_array("big")
    with pytest.raises(TypeError, match="Python objects"):
        cuda.device_array(3, dtype=object)
    with pytest.raises(ValueError, match="order"):
        cuda.device_array(3, order="K")
    with pytest.raises(TypeError, match="CUDA Array Interface"):
        cuda.as_cuda_array(np.zeros(3))
    with pytest.raises(ValueError, match="strides"):
        cuda.device_array((3, 4), strides=(8,))


def test_masked_cuda_array_interface_is_refused():
    class Masked:
        __cuda_array_interface__ = {
            "shape": (3,),
            "typestr": "<f4",
            "data": (0x5000, False),
            "version": 3,
            "mask": object(),
        }

    with pytest.raises(NotImplementedError, match="mask"):
        cuda.as_cuda_array(Masked())


def test_array_functions_keep_the_import_cheap():
    code = (
        "import sys\n"
        "from cumlir import cuda\n"
        "cuda.to_device, cuda.device_array, cuda.from_dlpack, cuda.mapped_array\n"
        "print(sorted(m for m in ('mlir', 'numba', 'cuda.bindings', 'cumlir.runtime.devicearray') if m in sys.modules))"
    )
    assert support.python_output(code) == "[]"


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_gpu_tier_kernels_assemble_for_device_array_layouts(cc):
    from cumlir import compiler
    from cumlir.codegen import targets
    from cumlir.lowering.module import ModuleBuilder
    from cumlir.runtime.arguments import argument_type
    from cumlir.typing.context import typing_context

    from .test_gpu_devicearray import affine_2d, double_1d, index_fill

    def types_of(*arrays):
        return tuple(argument_type(a, i) for i, a in enumerate(arrays))

    square = fake_device_array((40, 60), np.float64)
    entries = [(double_1d, types_of(fake_device_array(9, t))) for t in ("float32", "float64", "int64")]
    entries += [(double_1d, types_of(fake_device_array(9, "float32")[::3]))]
    entries += [(index_fill, types_of(fake_device_array(9, t))) for t in ("int8", "uint8")]
    entries += [(affine_2d, types_of(v, square)) for v in (square, square.T, square[::2, 1:], square[::-2].T)]
    entries += [(affine_2d, types_of(fake_device_array((4, 4), "int32"), fake_device_array((4, 4), "int32")))]
    builder = ModuleBuilder(typing_context())
    for f, args in entries:
        builder.add_kernel(compiler.type_function(f.py_func, args))
    with builder.context:
        compiled = compiler.run(compiler.from_module(builder, cc), "codegen")
        ptx = compiled.ptx
    support.ptxas(ptx, targets.chip(cc))


def test_split_bind_and_auto_synchronize_as_numba_cudas(simulator_or_gpu, rng):
    host = rng.integers(-1000, 1000, 100).astype(np.int32)
    d = cuda.to_device(host)
    pieces = list(d.split(30))
    assert [p.shape for p in pieces] == [(30,), (30,), (30,), (10,)]
    back = np.zeros_like(host)
    for k, piece in enumerate(pieces):
        piece.copy_to_host(back[30 * k : 30 * k + piece.size])
    np.testing.assert_array_equal(back, host)
    pieces[1][0] = 7  # a view: the write lands in d
    assert d[30] == 7
    with pytest.raises(ValueError, match="1-d array of unit stride"):
        next(d[::2].split(3))
    stream = cuda.stream()
    with stream.auto_synchronize() as s:
        assert s is stream
        bound = d.bind(stream)
        assert bound.stream is stream and bound.device_pointer == d.device_pointer and d.stream == 0
        bound.copy_to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_a_copy_between_device_arrays_of_other_layouts_says_so(simulator_or_gpu):
    c = cuda.to_device(np.arange(12.0).reshape(3, 4))
    f = cuda.to_device(np.asfortranarray(np.arange(12.0).reshape(3, 4)))
    with pytest.raises(ValueError, match=r"incompatible strides: \(8, 24\) vs. \(32, 8\)"):
        c.copy_to_device(f)


def test_order_a_is_numpys(simulator_or_gpu):
    f = np.asfortranarray(np.arange(12).reshape(3, 4))
    c = np.arange(12).reshape(3, 4)
    for host in (f, c, np.arange(5)):
        d = cuda.to_device(host)
        np.testing.assert_array_equal(d.ravel(order="A").copy_to_host(), host.ravel(order="A"))
        np.testing.assert_array_equal(d.reshape(host.size, order="A").copy_to_host(), host.reshape(-1, order="A"))
