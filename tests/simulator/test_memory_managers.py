"""Numba-CUDA's External Memory Management plugin interface, on the simulator: a plugin
set with cuda.set_memory_manager (or named by NUMBA_CUDA_MEMORY_MANAGER) makes every
device allocation of the contexts made afterwards (device arrays, the copies of NumPy
arguments, ufunc outputs) and their pinned and mapped host memory, and frees it when
cumlir drops it; kernels compute the same results over its memory."""

import gc
import sys
import types

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime import driver as drv

pytestmark = pytest.mark.usefixtures("simulated")


class CountingManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
    """Device memory from the driver, every allocation and free recorded (by class, as
    cumlir makes the instance)."""

    made: list = []  # (size, address) of every memalloc
    freed: list = []  # the address of every finalized allocation
    events: list = []  # "initialize", "reset", "defer", "hostalloc"

    def initialize(self):
        CountingManager.events.append("initialize")

    def memalloc(self, size):
        cu = drv.driver()
        pointer = int(drv.check("cuMemAlloc", cu.cuMemAlloc(size)))
        CountingManager.made.append((size, pointer))

        def free():
            CountingManager.freed.append(pointer)
            cu.cuMemFree(pointer)

        return cuda.MemoryPointer(self.context, pointer, size, finalizer=free)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        CountingManager.events.append(("hostalloc", size, mapped))
        return super().memhostalloc(size, mapped, portable, wc)

    def get_memory_info(self):
        raise NotImplementedError("a pool cannot tell")

    def reset(self):
        CountingManager.events.append("reset")
        super().reset()

    def defer_cleanup(self):
        CountingManager.events.append("defer")
        return super().defer_cleanup()

    @property
    def interface_version(self):
        return 1


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setattr(drv, "memory_plugin", None)
    for name in ("NUMBA_CUDA_MEMORY_MANAGER", "CUMLIR_MEMORY_MANAGER"):
        monkeypatch.delenv(name, raising=False)
    CountingManager.made, CountingManager.freed, CountingManager.events = [], [], []
    cuda.set_memory_manager(CountingManager)
    return CountingManager


def scale(out, x, factor):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * factor


def test_device_arrays_come_from_the_plugin_and_go_back_to_it(counting, rng):
    x = rng.standard_normal(1000)
    d_x = cuda.to_device(x)
    d_out = cuda.device_array_like(x)
    d_out.copy_to_device(np.full_like(x, np.nan))
    sizes = [size for size, _ in counting.made]
    assert sizes == [x.nbytes, x.nbytes]
    assert d_x.device_ctypes_pointer.value == counting.made[0][1]
    assert d_out.device_ctypes_pointer.value == counting.made[1][1]
    cuda.jit(scale)[4, 256](d_out, d_x, 3.0)
    np.testing.assert_array_equal(d_out.copy_to_host(), x * 3.0)
    assert counting.events[0] == "initialize"
    addresses = {address for _, address in counting.made}
    del d_x, d_out
    gc.collect()
    assert addresses <= set(counting.freed)


def test_copies_of_numpy_arguments_come_from_the_plugin(counting, rng):
    x = rng.standard_normal(513).astype(np.float32)
    out = np.full_like(x, np.nan)
    cuda.jit(scale)[3, 256](out, x, np.float32(-2.0))
    np.testing.assert_array_equal(out, x * np.float32(-2.0))
    assert sorted(size for size, _ in counting.made) == [x.nbytes, x.nbytes]
    gc.collect()
    assert {address for _, address in counting.made} <= set(counting.freed)


def test_views_keep_the_plugin_memory_alive(counting, rng):
    x = rng.integers(-100, 100, size=(64, 8)).astype(np.int64)
    view = cuda.to_device(x)[10:20, 2:5]
    gc.collect()
    assert counting.freed == []
    np.testing.assert_array_equal(view.copy_to_host(), x[10:20, 2:5])
    del view
    gc.collect()
    assert counting.freed == [counting.made[0][1]]


def test_ufunc_outputs_come_from_the_plugin(counting, rng):
    add = cuda.vectorize(["float64(float64, float64)"], target="cuda")(lambda a, b: a + 2 * b)
    a, b = rng.standard_normal(300), rng.standard_normal(300)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    before = len(counting.made)
    result = add(d_a, d_b)
    np.testing.assert_allclose(result.copy_to_host(), a + 2 * b, rtol=1e-15)
    assert len(counting.made) > before
    assert result.device_ctypes_pointer.value in {address for _, address in counting.made}


def test_pinned_and_mapped_memory_come_from_the_plugin(counting, rng):
    pinned = cuda.pinned_array((100,), np.float64)
    mapped = cuda.mapped_array((100,), np.float64)
    assert ("hostalloc", 800, False) in counting.events
    assert ("hostalloc", 800, True) in counting.events
    pinned[:] = rng.standard_normal(100)
    mapped[:] = np.nan
    cuda.jit(scale)[1, 128](mapped, cuda.to_device(pinned), 0.5)
    cuda.synchronize()
    np.testing.assert_array_equal(mapped, pinned * 0.5)


def test_the_context_exposes_its_manager(counting):
    context = cuda.current_context()
    assert isinstance(context.memory_manager, CountingManager)
    assert context.memory_manager is context.memory_manager
    memory = context.memalloc(256)
    assert (256, memory.device_pointer) in counting.made
    memory.free()
    assert counting.freed == [memory.device_pointer]
    with pytest.raises(RuntimeError, match="already freed"):
        memory.free()
    with pytest.raises(NotImplementedError, match="pool"):
        context.get_memory_info()


def test_defer_cleanup_holds_the_plugins_block_too(counting):
    with cuda.defer_cleanup():
        assert "defer" in counting.events
        assert cuda.current_context().deallocations.is_disabled
    assert not cuda.current_context().deallocations.is_disabled


def test_close_resets_the_plugin_and_new_contexts_make_another(counting):
    cuda.to_device(np.arange(4.0))
    first = cuda.current_context().memory_manager
    cuda.close()
    assert "reset" in counting.events
    assert cuda.current_context().memory_manager is not first


def test_a_context_keeps_the_manager_it_was_made_with(monkeypatch):
    monkeypatch.setattr(drv, "memory_plugin", None)
    context = cuda.current_context()
    assert type(context.memory_manager).__name__ == "DriverMemoryManager"
    cuda.set_memory_manager(CountingManager)
    CountingManager.made = []
    cuda.to_device(np.arange(8.0))
    assert CountingManager.made == []  # set after the context was made: it applies from the next


def test_the_default_manager_and_deallocations(monkeypatch):
    monkeypatch.setattr(drv, "memory_plugin", None)
    context = cuda.current_context()
    memory = context.memalloc(1024)
    memory.memset(7)
    host = np.zeros(1024, np.uint8)
    drv.check("cuMemcpyDtoH", drv.driver().cuMemcpyDtoH(host.ctypes.data, memory.device_pointer, 1024))
    assert (host == 7).all()
    view = memory.view(100, 200)
    assert view.device_pointer == memory.device_pointer + 100 and view.size == 100
    with pytest.raises(ValueError, match="outside"):
        memory.view(0, 2048)
    deallocations = context.deallocations
    with cuda.defer_cleanup():
        del memory, view
        gc.collect()
        assert len(deallocations) == 1
        deallocations.clear()  # deferred: nothing is freed yet
        assert len(deallocations) == 1
    assert len(deallocations) == 0


class OldManager(CountingManager):
    @property
    def interface_version(self):
        return 2


def test_set_memory_manager_checks_what_it_is_given(monkeypatch):
    monkeypatch.setattr(drv, "memory_plugin", None)
    with pytest.raises(RuntimeError, match="version 2 of the EMM plugin interface"):
        cuda.set_memory_manager(OldManager)
    with pytest.raises(TypeError, match="memory manager class"):
        cuda.set_memory_manager(CountingManager(context=None))
    with pytest.raises(RuntimeError, match="context="):
        CountingManager()


def test_the_environment_names_a_plugin_module(monkeypatch):
    monkeypatch.setattr(drv, "memory_plugin", None)
    module = types.ModuleType("a_memory_plugin")
    module._numba_memory_manager = CountingManager
    monkeypatch.setitem(sys.modules, "a_memory_plugin", module)
    monkeypatch.setenv("NUMBA_CUDA_MEMORY_MANAGER", "a_memory_plugin")
    CountingManager.made = []
    d = cuda.to_device(np.arange(16.0))
    assert CountingManager.made == [(128, d.device_ctypes_pointer.value)]


def test_a_missing_plugin_module_is_named(monkeypatch):
    monkeypatch.setattr(drv, "memory_plugin", None)
    monkeypatch.setenv("NUMBA_CUDA_MEMORY_MANAGER", "no_such_memory_plugin")
    with pytest.raises(RuntimeError, match="no_such_memory_plugin"):
        cuda.to_device(np.arange(4.0))
