"""The simulator's CUDA driver (cumlir/runtime/simulator/driver.py) called directly, as the
runtime calls it: result tuples, memory in host memory, synchronous streams and events, and
modules and launches handed to a fake engine (no CPU code is compiled here)."""

import ctypes
import sys
import threading
import types

import numpy as np
import pytest
from cuda.bindings import driver as real

from cumlir.runtime import driver as drv
from cumlir.runtime.simulator import driver as sim
from cumlir.runtime.simulator import driver_state

SUCCESS = real.CUresult.CUDA_SUCCESS
INVALID_VALUE = real.CUresult.CUDA_ERROR_INVALID_VALUE
INVALID_HANDLE = real.CUresult.CUDA_ERROR_INVALID_HANDLE
INVALID_CONTEXT = real.CUresult.CUDA_ERROR_INVALID_CONTEXT
NOT_FOUND = real.CUresult.CUDA_ERROR_NOT_FOUND
NOT_SUPPORTED = real.CUresult.CUDA_ERROR_NOT_SUPPORTED


class FakeFunction:
    """A kernel writing out[i] = i * i for i < n, its parameters (out, n) read through the
    void* array as the engine reads them; its launches recorded."""

    def __init__(self, name, static_shared=0):
        self.name = name
        self.attributes = {"MAX_THREADS_PER_BLOCK": 1024, "SHARED_SIZE_BYTES": static_shared, "NUM_REGS": 24}
        self.launches = []
        self.error = None  # raised by the next launch

    def set_attribute(self, name, value):
        self.attributes[name] = value

    def launch(self, grid, block, shared, params, cooperative):
        self.launches.append((grid, block, shared, params, cooperative))
        if self.error is not None:
            raise self.error
        if params:
            pointers = (ctypes.c_void_p * 2).from_address(params)
            out = ctypes.c_uint64.from_address(pointers[0]).value
            n = ctypes.c_int64.from_address(pointers[1]).value
            values = (ctypes.c_int64 * n).from_address(out)
            for i in range(n):
                values[i] = i * i


class FakeModule:
    def __init__(self, image):
        self.image = image
        self.functions = {"square": FakeFunction("square"), "shared": FakeFunction("shared", static_shared=4096)}
        self.counter = np.arange(4, dtype=np.int64)  # the global "counter": 32 bytes of the module's

    def function(self, name):
        return self.functions[name]

    def global_address(self, name):
        if name != "counter":
            raise KeyError(name)
        return self.counter.ctypes.data, self.counter.nbytes


@pytest.fixture
def engine(monkeypatch):
    """The fake engine in place of the simulator's, its loaded modules in ``loaded``."""
    fake = types.ModuleType("cumlir.runtime.simulator.engine")
    fake.loaded = []

    def load_module(image):
        module = FakeModule(image)
        fake.loaded.append(module)
        return module

    fake.load_module = load_module
    monkeypatch.setitem(sys.modules, "cumlir.runtime.simulator.engine", fake)
    return fake


@pytest.fixture
def ctx():
    """The primary context, retained and current on this thread; everything made in it is
    freed afterwards."""
    device = sim.cuDeviceGet(0)[1]
    err, context = sim.cuDevicePrimaryCtxRetain(device)
    assert err == SUCCESS
    assert sim.cuCtxPushCurrent(context) == (SUCCESS,)
    yield context
    while int(sim.cuCtxGetCurrent()[1]):
        sim.cuCtxPopCurrent()
    assert sim.cuDevicePrimaryCtxRelease(device) == (SUCCESS,)  # the last reference: a reset


def alloc(nbytes):
    err, pointer = sim.cuMemAlloc(nbytes)
    assert err == SUCCESS
    return int(pointer)


def load(engine):
    err, module = sim.cuModuleLoadData(b"host code")
    assert err == SUCCESS
    return module, engine.loaded[-1]


def square_params(out, n):
    """The void* array of (out, n), and what keeps its values alive."""
    values = (ctypes.c_uint64(out), ctypes.c_int64(n))
    params = (ctypes.c_void_p * 2)(*(ctypes.addressof(v) for v in values))
    return params, values


# ---- the device, errors, contexts ----


def test_device():
    assert sim.cuInit(0) == (SUCCESS,)
    assert sim.cuDriverGetVersion() == (SUCCESS, 13000)
    assert sim.cuDeviceGetCount() == (SUCCESS, 1)
    err, device = sim.cuDeviceGet(0)
    assert err == SUCCESS and int(device) == 0
    err, name = sim.cuDeviceGetName(256, device)
    assert len(name) == 256 and name.split(b"\0")[0] == b"cumlir simulator"
    err, uuid = sim.cuDeviceGetUuid(device)
    assert len(bytes(uuid.bytes)) == 16
    attribute = real.CUdevice_attribute

    def value(name):
        err, v = sim.cuDeviceGetAttribute(getattr(attribute, f"CU_DEVICE_ATTRIBUTE_{name}"), device)
        assert err == SUCCESS
        return v

    assert (value("COMPUTE_CAPABILITY_MAJOR"), value("COMPUTE_CAPABILITY_MINOR")) == (9, 0)
    assert [value(f"MAX_BLOCK_DIM_{a}") for a in "XYZ"] == [1024, 1024, 64]
    assert [value(f"MAX_GRID_DIM_{a}") for a in "XYZ"] == [2**31 - 1, 65535, 65535]
    assert value("WARP_SIZE") == 32 and value("MAX_THREADS_PER_BLOCK") == 1024
    assert value("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN") == 232448
    assert value("SHARED_MEMORY_PER_BLOCK") == 49152  # an alias of MAX_SHARED_MEMORY_PER_BLOCK
    assert value("MULTIPROCESSOR_COUNT") >= 1
    assert value("UNIFIED_ADDRESSING") == value("COOPERATIVE_LAUNCH") == 1
    assert value("PCI_BUS_ID") == value("INTEGRATED") == value("MAXIMUM_TEXTURE1D_WIDTH") == 0
    assert sim.cuDeviceGet(1) == (real.CUresult.CUDA_ERROR_INVALID_DEVICE, None)
    assert sim.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1)[0] != SUCCESS


def test_error_names_and_strings():
    for code in real.CUresult:
        err, name = sim.cuGetErrorName(code)
        assert err == SUCCESS and name.decode() == code.name
        err, text = sim.cuGetErrorString(code)
        assert err == SUCCESS and text
    assert sim.cuGetErrorString(INVALID_VALUE) == (SUCCESS, b"invalid argument")
    assert sim.cuGetErrorName(123456) == (INVALID_VALUE, None)


def test_errors_read_by_the_runtime_check(monkeypatch, ctx):
    monkeypatch.setattr(drv, "_driver", sim)
    with pytest.raises(
        drv.CudaDriverError, match=r"cuMemFree failed: CUDA_ERROR_INVALID_VALUE: invalid argument \(1\)"
    ):
        drv.check("cuMemFree", sim.cuMemFree(0x1234))
    pointer = drv.check("cuMemAlloc", sim.cuMemAlloc(64))
    assert isinstance(pointer, real.CUdeviceptr)
    base, size = drv.check("cuMemGetAddressRange", sim.cuMemGetAddressRange(pointer))
    assert (int(base), size) == (int(pointer), 64)
    with pytest.raises(drv.CudaDriverError, match="CUDA_ERROR_NOT_SUPPORTED"):
        drv.check("cuIpcGetMemHandle", sim.cuIpcGetMemHandle(pointer))


def test_no_context_no_memory():
    assert int(sim.cuCtxGetCurrent()[1]) == 0
    assert sim.cuMemAlloc(16) == (INVALID_CONTEXT, None)
    assert sim.cuCtxGetDevice() == (INVALID_CONTEXT, None)
    assert sim.cuCtxPopCurrent() == (INVALID_CONTEXT, None)
    assert sim.cuCtxSetCurrent(real.CUcontext(0x999)) == (INVALID_CONTEXT,)


def test_contexts_are_per_thread(ctx):
    err, current = sim.cuCtxGetCurrent()
    assert current == ctx and int(sim.cuCtxGetDevice()[1]) == 0
    seen = []

    def other():
        seen.append(int(sim.cuCtxGetCurrent()[1]))
        sim.cuCtxSetCurrent(ctx)
        seen.append(int(sim.cuCtxGetCurrent()[1]))
        sim.cuCtxSetCurrent(None)
        seen.append(int(sim.cuCtxGetCurrent()[1]))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [0, int(ctx), 0]
    assert sim.cuCtxGetCurrent()[1] == ctx  # this thread's is untouched
    assert sim.cuCtxPopCurrent() == (SUCCESS, ctx)
    assert int(sim.cuCtxGetCurrent()[1]) == 0


# ---- memory ----


@pytest.mark.parametrize("dtype", ["i1", "u2", "i4", "f4", "f8", "c16", "?"])
def test_round_trip(ctx, rng, dtype):
    host = (rng.standard_normal((7, 13)) * 100).astype(dtype)
    a, b = alloc(host.nbytes), alloc(host.nbytes)
    assert a % 256 == 0 and b % 256 == 0
    assert sim.cuMemcpyHtoD(a, host.ctypes.data, host.nbytes) == (SUCCESS,)
    assert sim.cuMemcpyDtoD(b, a, host.nbytes) == (SUCCESS,)
    back = np.empty_like(host)
    assert sim.cuMemcpyDtoH(back.ctypes.data, real.CUdeviceptr(b), host.nbytes) == (SUCCESS,)
    np.testing.assert_array_equal(back, host)
    assert sim.cuMemFree(a) == sim.cuMemFree(b) == (SUCCESS,)
    assert sim.cuMemFree(a) == (INVALID_VALUE,)  # freed already


def test_fresh_memory_is_poisoned_managed_and_host_memory_zeroed(ctx):
    device = alloc(100)
    back = np.empty(100, np.uint8)
    sim.cuMemcpyDtoH(back.ctypes.data, device, 100)
    assert (back == 0xCB).all()
    err, managed = sim.cuMemAllocManaged(100, int(real.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    assert err == SUCCESS and not ctypes.string_at(int(managed), 100).strip(b"\0")
    err, host = sim.cuMemHostAlloc(100, 0)
    assert err == SUCCESS and isinstance(host, int) and not ctypes.string_at(host, 100).strip(b"\0")
    assert sim.cuMemFreeHost(host) == (SUCCESS,)
    assert sim.cuMemFree(managed) == (SUCCESS,)


def test_memset(ctx):
    pointer = alloc(64)
    view = np.ctypeslib.as_array((ctypes.c_uint8 * 64).from_address(pointer))
    assert sim.cuMemsetD8(pointer, 0x1FF, 64) == (SUCCESS,)
    assert (view == 0xFF).all()
    assert sim.cuMemsetD16(pointer + 2, 0xBEEF, 3) == (SUCCESS,)
    assert list(view[:10].view(np.uint16)) == [0xFFFF, 0xBEEF, 0xBEEF, 0xBEEF, 0xFFFF]
    assert sim.cuMemsetD32(pointer + 8, 7, 2) == (SUCCESS,)
    assert list(view[8:16].view(np.uint32)) == [7, 7]
    assert sim.cuMemsetD32(pointer + 2, 0, 1) == (INVALID_VALUE,)  # misaligned
    assert sim.cuMemsetD8(pointer, 0, 65) == (INVALID_VALUE,)  # past the allocation


def test_copies_stay_in_allocations(ctx):
    pointer = alloc(32)
    host = np.zeros(64, np.uint8)
    assert sim.cuMemcpyHtoD(pointer, host.ctypes.data, 33) == (INVALID_VALUE,)
    assert sim.cuMemcpyDtoH(host.ctypes.data, pointer + 16, 17) == (INVALID_VALUE,)
    assert sim.cuMemcpyDtoH(host.ctypes.data, host.ctypes.data, 1) == (INVALID_VALUE,)  # not device memory
    assert sim.cuMemcpyDtoH(host.ctypes.data, pointer + 16, 16) == (SUCCESS,)
    assert sim.cuMemcpyHtoD(0x10, host.ctypes.data, 0) == (SUCCESS,)  # nothing to copy


def test_zero_size_allocations(ctx):
    first, second = alloc(0), alloc(0)
    assert first and second and first != second
    err, base, size = sim.cuMemGetAddressRange(first)
    assert (err, int(base), size) == (SUCCESS, first, 0)
    assert sim.cuMemcpyHtoD(first, 0, 0) == (SUCCESS,)
    assert sim.cuMemsetD8(first, 0, 1) == (INVALID_VALUE,)
    assert sim.cuMemFree(first) == (SUCCESS,)


def test_address_ranges_and_memory_info(ctx):
    err, free, total = sim.cuMemGetInfo()
    assert err == SUCCESS and 0 < free <= total <= 16 << 30
    pointer = alloc(1 << 20)
    assert sim.cuMemGetInfo()[1] <= free - (1 << 20) or sim.cuMemGetInfo()[1] < free
    err, base, size = sim.cuMemGetAddressRange(pointer + 12345)
    assert (err, int(base), size) == (SUCCESS, pointer, 1 << 20)
    assert sim.cuMemGetAddressRange(pointer + (1 << 20))[0] == NOT_FOUND
    assert sim.cuMemGetAddressRange(pointer - 1) == (NOT_FOUND, None, None)
    assert sim.cuMemAlloc(1 << 60) == (real.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None)


def test_registered_host_memory(ctx):
    host = np.arange(1000, dtype=np.int32)
    address = host.ctypes.data
    flags = real.CU_MEMHOSTREGISTER_DEVICEMAP
    assert sim.cuMemHostRegister(address, host.nbytes, flags) == (SUCCESS,)
    already = real.CUresult.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    assert sim.cuMemHostRegister(address + 8, 16, flags) == (already,)
    err, device = sim.cuMemHostGetDevicePointer(address + 40, 0)
    assert (err, int(device)) == (SUCCESS, address + 40)  # no copy: the same bytes
    assert sim.cuMemsetD32(int(device), 0, 2) == (SUCCESS,)
    assert list(host[8:13]) == [8, 9, 0, 0, 12]
    assert sim.cuMemHostUnregister(address) == (SUCCESS,)
    assert sim.cuMemHostUnregister(address) == (real.CUresult.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,)
    assert sim.cuMemHostGetDevicePointer(address, 0) == (INVALID_VALUE, None)
    err, pinned = sim.cuMemHostAlloc(64, 0)  # pinned already
    assert sim.cuMemHostRegister(pinned, 64, 0) == (already,)
    assert int(sim.cuMemHostGetDevicePointer(pinned, 0)[1]) == pinned


def test_pointer_attributes(ctx):
    attribute = real.CUpointer_attribute
    device = alloc(64)
    err, managed = sim.cuMemAllocManaged(64, 1)

    def get(name, pointer):
        return sim.cuPointerGetAttribute(getattr(attribute, f"CU_POINTER_ATTRIBUTE_{name}"), pointer)

    assert get("IS_MANAGED", device) == (SUCCESS, False)
    assert get("IS_MANAGED", managed) == (SUCCESS, True)
    assert int(get("MEMORY_TYPE", device + 8)[1]) == int(real.CUmemorytype.CU_MEMORYTYPE_DEVICE)
    assert get("CONTEXT", device)[1] == ctx
    assert int(get("RANGE_START_ADDR", device + 8)[1]) == device
    assert get("MEMORY_TYPE", np.zeros(4).ctypes.data) == (INVALID_VALUE, None)


def test_allocations_from_many_threads(ctx):
    found = []

    def work():
        sim.cuCtxPushCurrent(ctx)
        mine = [alloc(n) for n in range(0, 4096, 97)]
        for pointer in mine[::2]:
            assert sim.cuMemFree(pointer) == (SUCCESS,)
        found.extend(mine[1::2])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == len(found) == 8 * 21
    for pointer in found:
        assert int(sim.cuMemGetAddressRange(pointer)[1]) == pointer


def test_reset_frees_everything(ctx):
    pointer = alloc(64)
    err, stream = sim.cuStreamCreate(0)
    assert sim.cuDevicePrimaryCtxReset(0) == (SUCCESS,)
    assert sim.cuMemFree(pointer) == (INVALID_VALUE,)
    assert sim.cuStreamSynchronize(stream) == (INVALID_HANDLE,)


# ---- streams and events ----


def test_streams(ctx):
    err, stream = sim.cuStreamCreate(0)
    assert err == SUCCESS and isinstance(stream, real.CUstream) and int(stream) not in (0, 1, 2)
    assert int(sim.cuStreamCreate(0)[1]) != int(stream)
    assert sim.cuStreamGetCtx(stream) == (SUCCESS, ctx)
    assert sim.cuStreamGetCtx(0) == (SUCCESS, ctx)
    for handle in (stream, int(stream), 0, real.CU_STREAM_LEGACY, real.CU_STREAM_PER_THREAD):
        assert sim.cuStreamSynchronize(handle) == (SUCCESS,)
    host = np.arange(8.0)
    pointer = alloc(host.nbytes)
    assert sim.cuMemcpyHtoDAsync(pointer, host.ctypes.data, host.nbytes, stream) == (SUCCESS,)
    back = np.empty_like(host)
    assert sim.cuMemcpyDtoHAsync(back.ctypes.data, pointer, host.nbytes, stream) == (SUCCESS,)
    np.testing.assert_array_equal(back, host)  # done when queued
    assert sim.cuStreamDestroy(stream) == (SUCCESS,)
    assert sim.cuStreamDestroy(stream) == (INVALID_HANDLE,)
    assert sim.cuStreamSynchronize(stream) == (INVALID_HANDLE,)
    assert sim.cuStreamGetCtx(stream) == (INVALID_HANDLE, None)
    assert sim.cuMemcpyHtoDAsync(pointer, host.ctypes.data, 8, stream) == (INVALID_HANDLE,)


def test_events(ctx):
    err, start = sim.cuEventCreate(0)
    err, end = sim.cuEventCreate(0)
    assert sim.cuEventElapsedTime(start, end) == (INVALID_HANDLE, None)  # not recorded
    assert sim.cuEventRecord(start, 0) == (SUCCESS,)
    assert sim.cuEventRecord(end, 0) == (SUCCESS,)
    assert sim.cuEventSynchronize(end) == sim.cuEventQuery(end) == (SUCCESS,)
    err, ms = sim.cuEventElapsedTime(start, end)
    assert err == SUCCESS and isinstance(ms, float) and ms >= 0
    err, untimed = sim.cuEventCreate(int(real.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    sim.cuEventRecord(untimed, 0)
    assert sim.cuEventElapsedTime(start, untimed) == (INVALID_HANDLE, None)
    err, stream = sim.cuStreamCreate(0)
    assert sim.cuStreamWaitEvent(stream, untimed, 0) == (SUCCESS,)
    assert sim.cuEventDestroy(untimed) == (SUCCESS,)
    assert sim.cuEventQuery(untimed) == (INVALID_HANDLE,)
    assert sim.cuStreamWaitEvent(stream, untimed, 0) == (INVALID_HANDLE,)


# ---- modules, functions, launches ----


def test_modules_and_globals(ctx, engine):
    module, fake = load(engine)
    assert fake.image == b"host code"
    err, function = sim.cuModuleGetFunction(module, b"square")
    assert err == SUCCESS and isinstance(function, real.CUfunction)
    assert sim.cuModuleGetFunction(module, b"square")[1] == function  # one handle per name
    assert sim.cuModuleGetFunction(module, b"missing") == (NOT_FOUND, None)
    err, pointer, size = sim.cuModuleGetGlobal(module, b"counter")
    assert (err, int(pointer), size) == (SUCCESS, fake.counter.ctypes.data, 32)
    record = (ctypes.c_int64 * 4)()
    assert sim.cuMemcpyDtoH(ctypes.addressof(record), pointer, 32) == (SUCCESS,)
    assert list(record) == [0, 1, 2, 3]
    assert sim.cuMemsetD8(pointer, 0, 16) == (SUCCESS,)
    assert list(fake.counter) == [0, 0, 2, 3]
    assert sim.cuModuleGetGlobal(module, b"missing") == (NOT_FOUND, None, None)  # nrt_stats unpacks three
    assert sim.cuModuleUnload(module) == (SUCCESS,)
    assert sim.cuModuleUnload(module) == (INVALID_HANDLE,)
    assert sim.cuFuncGetAttribute(real.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, function)[0] == INVALID_HANDLE
    assert sim.cuMemcpyDtoH(ctypes.addressof(record), pointer, 32) == (INVALID_VALUE,)  # its global is gone


def test_function_attributes(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"shared")[1]
    attribute = real.CUfunction_attribute
    assert sim.cuFuncGetAttribute(attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, function) == (SUCCESS, 24)
    assert sim.cuFuncGetAttribute(attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) == (SUCCESS, 4096)
    dynamic = attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    assert sim.cuFuncGetAttribute(dynamic, function) == (SUCCESS, 49152 - 4096)
    assert sim.cuFuncGetAttribute(attribute.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, function) == (SUCCESS, 0)
    assert sim.cuFuncSetAttribute(function, dynamic, 100000) == (SUCCESS,)
    assert sim.cuFuncGetAttribute(dynamic, function) == (SUCCESS, 100000)
    assert fake.functions["shared"].attributes["MAX_DYNAMIC_SHARED_SIZE_BYTES"] == 100000
    assert sim.cuFuncSetAttribute(function, dynamic, 232448) == (INVALID_VALUE,)  # with the static bytes, too many


def test_launch(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    n = 40
    out = alloc(n * 8)
    params, _values = square_params(out, n)
    address = ctypes.addressof(params)
    err, stream = sim.cuStreamCreate(0)
    assert sim.cuLaunchKernel(function, 2, 3, 1, 32, 2, 1, 128, stream, address, 0) == (SUCCESS,)
    assert fake.functions["square"].launches == [((2, 3, 1), (32, 2, 1), 128, address, False)]
    back = np.empty(n, np.int64)
    sim.cuMemcpyDtoH(back.ctypes.data, out, n * 8)
    np.testing.assert_array_equal(back, np.arange(n) ** 2)
    assert sim.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0) == (SUCCESS,)  # no parameters
    assert sim.cuLaunchCooperativeKernel(function, 4, 1, 1, 64, 1, 1, 0, 0, address) == (SUCCESS,)
    assert fake.functions["square"].launches[-1][-1] is True


@pytest.mark.parametrize(
    "grid, block, shared",
    [
        ((1, 1, 1), (1025, 1, 1), 0),
        ((1, 1, 1), (1, 1, 65), 0),
        ((0, 1, 1), (1, 1, 1), 0),
        ((1, 1, 1), (32, 1, 1), 49153),
    ],
)
def test_launch_refused(ctx, engine, grid, block, shared):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    assert sim.cuLaunchKernel(function, *grid, *block, shared, 0, 0, 0) == (INVALID_VALUE,)
    assert fake.functions["square"].launches == []


def test_launch_handles(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    assert sim.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0x777, 0, 0) == (INVALID_HANDLE,)  # no such stream
    assert sim.cuLaunchKernel(real.CUfunction(0x5), 1, 1, 1, 1, 1, 1, 0, 0, 0, 0) == (INVALID_HANDLE,)
    too_many = sim.SMS * 2 + 1  # blocks of 1024 threads: two per SM
    assert sim.cuLaunchCooperativeKernel(function, too_many, 1, 1, 1024, 1, 1, 0, 0, 0) == (
        real.CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
    )


def test_launch_exceptions_propagate_unchanged(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    error = IndexError("thread (3, 0, 0) of block (0, 0, 0): index 9 is out of bounds")
    fake.functions["square"].error = error
    with pytest.raises(IndexError) as raised:
        sim.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0)
    assert raised.value is error


def test_synchronizing_waits_for_a_launch_on_another_thread(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    started, release = threading.Event(), threading.Event()
    fake.functions["square"].launch = lambda *args: (started.set(), release.wait(10))
    pointer = alloc(64)
    order = []

    def other():
        sim.cuCtxPushCurrent(ctx)
        started.wait(10)
        assert sim.cuMemFree(pointer) == (SUCCESS,)  # a free does not wait ...
        order.append("freed")
        assert driver_state._retired  # ... but the bytes live while the kernel may use them
        sim.cuCtxSynchronize()  # synchronizing does
        order.append("synchronized")

    thread = threading.Thread(target=other)
    thread.start()
    threading.Timer(0.2, lambda: (order.append("kernel done"), release.set())).start()
    assert sim.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0) == (SUCCESS,)
    thread.join()
    assert order == ["freed", "kernel done", "synchronized"]
    assert not driver_state._retired


def launch_config(grid, block, shared, stream, attributes=()):
    config = real.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = shared
    config.hStream = real.CUstream(stream)
    config.attrs = list(attributes)
    config.numAttrs = len(attributes)
    return config


def test_launch_kernel_ex(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    pdl = real.CUlaunchAttribute()
    pdl.id = real.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    pdl.value.programmaticStreamSerializationAllowed = 1
    config = launch_config((3, 2, 1), (64, 1, 1), 256, 0, [pdl])
    assert sim.cuLaunchKernelEx(config, function, 0, 0) == (SUCCESS,)
    assert fake.functions["square"].launches == [((3, 2, 1), (64, 1, 1), 256, 0, False)]
    assert sim.cuLaunchKernelEx(launch_config((1, 1, 1), (1, 1, 1), 0, 0x777), function, 0, 0) == (INVALID_HANDLE,)


def test_clusters_are_refused(ctx, engine):
    module, fake = load(engine)
    function = sim.cuModuleGetFunction(module, b"square")[1]
    cluster = real.CUlaunchAttribute()
    cluster.id = real.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    dims = cluster.value.clusterDim
    dims.x, dims.y, dims.z = 2, 1, 1
    config = launch_config((4, 1, 1), (32, 1, 1), 0, 0, [cluster])
    with pytest.raises(NotImplementedError, match="thread-block clusters are not supported by the cumlir simulator"):
        sim.cuLaunchKernelEx(config, function, 0, 0)
    with pytest.raises(NotImplementedError, match="thread-block clusters"):
        sim.cuOccupancyMaxPotentialClusterSize(function, config)
    assert fake.functions["square"].launches == []


def test_occupancy(ctx, engine):
    module, fake = load(engine)
    plain = sim.cuModuleGetFunction(module, b"square")[1]
    shared = sim.cuModuleGetFunction(module, b"shared")[1]  # 4096 static bytes
    blocks = sim.cuOccupancyMaxActiveBlocksPerMultiprocessor
    assert blocks(plain, 1024, 0) == (SUCCESS, 2)
    assert blocks(plain, 100, 0) == (SUCCESS, 20)
    assert blocks(plain, 32, 0) == (SUCCESS, 32)  # at most 32 blocks
    assert blocks(shared, 32, 8192) == (SUCCESS, 233472 // (4096 + 8192 + 1024))  # 17
    assert blocks(plain, 32, 40000) == (SUCCESS, 233472 // (40000 + 1024))
    assert blocks(plain, 2048, 0) == (SUCCESS, 0)
    err, min_grid, size = sim.cuOccupancyMaxPotentialBlockSize(plain, None, 0, 1024)
    assert (err, size, min_grid) == (SUCCESS, 1024, 2 * sim.SMS)
    # under 100 threads: 64 keeps 2048 threads resident (32 blocks), 96 only 2016 (21)
    assert sim.cuOccupancyMaxPotentialBlockSize(plain, None, 0, 100)[2] == 64


# ---- what is not simulated; the real module's names ----


def test_not_simulated(ctx):
    pointer = alloc(64)
    assert sim.cuIpcGetMemHandle(pointer) == (NOT_SUPPORTED, None)
    assert sim.cuIpcOpenMemHandle(real.CUipcMemHandle(), 1) == (NOT_SUPPORTED, None)
    assert sim.cuDeviceCanAccessPeer(0, 0) == (NOT_SUPPORTED, None)
    assert sim.cuLinkCreate(0, [], []) == (NOT_SUPPORTED, None)
    assert sim.cuLinkComplete(None) == (NOT_SUPPORTED, None, None)
    assert sim.cuTensorMapEncodeTiled()[0] == NOT_SUPPORTED
    assert sim.cuProfilerStart() == sim.cuProfilerStop() == (SUCCESS,)
    assert sim.cuCtxSetLimit(real.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 20) == (SUCCESS,)
    with pytest.raises(AttributeError, match="cuGraphCreate"):
        sim.cuGraphCreate
    assert not hasattr(sim, "cuMemAllocAsync")


def test_the_real_modules_names():
    assert sim.CUresult is real.CUresult and sim.CUstream is real.CUstream
    assert sim.CUlaunchConfig is real.CUlaunchConfig and sim.CU_STREAM_LEGACY == 1
    assert sim.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE is real.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE
    assert sim.cuuint64_t is real.cuuint64_t  # a type, not a driver function


def test_what_a_reset_freed_is_not_freed_again(simulated, monkeypatch):
    """close() resets the primary context, freeing all that was made in it: an array, an
    event, a stream, pinned memory or a module from before must not be freed again when
    garbage-collected later (an address may by then name an allocation of the new context,
    a handle a freed structure)."""
    import gc

    import numpy as np

    from cumlir import cuda

    freed = []
    for name in ("cuMemFree", "cuMemFreeHost", "cuEventDestroy", "cuStreamDestroy", "cuModuleUnload"):
        original = getattr(simulated, name)

        def recording(handle, original=original, name=name):
            freed.append((name, int(handle)))
            return original(handle)

        monkeypatch.setattr(simulated, name, recording)

    @cuda.jit
    def inc(a):
        a[cuda.grid(1)] += 1

    old = [cuda.to_device(np.zeros(8)), cuda.event(), cuda.stream(), cuda.pinned_array(8)]
    inc[1, 8](old[0])
    cuda.close()
    kept = cuda.to_device(np.arange(8.0))  # in the new context
    del old
    inc = None  # the kernel and its module
    gc.collect()
    assert freed == [], f"freed again after the reset: {freed}"
    after = cuda.to_device(np.zeros(4))
    del after
    gc.collect()
    assert [name for name, _ in freed] == ["cuMemFree"]  # what the new context made is freed
    np.testing.assert_array_equal(kept.copy_to_host(), np.arange(8.0))
