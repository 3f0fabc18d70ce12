"""Device arrays on the GPU: copies, views as kernel arguments, pinned and mapped memory,
and sharing memory with CuPy, PyTorch and cuda.core (CUDA Array Interface and DLPack)."""

import numpy as np
import pytest

from cumlir import cuda

from . import support

pytestmark = pytest.mark.gpu

DTYPES = ["int8", "uint16", "int32", "int64", "float32", "float64", "complex128", "bool"]


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind in "biu":
        return support.random_values(dtype.name, int(np.prod(shape)), rng).reshape(shape)
    return np.asarray(rng.standard_normal(shape)).astype(dtype)


@cuda.jit
def double_1d(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * 2


@cuda.jit
def affine_2d(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * 3 + i - j


@cuda.jit
def index_fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i % 100


def launch_1d(kernel, *args):
    n = args[0].shape[0]
    kernel[(n + 127) // 128, 128](*args)


def launch_2d(kernel, a, out):
    kernel[((out.shape[0] + 7) // 8, (out.shape[1] + 15) // 16), (8, 16)](a, out)


# ---- copies ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (37,), (5, 7), (3, 4, 6)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_round_trip(rng, dtype, shape, order):
    host = np.asarray(random_array(rng, shape, dtype), order=order)
    dev = cuda.to_device(host)
    assert dev.shape == host.shape and dev.strides == host.strides and dev.dtype == host.dtype
    assert (dev.size, dev.ndim, dev.nbytes, dev.itemsize) == (host.size, host.ndim, host.nbytes, host.itemsize)
    if shape:
        assert len(dev) == shape[0]
    back = dev.copy_to_host()
    np.testing.assert_array_equal(back, host)
    assert back.strides == host.strides


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
def test_non_contiguous_host_array(rng, dtype):
    base = random_array(rng, (20, 30), dtype)
    for host in (base[::2, 1::3], base.T[::-1], base[:, 5]):
        dev = cuda.to_device(host)
        assert dev.is_c_contiguous()
        np.testing.assert_array_equal(dev.copy_to_host(), host)


def test_copy_to_host_into_existing_array_and_on_a_stream(rng):
    host = random_array(rng, (64, 9), "float32")
    dev = cuda.to_device(host)
    out = np.full(host.shape, np.nan, np.float32)
    assert dev.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)

    stream = cuda.stream()
    pinned = cuda.pinned_array(host.shape, np.float32)
    pinned[...] = np.nan
    dev.copy_to_host(pinned, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(pinned, host)

    fortran = np.full(host.shape, np.nan, np.float32, order="F")  # other layout: gathered then placed
    dev.copy_to_host(fortran, stream=stream)
    np.testing.assert_array_equal(fortran, host)


def test_copy_to_device_on_a_stream_and_between_device_arrays(rng):
    host = random_array(rng, 1000, "int32")
    stream = cuda.stream()
    dev = cuda.device_array(1000, np.int32, stream=stream)
    dev.copy_to_device(host, stream=stream)
    other = cuda.device_array_like(dev)
    other.copy_to_device(dev)
    stream.synchronize()
    np.testing.assert_array_equal(other.copy_to_host(), host)
    to = cuda.device_array(1000, np.int32)
    assert cuda.to_device(host[::-1], to=to) is to
    np.testing.assert_array_equal(to.copy_to_host(), host[::-1])


def test_mismatched_copies_raise(rng):
    dev = cuda.device_array((4, 5), np.float32)
    with pytest.raises(ValueError, match="shape"):
        dev.copy_to_device(np.zeros((5, 4), np.float32))
    with pytest.raises(TypeError, match="dtype"):
        dev.copy_to_device(np.zeros((4, 5), np.float64))
    with pytest.raises(ValueError, match="shape"):
        dev.copy_to_host(np.zeros(20, np.float32))
    with pytest.raises(TypeError, match="dtype"):
        dev.copy_to_host(np.zeros((4, 5), np.int32))
    with pytest.raises(TypeError, match="object"):
        cuda.to_device(np.array([object()]))


def test_device_array_like_keeps_the_axis_order():
    f = cuda.device_array((6, 4), np.float64, order="F")
    assert f.is_f_contiguous() and not f.is_c_contiguous() and f.strides == (8, 48)
    like = cuda.device_array_like(f)
    assert like.strides == f.strides and like.dtype == f.dtype
    assert cuda.device_array_like(np.zeros((3, 5), np.int16)).strides == (10, 2)


# ---- views -------------------------------------------------------------------------------


def test_slices_are_views_usable_as_kernel_arguments(rng):
    host = random_array(rng, 301, "float32")
    dev = cuda.to_device(host)
    view = dev[3:250:4]
    assert view.device_pointer == dev.device_pointer + 12 and view.strides == (16,)
    launch_1d(double_1d, view)
    expected = host.copy()
    expected[3:250:4] *= 2
    np.testing.assert_array_equal(dev.copy_to_host(), expected)
    np.testing.assert_array_equal(view.copy_to_host(), expected[3:250:4])

    backwards = dev[::-1]
    launch_1d(double_1d, backwards)
    np.testing.assert_array_equal(dev.copy_to_host(), expected * 2)
    assert dev[7] == np.float32(expected[7] * 2)
    assert dev[-1] == np.float32(expected[-1] * 2)
    with pytest.raises(IndexError, match="out of bounds"):
        dev[301]


def test_2d_views_transposes_and_reshapes(rng):
    host = random_array(rng, (40, 60), "float64")
    dev = cuda.to_device(host)
    for view, expected_in in (
        (dev[5:, ::3], host[5:, ::3]),
        (dev.T, host.T),
        (dev[::-2, 10:20].T, host[::-2, 10:20].T),
    ):
        out = cuda.to_device(np.full(view.shape, np.nan))
        launch_2d(affine_2d, view, out)
        i, j = np.indices(view.shape)
        support.assert_contractible(out.copy_to_host(), expected_in * 3 + i - j, expected_in * 3, i, j)
    assert dev[2, 3] == host[2, 3]
    row = dev[4]
    assert row.shape == (60,) and row.device_pointer == dev.device_pointer + 4 * 60 * 8

    flat = dev.ravel()
    assert flat.shape == (2400,) and flat.device_pointer == dev.device_pointer
    launch_1d(double_1d, flat)
    reshaped = dev.reshape(60, 40)
    np.testing.assert_array_equal(reshaped.copy_to_host(), (host * 2).reshape(60, 40))
    with pytest.raises(NotImplementedError, match="contiguous"):
        dev[:, ::2].reshape(-1)


def test_setitem_writes_through_views(rng):
    host = random_array(rng, (8, 10), "int32")
    dev = cuda.to_device(host)
    dev[2] = 7
    dev[3:6, ::2] = np.arange(5, dtype=np.int32)
    host[2] = 7
    host[3:6, ::2] = np.arange(5, dtype=np.int32)
    np.testing.assert_array_equal(dev.copy_to_host(), host)


@pytest.mark.not_simulated("asks the CUDA driver itself whether memory is allocated")
def test_memory_is_freed_with_the_last_view():
    """Asked of the allocation itself (cuMemGetAddressRange), not of the device's free memory,
    which other processes on the GPU change meanwhile."""
    from cuda.bindings import driver as cu

    def allocated(pointer):
        return cu.cuMemGetAddressRange(pointer)[0] == cu.CUresult.CUDA_SUCCESS

    dev = cuda.device_array(64 << 20, np.uint8)
    base = dev.device_pointer
    view = dev[1024:]
    del dev
    assert allocated(base), "the view's memory was freed with its parent"
    del view
    assert not allocated(base), "the memory outlived its last view"


# ---- pinned and mapped host memory ---------------------------------------------------------


@pytest.mark.not_simulated("asks the CUDA driver itself whether memory is page-locked")
def test_pinned_array_is_page_locked(rng):
    from cuda.bindings import driver as cu

    pinned = cuda.pinned_array((16, 16), np.float32)
    err, flags = cu.cuMemHostGetFlags(pinned.ctypes.data)
    assert int(err) == 0
    like = cuda.pinned_array_like(np.zeros((3, 4), order="F"))
    assert like.flags.f_contiguous and like.dtype == np.float64


def test_mapped_array_is_written_in_place(rng):
    host = random_array(rng, 500, "float32")
    mapped = cuda.mapped_array(500, np.float32)
    mapped[...] = host
    assert isinstance(mapped, np.ndarray)
    launch_1d(double_1d, mapped)
    cuda.synchronize()  # no staging copy: the kernel wrote the host memory itself
    np.testing.assert_array_equal(mapped, host * 2)
    launch_1d(double_1d, mapped[100:300:2])
    cuda.synchronize()
    expected = host * 2
    expected[100:300:2] *= 2
    np.testing.assert_array_equal(mapped, expected)
    shared = cuda.as_cuda_array(mapped)
    assert shared.device_pointer == mapped.device_pointer

    copy = mapped + 1  # new host memory: staged and copied back like any NumPy array
    launch_1d(double_1d, copy)
    np.testing.assert_array_equal(copy, (expected + 1) * 2)
    np.testing.assert_array_equal(mapped, expected)


# ---- stream semantics of sharing -----------------------------------------------------------


def test_arrays_on_a_stream_report_it_and_order_consumers(rng, torch):
    host = cuda.pinned_array(16 << 20, np.float32)
    host[...] = rng.standard_normal(host.size).astype(np.float32)
    stream = cuda.stream()
    dev = cuda.device_array(host.shape, np.float32, stream=stream)
    assert dev.__cuda_array_interface__["stream"] == stream.handle
    dev.copy_to_device(host)  # the array's stream: queued, asynchronous from pinned memory
    t = torch.from_dlpack(dev)  # the copy is ordered before torch's stream
    assert t.data_ptr() == dev.device_pointer
    np.testing.assert_array_equal(t.cpu().numpy(), host)

    dev2 = cuda.device_array(host.shape, np.float32, stream=stream)
    dev2.copy_to_device(host * 2)
    shared = cuda.as_cuda_array(dev2)  # sync=True waits for the producer's stream
    assert int(shared.stream) == stream.handle
    np.testing.assert_array_equal(shared.copy_to_host(stream=cuda.default_stream()), host * 2)


# ---- CuPy ----------------------------------------------------------------------------------


@pytest.fixture
def cupy():
    return pytest.importorskip("cupy")


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    return torch


def test_cupy_through_the_cuda_array_interface(cupy, rng):
    host = random_array(rng, (30, 40), "float32")
    c = cupy.asarray(host)
    dev = cuda.as_cuda_array(c)
    assert cuda.is_cuda_array(c) and dev.device_pointer == c.data.ptr
    assert dev.shape == c.shape and dev.strides == c.strides
    launch_1d(double_1d, dev.ravel())
    cuda.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(c), host * 2)

    ours = cuda.to_device(host)
    theirs = cupy.asarray(ours)
    assert theirs.data.ptr == ours.device_pointer
    theirs += 1
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(ours.copy_to_host(), host + 1)
    view = cupy.asarray(ours[::2, 3:])
    assert view.data.ptr == ours.device_pointer + 12 and view.strides == (320, 4)


def test_cupy_through_dlpack(cupy, rng):
    host = random_array(rng, (12, 34), "int64")
    ours = cuda.to_device(host)
    theirs = cupy.from_dlpack(ours)
    assert theirs.data.ptr == ours.device_pointer
    theirs *= 3
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(ours.copy_to_host(), host * 3)

    c = cupy.asarray(random_array(rng, 77, "float64"))
    dev = cuda.from_dlpack(c)
    assert dev.device_pointer == c.data.ptr and dev.shape == (77,)
    expected = cupy.asnumpy(c) * 2
    launch_1d(double_1d, dev)
    cuda.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(c), expected)
    strided = cuda.from_dlpack(c[::3])
    assert strided.strides == (24,) and strided.device_pointer == c.data.ptr


def test_cupy_arrays_as_kernel_arguments(cupy, rng):
    host = random_array(rng, (33, 17), "float64")
    c = cupy.asarray(host)
    out = cupy.full(host.shape, cupy.nan)
    launch_2d(affine_2d, c.T, out.T)
    i, j = np.indices(host.T.shape)
    support.assert_contractible(cupy.asnumpy(out.T), host.T * 3 + i - j, host.T * 3, i, j)


# ---- PyTorch -------------------------------------------------------------------------------


def test_torch_through_dlpack_both_ways(torch, rng):
    host = random_array(rng, (25, 8), "float32")
    ours = cuda.to_device(host)
    t = torch.from_dlpack(ours)
    assert t.data_ptr() == ours.device_pointer and tuple(t.shape) == host.shape
    t.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(ours.copy_to_host(), host * 2)
    tv = torch.from_dlpack(ours.T)
    assert tv.data_ptr() == ours.device_pointer and tv.stride() == (1, 8)

    t2 = torch.arange(100, dtype=torch.float64, device="cuda")
    dev = cuda.from_dlpack(t2)
    assert dev.device_pointer == t2.data_ptr()
    launch_1d(double_1d, dev)
    cuda.synchronize()
    np.testing.assert_array_equal(t2.cpu().numpy(), np.arange(100) * 2.0)
    dev_t = cuda.from_dlpack(t2.view(10, 10).t())
    assert dev_t.strides == (8, 80) and dev_t.device_pointer == t2.data_ptr()


def test_torch_through_the_cuda_array_interface(torch, rng):
    host = random_array(rng, (16, 20), "int32")
    t = torch.from_numpy(host).cuda()
    dev = cuda.as_cuda_array(t)
    assert dev.device_pointer == t.data_ptr() and dev.shape == (16, 20)
    out = torch.full((16, 20), -1, dtype=torch.int32, device="cuda")
    launch_2d(affine_2d, t, out)  # tensors straight into a kernel
    i, j = np.indices(host.shape)
    np.testing.assert_array_equal(out.cpu().numpy(), host * 3 + i - j)
    launch_1d(double_1d, dev.ravel())
    cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), host * 2)


def test_non_cuda_dlpack_objects_are_refused(torch):
    with pytest.raises(BufferError, match="CPU"):
        cuda.from_dlpack(torch.zeros(4))
    with pytest.raises(BufferError, match="CPU"):
        launch_1d(double_1d, torch.zeros(4))


# ---- cuda.core -----------------------------------------------------------------------------


@pytest.mark.not_simulated("cuda.core's buffers are in a GPU's memory")
def test_cuda_core_buffers_as_kernel_arguments():
    try:
        from cuda.core import Device
    except ImportError:
        try:
            from cuda.core.experimental import Device
        except ImportError:
            pytest.skip("cuda.core is not installed")
    device = Device(0)
    device.set_current()
    stream = device.create_stream()
    buffer = device.allocate(1024, stream=stream)
    stream.sync()
    if not hasattr(buffer, "__dlpack__"):
        pytest.skip("this cuda.core Buffer has no __dlpack__")
    view = cuda.from_dlpack(buffer)
    assert view.device_pointer == int(buffer.handle)
    view_host = np.zeros(view.shape, view.dtype)
    view.copy_to_device(view_host)
    index_fill[(view.size + 127) // 128, 128](buffer)
    cuda.synchronize()
    expected = (np.arange(view.size) % 100).astype(view.dtype).reshape(view.shape)
    np.testing.assert_array_equal(view.copy_to_host(), expected)
    del view
    buffer.close(stream)
