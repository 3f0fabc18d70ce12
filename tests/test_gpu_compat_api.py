"""On the GPU: devices and their attributes, contexts, events, pinned / mapped / managed
memory, the In/Out wrappers, streams made elsewhere, the kernels' resource queries and
``specialize`` (Numba-CUDA's host API, docs/compatibility.md)."""

import subprocess
import sys
import textwrap
import uuid

import numpy as np
import pytest

from cumlir import cuda

from . import support

pytestmark = pytest.mark.gpu


def _cu():
    support.needs_the_gpu_itself("compared with the CUDA driver itself")
    from cuda.bindings import driver as cu

    return cu


def _direct(result):
    """A cuda.bindings result: its value, or None where the call failed."""
    cu = _cu()
    return result[1] if result[0] == cu.CUresult.CUDA_SUCCESS else None


# ---- devices -----------------------------------------------------------------------------------


def test_every_device_attribute_is_the_drivers():
    cu = _cu()
    device = cuda.get_current_device()
    handle = _direct(cu.cuDeviceGet(device.id))
    checked = 0
    for full in cu.CUdevice_attribute.__members__:
        if not full.startswith("CU_DEVICE_ATTRIBUTE_") or full.endswith("_MAX"):
            continue
        name = full[len("CU_DEVICE_ATTRIBUTE_") :]
        expected = _direct(cu.cuDeviceGetAttribute(getattr(cu.CUdevice_attribute, full), handle))
        if expected is None:  # an attribute this driver does not answer: ours raises
            with pytest.raises(RuntimeError):
                getattr(device, name)
            continue
        assert getattr(device, name) == expected, name
        checked += 1
    assert checked > 100
    with pytest.raises(AttributeError, match="NO_SUCH_ATTRIBUTE"):
        device.NO_SUCH_ATTRIBUTE


def test_device_identity():
    cu = _cu()
    device = cuda.get_current_device()
    handle = _direct(cu.cuDeviceGet(device.id))
    assert device.name == _direct(cu.cuDeviceGetName(256, handle)).split(b"\0")[0].decode()
    major = _direct(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle))
    minor = _direct(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle))
    assert device.compute_capability == (major, minor)
    raw = bytes(_direct(cu.cuDeviceGetUuid(handle)).bytes)
    assert device.uuid == f"GPU-{uuid.UUID(bytes=raw)}"
    assert device.get_device_identity() == {
        "pci_domain_id": device.PCI_DOMAIN_ID,
        "pci_bus_id": device.PCI_BUS_ID,
        "pci_device_id": device.PCI_DEVICE_ID,
    }
    assert device.supports_float16 and device.supports_bfloat16 == (device.compute_capability >= (8, 0))
    assert repr(device) == f"<CUDA device {device.id} '{device.name}'>"
    assert cuda.current_context().device is device


def test_gpus_list_and_select_device():
    cu = _cu()
    count = _direct(cu.cuDeviceGetCount())
    assert len(cuda.gpus) == count and len(list(cuda.gpus)) == count
    assert cuda.list_devices() is cuda.gpus
    for i, gpu in enumerate(cuda.gpus):
        assert gpu.id == i and gpu.compute_capability == cuda.gpus[i].compute_capability
    device = cuda.select_device(0)
    assert device.id == 0 and cuda.get_current_device() is device
    assert cuda.gpus.current == cuda.gpus[0]
    with pytest.raises(ValueError, match=f"no CUDA device {count}"):
        cuda.select_device(count)


def test_gpus_context_manager_switches_device():
    if len(cuda.gpus) < 2:
        pytest.skip("needs two GPUs")
    cu = _cu()
    with cuda.gpus[1]:
        assert cuda.get_current_device().id == 1
        d = cuda.to_device(np.arange(4.0))
        # the allocation's context (the driver reported DEVICE_ORDINAL 0 for memory of device
        # 1 on a two-H200 machine, 2026-11-26: the context is what says where memory is)
        owner = _direct(cu.cuPointerGetAttribute(cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT, d.device_pointer))
        assert int(owner) == int(cuda.current_context().handle)
        assert int(owner) != int(cuda.gpus[0].get_primary_context().handle)
        np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))
    assert cuda.get_current_device().id == 0


def test_detect_prints_each_device(capsys):
    assert cuda.detect() is True
    out = capsys.readouterr().out
    assert out.startswith(f"Found {len(cuda.gpus)} CUDA devices\n")
    for gpu in cuda.gpus:
        assert gpu.name in out and gpu.uuid in out
    assert f"{len(cuda.gpus)}/{len(cuda.gpus)} devices are supported" in out


def test_memory_info_and_cuda_error():
    info = cuda.current_context(0).get_memory_info()
    assert isinstance(info, cuda.MemoryInfo) and 0 < info.free <= info.total
    assert cuda.cuda_error() is None


def test_close_then_kernels_and_arrays_work_again():
    # close() resets the device, which would free other tests' arrays: run it on its own
    code = textwrap.dedent(
        """
        import numpy as np
        from cumlir import cuda

        @cuda.jit
        def inc(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] += 1

        for _ in range(2):
            d = cuda.to_device(np.arange(8, dtype=np.int32))
            inc[1, 8](d)
            assert (d.copy_to_host() == np.arange(1, 9)).all()
            del d
            cuda.close()
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# ---- events and streams -----------------------------------------------------------------------


@cuda.jit
def _spin(out, rounds):
    # a kernel that takes a while: a dependent chain of multiply-adds
    i = cuda.grid(1)
    if i < out.size:
        x = out[i]
        for _ in range(rounds):
            x = x * 0.999999 + 1.0
        out[i] = x


@cuda.jit
def _copy_plus_one(source, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = source[i] + 1


def test_events_time_a_kernel():
    out = cuda.to_device(np.zeros(1024))
    start, middle, end = cuda.event(), cuda.event(), cuda.event(timing=True)
    start.record()
    _spin[8, 128](out, 1000)
    middle.record()
    _spin[8, 128](out, 100000)
    end.record()
    end.synchronize()
    assert start.query() and middle.query() and end.query()
    short, total = cuda.event_elapsed_time(start, middle), start.elapsed_time(end)
    assert 0 < short < total
    assert abs(middle.elapsed_time(end) - (total - short)) < 0.5 + 0.05 * total


@pytest.mark.timing
@pytest.mark.not_simulated("the simulator's streams run their work before a launch returns")
def test_event_query_before_the_work_finishes():
    out = cuda.to_device(np.zeros(1024))
    stream = cuda.stream()
    event = cuda.event()
    _spin[8, 128, stream](out, 20_000_000)
    event.record(stream)
    assert event.query() is False  # seconds of work are still queued
    event.synchronize()
    assert event.query() is True


def test_event_without_timing_has_no_time():
    a, b = cuda.event(timing=False), cuda.event(timing=False)
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises(ValueError, match="timing=False"):
        cuda.event_elapsed_time(a, b)


def test_event_wait_orders_two_streams(rng):
    n = 1 << 16
    values = rng.standard_normal(n)
    first, second = cuda.stream(), cuda.stream()
    d = cuda.to_device(values)
    out = cuda.device_array(n)
    _spin[n // 256, 256, first](d, 20000)
    done = cuda.event(timing=False)
    done.record(first)
    done.wait(second)
    _copy_plus_one[n // 256, 256, second](d, out)
    second.synchronize()
    expected = values.copy()
    for _ in range(20000):
        expected = expected * 0.999999 + 1.0
    np.testing.assert_allclose(out.copy_to_host(), expected + 1, rtol=1e-9)


def test_external_and_default_streams(rng):
    cu = _cu()
    handle = _direct(cu.cuStreamCreate(0))
    try:
        values = rng.integers(-1000, 1000, 4096).astype(np.int64)
        for stream in (
            cuda.external_stream(int(handle)),
            cuda.legacy_default_stream(),
            cuda.per_thread_default_stream(),
            cuda.default_stream(),
        ):
            source = cuda.to_device(values)
            out = cuda.to_device(support.poisoned(values.size, np.int64))
            _copy_plus_one[values.size // 128, 128, stream](source, out)
            stream.synchronize()
            np.testing.assert_array_equal(out.copy_to_host(), values + 1)
        assert int(cuda.external_stream(int(handle))) == int(handle)
        assert int(cuda.legacy_default_stream()) == int(cu.CU_STREAM_LEGACY)
        assert int(cuda.per_thread_default_stream()) == int(cu.CU_STREAM_PER_THREAD)
    finally:
        cu.cuStreamDestroy(handle)


def test_profiling_switches():
    cuda.profile_start()
    cuda.profile_stop()
    with cuda.profiling():
        cuda.synchronize()


# ---- host memory ------------------------------------------------------------------------------


def _registered(array):
    cu = _cu()
    return cu.cuMemHostGetFlags(array.ctypes.data)[0] == cu.CUresult.CUDA_SUCCESS


def test_pinned_locks_for_the_block(rng):
    a, b = rng.standard_normal(10000), rng.integers(0, 100, (64, 3)).astype(np.int16)
    assert not _registered(a)
    with cuda.pinned(a, b):
        assert _registered(a) and _registered(b)
        stream = cuda.stream()
        d = cuda.to_device(a, stream=stream)
        back = np.empty_like(a)
        d.copy_to_host(back, stream=stream)
        stream.synchronize()
        np.testing.assert_array_equal(back, a)
    assert not _registered(a) and not _registered(b)


@cuda.jit
def _twice(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 2 * a[i]


def test_mapped_gives_device_views_of_host_arrays(rng):
    a = rng.standard_normal(5000)
    b = rng.standard_normal(77).astype(np.float32)
    expected_a, expected_b = 2 * a, 2 * b
    with cuda.mapped(a) as d_a:
        assert d_a.shape == a.shape and d_a.dtype == a.dtype
        _twice[(a.size + 127) // 128, 128](d_a)
        cuda.synchronize()
        np.testing.assert_array_equal(a, expected_a)  # written in place, no copy
    assert not _registered(a)
    with cuda.mapped(a, b) as views:
        assert isinstance(views, list) and len(views) == 2
        _twice[1, 128](views[1])
        cuda.synchronize()
    np.testing.assert_array_equal(b, expected_b)


def test_managed_array_is_shared_by_host_and_kernels(rng):
    for attach_global in (True, False):
        m = cuda.managed_array((40, 25), dtype=np.float32, attach_global=attach_global)
        values = rng.standard_normal(m.shape).astype(np.float32)
        m[...] = values
        _twice[8, 128](m.reshape(-1))
        cuda.synchronize()
        np.testing.assert_array_equal(m, 2 * values)


def test_defer_cleanup_holds_frees_back():
    cu = _cu()

    def allocated(pointer):
        attr = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_SIZE
        return cu.cuPointerGetAttribute(attr, pointer)[0] == cu.CUresult.CUDA_SUCCESS

    with cuda.defer_cleanup():
        with cuda.defer_cleanup():  # nested: freed when the outer block ends
            d = cuda.device_array(1 << 20)
            pointer = d.device_pointer
            del d
        assert allocated(pointer)
    assert not allocated(pointer)


def test_in_out_wrappers_copy_one_way(rng):
    @cuda.jit
    def k(x, y):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1
            y[i] = 2 * x[i]

    x = rng.integers(-100, 100, 1000).astype(np.int32)
    original = x.copy()
    y = support.poisoned(1000, np.int32)
    k[8, 128](cuda.In(x), cuda.Out(y))
    np.testing.assert_array_equal(x, original)  # In: not copied back
    np.testing.assert_array_equal(y, 2 * (original + 1))
    k[8, 128](cuda.InOut(x), cuda.Out(y))
    np.testing.assert_array_equal(x, original + 1)


def test_from_cuda_array_interface_shares_memory(rng):
    values = rng.standard_normal((30, 20))
    d = cuda.to_device(values)
    view = cuda.from_cuda_array_interface(d.__cuda_array_interface__, owner=d)
    assert view.device_pointer == d.device_pointer and view.shape == d.shape
    _twice[5, 128](view.reshape(600))
    np.testing.assert_array_equal(d.copy_to_host(), 2 * values)


# ---- kernel resources and specialization ------------------------------------------------------


@cuda.jit
def _shared_kernel(a):
    tile = cuda.shared.array(256, np.float32)  # 1024 bytes
    scratch = cuda.local.array(128, np.int32)  # indexed at run time: local memory
    i = cuda.threadIdx.x
    tile[i] = a[i]
    for j in range(128):
        scratch[(i + j) % 128] = j
    cuda.syncthreads()
    a[i] = tile[255 - i] + scratch[i % 128]


def test_resource_queries():
    cu = _cu()
    sig = "void(float32[::1])"
    overload = _shared_kernel.compile(sig)
    assert _shared_kernel.get_shared_mem_per_block(sig) == 1024
    assert _shared_kernel.get_local_mem_per_thread(sig) >= 128 * 4
    regs = _shared_kernel.get_regs_per_thread(sig)
    assert 0 < regs <= 255
    threads = _shared_kernel.get_max_threads_per_block(sig)
    assert 0 < threads <= cuda.get_current_device().MAX_THREADS_PER_BLOCK
    # the same as the driver reports for the loaded function
    function = overload.loaded().record.function
    assert regs == _direct(cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, function))
    every = _shared_kernel.get_shared_mem_per_block()
    assert isinstance(every, dict) and list(every.values()) == [1024] * len(every)


def test_metadata_holds_the_resources_and_the_code():
    sig = "void(float32[::1])"
    overload = _shared_kernel.compile(sig)
    metadata = _shared_kernel.get_metadata(sig)
    assert metadata is overload.metadata
    assert metadata["shared_mem_per_block"] == 1024
    assert metadata["regs_per_thread"] == _shared_kernel.get_regs_per_thread(sig)
    assert metadata["local_mem_per_thread"] >= 128 * 4
    assert metadata["func_name"] == "_shared_kernel"
    assert metadata["cubin"]
    assert list(_shared_kernel.get_metadata().values())[0] is metadata


@pytest.mark.not_simulated("register counts are the GPU's")
def test_resource_queries_follow_the_compile_options():
    def body(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * 2.0 + 1.0

    bounded = cuda.jit(launch_bounds=128)(body)
    bounded.compile("void(float64[::1])")
    assert bounded.get_max_threads_per_block("void(float64[::1])") == 128  # PTX .maxntid 128
    few = cuda.jit(max_registers=24)(body)
    few.compile("void(float64[::1])")
    assert few.get_regs_per_thread("void(float64[::1])") <= 24


def test_constant_memory_size(rng):
    table = rng.standard_normal(100)

    @cuda.jit
    def k(out):
        c = cuda.const.array_like(table)
        i = cuda.grid(1)
        if i < out.size:
            out[i] = c[i]

    out = cuda.to_device(support.poisoned(100, np.float64))
    k[1, 128](out)
    np.testing.assert_array_equal(out.copy_to_host(), table)
    (size,) = k.get_const_mem_size().values()
    assert size >= 800


def test_specialize(rng):
    @cuda.jit
    def axpb(a, x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + 1

    x = cuda.to_device(rng.standard_normal(256).astype(np.float32))
    out = cuda.to_device(support.poisoned(256, np.float32))
    special = axpb.specialize(np.float32(2), x, out)
    assert special.specialized and not axpb.specialized
    assert len(special.overloads) == 1
    assert axpb.specialize(np.float32(2), x, out) is special
    special[2, 128](np.float32(2), x, out)
    np.testing.assert_allclose(out.copy_to_host(), 2 * x.copy_to_host().astype(np.float64) + 1, rtol=1e-6)
    assert isinstance(special.get_regs_per_thread(), int)
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        special[2, 128](np.float32(2), cuda.to_device(np.zeros(256, np.complex128)), out)
    with pytest.raises(RuntimeError, match="already"):
        special.specialize(np.float32(2), x, out)


def test_call_with_a_configuration(rng):
    values = rng.integers(0, 1000, 512).astype(np.int64)
    source, out = cuda.to_device(values), cuda.to_device(support.poisoned(512, np.int64))
    _copy_plus_one.call((source, out), _copy_plus_one.configure(4, 128))
    np.testing.assert_array_equal(out.copy_to_host(), values + 1)


@pytest.mark.not_simulated("SASS is the GPU's machine code")
def test_inspect_sass():
    from cuda import pathfinder

    if pathfinder.find_nvidia_binary_utility("nvdisasm") is None:
        pytest.skip("nvdisasm is not installed")
    _copy_plus_one.compile("void(int64[::1], int64[::1])")  # whatever ran before in this process
    sass = _copy_plus_one.inspect_sass("void(int64[::1], int64[::1])")
    assert "EXIT" in sass and "_copy_plus_one" in sass
    assert "digraph" in _copy_plus_one.inspect_sass_cfg("void(int64[::1], int64[::1])")


# ---- CUDA IPC -------------------------------------------------------------------------------


_IPC_CHILD = """
import base64, pickle, sys
import numpy as np
from cumlir import cuda

handle, raw, shape = pickle.loads(base64.b64decode(sys.stdin.read()))
with handle as d:  # the IpcArrayHandle of the parent's array
    host = d.copy_to_host()
    d.copy_to_device(2 * host)  # written into the parent's memory
with cuda.open_ipc_array(raw, shape, np.int64, offset=8 * 5) as tail:  # the same memory, 5 elements in
    tail_host = tail.copy_to_host()
print(base64.b64encode(pickle.dumps((host, tail_host))).decode())
"""


@pytest.mark.not_simulated("IPC handles are the CUDA driver's")
def test_ipc_shares_an_array_with_another_process(rng):
    import base64
    import pickle

    values = rng.integers(-(2**40), 2**40, 64)
    d = cuda.to_device(values)
    handle = d.get_ipc_handle()
    raw = handle._ipc_handle.handle
    view = d[5:]  # a view: its handle carries the offset into the allocation
    assert view.get_ipc_handle()._ipc_handle.offset == handle._ipc_handle.offset + 8 * 5
    message = base64.b64encode(pickle.dumps((handle, raw, (59,)))).decode()
    done = subprocess.run([sys.executable, "-c", _IPC_CHILD], input=message, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    seen, tail = pickle.loads(base64.b64decode(done.stdout.strip().splitlines()[-1]))
    np.testing.assert_array_equal(seen, values)
    np.testing.assert_array_equal(tail, 2 * values[5:])  # read after the child's write
    np.testing.assert_array_equal(d.copy_to_host(), 2 * values)
