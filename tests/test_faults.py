"""Faults injected into the driver, the device heap, the disk cache and the compiler: each
raises a Python exception naming the driver call and what cumlir was doing, leaks nothing
(the simulated device's memory, modules, streams and events are counted before and after),
and leaves the process able to compile and launch again with correct results.

Most run on the CPU simulator (its driver's functions are wrapped to fail, the way a GPU's
driver would answer); the disk cache's run under tests/fake_driver.py, since the cache keeps
GPU cubins only."""

import builtins
import errno
import gc
import importlib.util
import itertools
import textwrap
import threading
import warnings
from collections import namedtuple

import filelock
import numpy as np
import pytest

from cumlir import cache, compiler, cuda
from cumlir.cache import store
from cumlir.frontend_lock import FRONTEND_LOCK
from cumlir.runtime import driver as drv
from cumlir.runtime.driver import CudaDriverError
from cumlir.runtime.simulator import driver_kernels, driver_memory, driver_streams
from cumlir.runtime.simulator.errors import SimulatorError
from tests import fake_driver
from tests.simulator.conftest import simulating

OUT_OF_MEMORY = 2
INVALID_IMAGE = 200
NOT_FOUND = 500
ILLEGAL_ADDRESS = 700


_contexts_made = itertools.count(1 << 20)


@pytest.fixture
def simulated(monkeypatch):
    """The simulator on (tests/simulator/conftest.py), in a context of its own lifetime:
    buffers kept from an earlier test's simulated context (cuda.reduce's) are not taken
    for alive in this one, whose device was reset when that test ended."""
    monkeypatch.setattr(drv, "_resets", {0: next(_contexts_made)})
    with simulating(monkeypatch) as simulator:
        yield simulator


Live = namedtuple("Live", "device_bytes allocations modules streams events")


def live():
    """What the simulated device holds now: bytes of device memory, allocations (device,
    managed and pinned host memory), loaded modules, streams and events. Dropped objects are
    collected first: an exception's traceback holds the frames that made them."""
    gc.collect()
    allocations = sum(region.kind in ("device", "managed", "host") for region in driver_memory.regions.values())
    return Live(
        driver_memory._allocated,
        allocations,
        len(driver_kernels._modules),
        len(driver_streams._streams),
        len(driver_streams._events),
    )


def fail_call(monkeypatch, driver, name, code, nth=1):
    """Make the *nth* call of the driver function *name* fail with the CUresult *code*, as
    the driver does: nothing made, the error returned and its output None. The calls made so
    far are counted in the list returned."""
    real = getattr(driver, name)
    calls = []

    def failing(*args):
        calls.append(args)
        if len(calls) == nth:
            return (driver.CUresult(code), None)
        return real(*args)

    monkeypatch.setattr(driver, name, failing)
    return calls


def assert_free(lock_file):
    """No one holds the file lock *lock_file* (a cache entry's): it is taken at once."""
    lock = filelock.FileLock(str(lock_file), timeout=0)
    lock.acquire()
    lock.release()


# ---- kernels (module level: compiled once, loaded again in each test's fresh context) ----


def scale_add(a, b, r, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * r.w + b[i]


def add_one(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += 1


def scratch(n, out):
    """Each thread fills an array it makes on the device heap; thread 0 asks for *n* items."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        size = n if i == 0 else 4
        tmp = np.empty(size, np.float64)
        tmp[0] = i
        tmp[size - 1] = 2.0
        out[i] = tmp[0] + tmp[size - 1]


RECORD = np.dtype([("w", np.float64)])
scale_add_kernel = cuda.jit(scale_add)
add_one_kernel = cuda.jit(add_one)
scratch_kernel = cuda.jit(scratch)


@cuda.vectorize(["float32(float32, float32)"], target="cuda")
def hypot_ufunc(x, y):
    return (x * x + y * y) ** 0.5


def _sum(a, b):
    return a + b


sum_reduce = cuda.reduce(_sum)


# ---- 1. out of memory -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "nth"), [("cuMemAlloc", 1), ("cuMemAlloc", 2), ("cuMemAlloc", 3), ("cuMemAlloc", 4), ("cuMemcpyHtoD", 2)]
)
def test_out_of_memory_while_packing_a_launch_names_the_argument_frees_the_copies_and_launches_again(
    simulated, monkeypatch, call, nth
):
    """The device copies of a launch's NumPy arguments (a, b, out) and of its record
    argument (r, packed by reference into the parameter buffer) are made one by one: a
    cuMemAlloc failing at any of them frees those made before, and so does a copy into one
    failing (the copy it was to fill among them)."""
    a, b = np.arange(64.0), np.full(64, 0.5)
    r = np.zeros(1, RECORD)[0]
    r["w"] = 3.0
    out = np.zeros(64)
    scale_add_kernel[1, 64](a, b, r, out)  # loaded: what is counted from here is the launch's
    out[:] = 0
    before = live()
    with monkeypatch.context() as faults:
        calls = fail_call(faults, simulated, call, OUT_OF_MEMORY, nth)
        with pytest.raises(CudaDriverError) as caught:
            scale_add_kernel[1, 64](a, b, r, out)
    assert len(calls) == nth
    message = str(caught.value)
    assert message.startswith(f"launching kernel scale_add: argument {nth - 1}: copying a NumPy array of shape ")
    assert f"to the device: {call} failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory (2)" in message
    assert caught.value.code == OUT_OF_MEMORY and caught.value.call == call
    del caught
    assert (out == 0).all()  # nothing ran, nothing was copied back
    assert live() == before  # the copies made before the failing one are freed
    scale_add_kernel[1, 64](a, b, r, out)
    np.testing.assert_array_equal(out, a * 3.0 + b)
    assert live() == before


@pytest.mark.parametrize(
    ("call", "nth", "doing"),
    [
        ("ufunc", 1, "GPU ufunc hypot_ufunc: allocating 256 bytes"),  # its output
        ("ufunc", 2, "GPU ufunc hypot_ufunc: allocating 256 bytes"),  # a copy of an input
        ("reduce", 1, "cuda.reduce _sum: allocating 512 bytes"),  # the copy of the array
        ("reduce", 2, "cuda.reduce _sum: allocating 32768 bytes"),  # the blocks' partial results
        ("device_array", None, "allocating 1125899906842624 bytes"),  # more than the device has
    ],
)
def test_out_of_memory_in_a_ufunc_a_reduction_or_a_device_array_names_it_and_leaks_nothing(
    simulated, monkeypatch, call, nth, doing
):
    x, y = np.arange(64, dtype=np.float32), np.full(64, 2, np.float32)
    values = np.arange(64.0)
    stream = cuda.stream()  # cuda.reduce keeps a buffer per stream: on this one it makes its first

    def run(stream=0):
        if call == "ufunc":
            return hypot_ufunc(x, y, stream=stream)
        if call == "reduce":
            return sum_reduce(values, stream=stream)
        return cuda.device_array(1 << 50, np.uint8)  # the simulated device says out of memory itself

    if call != "device_array":
        run()  # compiled and loaded: what is counted from here is the call's
    before = live()
    with monkeypatch.context() as faults:
        if nth is not None:
            fail_call(faults, simulated, "cuMemAlloc", OUT_OF_MEMORY, nth)
        with pytest.raises(CudaDriverError, match="cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY") as caught:
            run(stream)
    assert str(caught.value).startswith(f"{doing} of device memory on CUDA device 0: cuMemAlloc failed")
    del caught
    assert live() == before
    if call == "ufunc":
        np.testing.assert_allclose(run(stream), np.hypot(x, y), rtol=1e-6)
    elif call == "reduce":
        assert run(stream) == values.sum()
    else:
        assert cuda.device_array(64, np.uint8).shape == (64,)


# ---- 2. the device heap exhausted ------------------------------------------------------------


def test_an_exhausted_device_heap_fails_the_launch_naming_it_and_the_next_launch_runs(simulated, capfd):
    """Thread 0 asks the device heap for 2**59 bytes: the runtime prints what it asked for
    and traps, which ends the launch with an error (on the host the trap once ended the
    whole process with SIGILL); the other threads' arrays are given back."""
    out = np.zeros(64)
    scratch_kernel[1, 64](8, out)  # loaded: what is counted from here is the launch's
    before = live()
    with pytest.raises(SimulatorError) as caught:
        scratch_kernel[1, 64](1 << 56, out)
    message = str(caught.value)
    assert message.startswith("kernel scratch, block (0, 0, 0) trapped")
    assert "it allocates in device code: where it printed 'cumlir NRT: the device heap is exhausted'" in message
    del caught
    assert "cumlir NRT: the device heap is exhausted (allocating 576460752303423488 bytes)" in capfd.readouterr().out
    assert live() == before
    stats = scratch_kernel.nrt_stats()
    assert stats.alloc == stats.free and stats.mi_alloc == stats.mi_free == 64 + 63  # thread 0 made none
    out[:] = 0
    scratch_kernel[1, 64](8, out)
    np.testing.assert_array_equal(out, np.arange(64) + 2.0)
    stats = scratch_kernel.nrt_stats()
    assert stats.alloc == stats.free and stats.mi_alloc == stats.mi_free == 64 + 63 + 64
    assert live() == before


# ---- 3. a sticky error ------------------------------------------------------------------------

# what still answers in a context a kernel broke: devices, contexts, error names, reset
_UNAFFECTED = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName", "cuDeviceGetUuid",
    "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxReset",
    "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuCtxGetDevice",
    "cuGetErrorName", "cuGetErrorString",
}  # fmt: skip
# the driver functions giving two values after their CUresult; those giving none
_TWO_OUTPUTS = {"cuModuleGetGlobal", "cuMemGetInfo", "cuMemGetAddressRange", "cuOccupancyMaxPotentialBlockSize"}
_NO_OUTPUT = (
    "cuCtxSynchronize", "cuCtxSetLimit", "cuStreamSynchronize", "cuStreamDestroy", "cuStreamWaitEvent",
    "cuEventDestroy", "cuEventRecord", "cuEventSynchronize", "cuEventQuery", "cuMemFree", "cuMemcpy", "cuMemset",
    "cuMemHostRegister", "cuMemHostUnregister", "cuLaunch", "cuModuleUnload", "cuFuncSetAttribute",
)  # fmt: skip


def _failed(driver, name, code):
    """The result of the driver function *name* failing with *code*: each output None."""
    outputs = 2 if name in _TWO_OUTPUTS else 0 if name.startswith(_NO_OUTPUT) else 1
    return (driver.CUresult(code), *[None] * outputs)


def sticky_faults(monkeypatch, driver, code=ILLEGAL_ADDRESS):
    """Every driver function wrapped so that, once ``state["armed"]`` is set, the next
    kernel launched faults (an illegal address, say): its launch succeeds, and from then on
    every call in the context fails with *code*, as CUDA's sticky errors do, until the
    primary context is reset. Wrapped before the first launch: a fast launch keeps the
    driver's functions it calls."""
    state = {"armed": False, "broken": False}

    def wrap(name, real):
        def call(*args):
            if state["broken"]:
                return _failed(driver, name, code)
            result = real(*args)
            if name.startswith("cuLaunch") and state["armed"]:
                state["armed"], state["broken"] = False, True
            return result

        return call

    for name in dir(driver):
        if name.startswith("cu") and name[2:3].isupper() and name not in _UNAFFECTED:
            monkeypatch.setattr(driver, name, wrap(name, getattr(driver, name)))
    real_reset = driver.cuDevicePrimaryCtxReset

    def reset(device):
        state["broken"] = False
        return real_reset(device)

    monkeypatch.setattr(driver, "cuDevicePrimaryCtxReset", reset)
    return state


def test_a_sticky_error_says_so_and_cuda_close_lets_work_go_on(simulated, monkeypatch):
    before = live()
    state = sticky_faults(monkeypatch, simulated)
    d = cuda.to_device(np.zeros(64, np.float32))
    add_one_kernel[1, 64](d)
    assert sum_reduce(np.arange(64.0)) == 2016.0  # keeps its partial results' buffer
    state["armed"] = True
    with pytest.raises(CudaDriverError) as caught:  # waits for its end to copy the array back
        add_one_kernel[1, 64](np.zeros(64, np.float32))
    assert state["broken"]
    message = str(caught.value)
    assert message.startswith(
        "kernel add_one, after its launch: copying NumPy arguments back: cuStreamSynchronize failed: "
        "CUDA_ERROR_ILLEGAL_ADDRESS: illegal address"
    )
    assert "the context cannot run more work (the error is sticky): cuda.close() resets the device" in message
    with pytest.raises(CudaDriverError, match=r"^cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS.*cuda.close\(\)"):
        cuda.synchronize()
    with pytest.raises(CudaDriverError, match=r"^launching kernel add_one: cuLaunchKernel failed: CUDA_ERROR_ILLEGAL"):
        add_one_kernel[1, 64](d)  # the fast path
    with pytest.raises(CudaDriverError, match=r"^launching kernel add_one: argument 0: copying .* cuMemAlloc failed"):
        add_one_kernel[1, 64](np.zeros(64, np.float32))
    with pytest.raises(CudaDriverError, match=r"^cuda.reduce _sum: allocating 512 bytes .* cuMemAlloc failed"):
        sum_reduce(np.arange(64.0))
    with pytest.raises(CudaDriverError, match=r"^cuMemcpyDtoH failed: CUDA_ERROR_ILLEGAL_ADDRESS"):
        d.copy_to_host()
    del caught, d
    cuda.close()
    assert not state["broken"] and live() == before  # the reset freed what the broken context held
    d = cuda.to_device(np.zeros(64, np.float32))
    add_one_kernel[1, 64](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(64))
    # its buffer from before the reset went with the context: a new one is made
    assert sum_reduce(np.arange(64.0)) == 2016.0
    cuda.synchronize()


# ---- 4. a module that fails to load ----------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "code", "name"),
    [
        ("cuModuleLoadData", INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"),
        ("cuModuleLoadData", OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"),
        ("cuModuleGetFunction", NOT_FOUND, "CUDA_ERROR_NOT_FOUND"),  # loaded, then refused: unloaded again
    ],
)
def test_a_module_that_fails_to_load_names_the_kernel_and_the_next_launch_loads_it(
    simulated, monkeypatch, call, code, name
):
    x = np.zeros(64, np.float32)
    before = live()
    with monkeypatch.context() as faults:
        fail_call(faults, simulated, call, code)
        with pytest.raises(CudaDriverError) as caught:
            add_one_kernel[1, 64](x)
    assert str(caught.value).startswith(f"loading kernel add_one on CUDA device 0: {call} failed: {name}")
    del caught
    assert live() == before and (x == 0).all()
    add_one_kernel[1, 64](x)
    np.testing.assert_array_equal(x, np.ones(64))
    assert live().modules == before.modules + 1


# ---- 5. a disk-cache write failing half way --------------------------------------------------

CACHED = """
from cumlir import cuda

@cuda.jit(cache=True)
def add_one(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += 1
"""


def _fresh_module(path):
    """The module at *path* executed afresh: its kernel, a new dispatcher, reads the disk
    cache as another process would."""
    spec = importlib.util.spec_from_file_location("cached_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _HalfWritten:
    """A file whose first write stops half way on a full disk."""

    def __init__(self, file):
        self.file = file

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()

    def write(self, data):
        self.file.write(data[: len(data) // 2])
        self.file.flush()
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_cache_write_failing_half_way_warns_leaves_no_entry_and_the_launch_runs(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(folder))
    monkeypatch.delenv("CUMLIR_CACHE", raising=False)
    monkeypatch.delenv("CUMLIR_SIMULATOR", raising=False)
    monkeypatch.setenv("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "0")  # the one warning looked for is the cache's
    monkeypatch.setattr(store, "_warned", False)
    path = tmp_path / "cached_kernels.py"
    path.write_text(textwrap.dedent(CACHED))
    fake = fake_driver.install(monkeypatch)
    fake.slots = 4
    x = np.zeros(16, np.float32)
    with monkeypatch.context() as faults:
        faults.setattr(store, "open", lambda name, mode: _HalfWritten(builtins.open(name, mode)), raising=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _fresh_module(path).add_one[1, 16](x)
    assert len(fake.launches) == 1 and fake.launches[0]["kernel"] == "add_one"
    assert [w.category for w in caught] == [cache.CacheWarning]
    assert "could not write the kernel cache entry" in str(caught[0].message)
    assert "No space left on device" in str(caught[0].message)
    # neither the half-written temporary nor an entry: only the lock's file, and it is free
    (lock,) = folder.iterdir()
    assert lock.suffix == ".lock"
    assert_free(lock)
    assert fake._memory == {}  # the launch's copies were freed
    # a later process misses, compiles and writes the whole entry; the next one reads it
    second = _fresh_module(path).add_one
    second[1, 16](x)
    (overload,) = second.overloads.values()
    assert overload.compile_stats["cache"] == "miss"
    third = _fresh_module(path).add_one
    third[1, 16](x)
    (cached,) = third.overloads.values()
    assert cached.compile_stats["cache"] == "hit"
    assert cached.binary((9, 0)).cubin == overload.binary((9, 0)).cubin
    assert len(fake.launches) == 3


# ---- 6. a compile interrupted ------------------------------------------------------------------


def add_two(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += 2


def test_a_compile_interrupted_by_keyboardinterrupt_holds_no_lock_and_compiles_again_on_any_thread(
    simulated, monkeypatch, tmp_path
):
    """The interrupt lands as the codegen stage ends, after it consumed the MLIR module and
    before the stage counts as done: the kernel's compilation for the chip must not be taken
    up again from there (it once failed for good: "the compilation holds no MLIR module").
    With cache=True the compile runs under its cache entry's file lock."""
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(tmp_path))
    kernel = cuda.jit("void(float32[::1])", cache=True)(add_two)  # its overload is kept from the start
    real = compiler._RUN["codegen"]

    def interrupted(compilation):
        real(compilation)
        raise KeyboardInterrupt

    x = np.zeros(64, np.float32)
    with monkeypatch.context() as faults:
        faults.setitem(compiler._RUN, "codegen", interrupted)
        with pytest.raises(KeyboardInterrupt):
            kernel[1, 64](x)
    assert (x == 0).all()
    (overload,) = kernel.overloads.values()
    taken = []

    def take_locks():  # from another thread: a lock held by this one would keep it out
        for lock in (FRONTEND_LOCK, kernel._lock):
            taken.append(lock.acquire(timeout=5))
            if taken[-1]:
                lock.release()
        (lock_file,) = tmp_path.glob("*.lock")
        assert_free(lock_file)
        taken.append(True)

    other = threading.Thread(target=take_locks)
    other.start()
    other.join()
    assert taken == [True, True, True]
    results = []

    def launch():
        try:
            kernel[1, 64](x)
            results.append(x.copy())
        except BaseException as e:  # reported below, in the test's thread
            results.append(e)

    other = threading.Thread(target=launch)
    other.start()
    other.join(timeout=60)
    assert not other.is_alive()
    assert isinstance(results[0], np.ndarray), results[0]
    np.testing.assert_array_equal(results[0], np.full(64, 2))
    assert list(kernel.overloads.values()) == [overload]
    kernel[1, 64](x)  # and in this thread
    np.testing.assert_array_equal(x, np.full(64, 4))
