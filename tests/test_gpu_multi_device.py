"""Every device of the host: kernels compiled once per chip and loaded into each device's
context, launches that run where their arrays live (CuPy, PyTorch, cumlir's own), one
thread per device at once, copies between devices, streams and events per device.
Skipped where the machine has fewer than two GPUs."""

import concurrent.futures
import multiprocessing
import pickle
import threading

import numpy as np
import pytest

from cumlir import cuda

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def two_devices():
    if len(cuda.gpus) < 2:
        pytest.skip("needs two CUDA GPUs")


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def hypot2(x, y):
    return x * x + y * y


def _inputs(rng, n, dtype=np.float32):
    return rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)


def _expected(x, y, a=2.5):
    return (a * x.astype(np.float64) + y).astype(np.float32)


def _launch_axpy(x, y, out, a=2.5):
    axpy[(out.shape[0] + 255) // 256, 256](np.float32(a), x, y, out)


def test_the_device_list_and_the_current_device():
    assert [g.id for g in cuda.gpus] == list(range(len(cuda.gpus)))
    cuda.select_device(0)
    for device in cuda.gpus:
        with device:
            assert cuda.get_current_device().id == device.id
            assert cuda.gpus.current.id == device.id
        assert cuda.get_current_device().id == 0
    with pytest.raises(ValueError, match=f"there is no CUDA device {len(cuda.gpus)}"):
        cuda.select_device(len(cuda.gpus))


def test_a_kernel_is_compiled_once_and_loaded_in_each_device(rng):
    x, y = _inputs(rng, 10_000)

    @cuda.jit
    def kernel(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    for device in cuda.gpus:
        with device:
            out = cuda.device_array_like(x)
            kernel[40, 256](np.float32(2.5), cuda.to_device(x), cuda.to_device(y), out)
            np.testing.assert_allclose(out.copy_to_host(), _expected(x, y), rtol=1e-6)
    (overload,) = kernel.overloads.values()
    chips = {device.compute_capability for device in cuda.gpus}
    assert len(overload._binaries) == len(chips)  # one compile per chip
    assert len(overload._narrow_loaded) == len(cuda.gpus)  # one module per device (small arrays: 32-bit offsets)


@pytest.mark.parametrize("library", ["cupy", "torch", "cumlir"])
def test_a_launch_runs_on_the_device_of_its_arrays(rng, library, monkeypatch):
    monkeypatch.delenv("CUMLIR_STRICT_DEVICE", raising=False)
    x, y = _inputs(rng, 100_003)
    cuda.select_device(0)
    for _ in range(3):  # the first launch and the later ones
        if library == "cupy":
            cupy = pytest.importorskip("cupy")
            with cupy.cuda.Device(1):
                dx, dy, out = cupy.asarray(x), cupy.asarray(y), cupy.full(x.size, np.nan, np.float32)
            _launch_axpy(dx, dy, out)
            got = cupy.asnumpy(out)
        elif library == "torch":
            torch = pytest.importorskip("torch")
            dx, dy = torch.from_numpy(x).to("cuda:1"), torch.from_numpy(y).to("cuda:1")
            out = torch.full((x.size,), float("nan"), device="cuda:1")
            _launch_axpy(dx, dy, out)
            got = out.cpu().numpy()
        else:
            with cuda.gpus[1]:
                dx, dy, out = cuda.to_device(x), cuda.to_device(y), cuda.to_device(np.full_like(x, np.nan))
            _launch_axpy(dx, dy, out)
            with cuda.gpus[1]:
                got = out.copy_to_host()
        assert cuda.get_current_device().id == 0, "the launch left device 1 current"
        np.testing.assert_allclose(got, _expected(x, y), rtol=1e-6)
    cuda.synchronize()


class InterfaceOnly:
    """An array known by its CUDA Array Interface alone: its device is the driver's to tell."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def test_an_interface_only_array_runs_on_the_device_of_its_memory(rng):
    x, y = _inputs(rng, 5000)
    with cuda.gpus[1]:
        arrays = [cuda.to_device(x), cuda.to_device(y), cuda.to_device(np.full_like(x, np.nan))]
    cuda.select_device(0)
    for _ in range(2):
        axpy[(x.size + 255) // 256, 256](np.float32(2.5), *map(InterfaceOnly, arrays))
    with cuda.gpus[1]:
        np.testing.assert_allclose(arrays[2].copy_to_host(), _expected(x, y), rtol=1e-6)


def test_strict_placement_refuses_an_array_of_another_device(rng, monkeypatch):
    cupy = pytest.importorskip("cupy")
    monkeypatch.setenv("CUMLIR_STRICT_DEVICE", "1")
    x, y = _inputs(rng, 1000)
    with cupy.cuda.Device(1):
        dx, dy, out = cupy.asarray(x), cupy.asarray(y), cupy.zeros(x.size, np.float32)
    cuda.select_device(0)
    with pytest.raises(ValueError, match="is on CUDA device 1, but the kernel is launched on device 0"):
        _launch_axpy(dx, dy, out)
    with cuda.gpus[1]:
        _launch_axpy(dx, dy, out)
        np.testing.assert_allclose(cupy.asnumpy(out), _expected(x, y), rtol=1e-6)


def test_arrays_of_two_devices_are_refused(rng):
    x, y = _inputs(rng, 1000)
    dx = cuda.to_device(x)
    with cuda.gpus[1]:
        dy, out = cuda.to_device(y), cuda.device_array_like(x)
    with pytest.raises(ValueError, match="argument 1 is on CUDA device 0 and argument 2 on device 1"):
        _launch_axpy(dx, dy, out)


def test_a_ufunc_runs_and_allocates_on_the_device_of_its_arrays(rng):
    x, y = _inputs(rng, 5000, np.float64)
    with cuda.gpus[1]:
        dx, dy = cuda.to_device(x), cuda.to_device(y)
    cuda.select_device(0)
    result = hypot2(dx, dy)
    assert result._device_id == 1
    with cuda.gpus[1]:
        np.testing.assert_allclose(result.copy_to_host(), x * x + y * y, rtol=1e-15)


def test_one_thread_per_device_at_once(rng):
    n = 1 << 22
    parts = [_inputs(rng, n) for _ in cuda.gpus]
    barrier = threading.Barrier(len(cuda.gpus))

    def work(ordinal):
        x, y = parts[ordinal]
        with cuda.gpus[ordinal]:
            dx, dy, out = cuda.to_device(x), cuda.to_device(y), cuda.device_array_like(x)
            barrier.wait()
            for _ in range(20):
                _launch_axpy(dx, dy, out)
            got = out.copy_to_host()
            return cuda.get_current_device().id, got

    with concurrent.futures.ThreadPoolExecutor(len(cuda.gpus)) as pool:
        results = list(pool.map(work, range(len(cuda.gpus))))
    for ordinal, (device, got) in enumerate(results):
        assert device == ordinal
        np.testing.assert_allclose(got, _expected(*parts[ordinal]), rtol=1e-6)


@pytest.mark.parametrize("nbytes", [1, 4096, 64 << 20])
def test_copies_between_devices(rng, nbytes):
    host = rng.integers(0, 256, nbytes, dtype=np.uint8)
    source = cuda.to_device(host)
    with cuda.gpus[1]:
        target = cuda.device_array(nbytes, np.uint8)
        target.copy_to_device(source)  # device 0 to device 1
        np.testing.assert_array_equal(target.copy_to_host(), host)
        back = cuda.to_device(np.zeros(nbytes, np.uint8))
    source.copy_to_device(back)  # device 1 to device 0, from device 0
    np.testing.assert_array_equal(source.copy_to_host(), np.zeros(nbytes, np.uint8))


def test_streams_and_events_of_each_device(rng):
    x, y = _inputs(rng, 1 << 20)
    for device in cuda.gpus:
        with device:
            stream = cuda.stream()
            start, stop = cuda.event(), cuda.event()
            dx, dy = cuda.to_device(x, stream=stream), cuda.to_device(y, stream=stream)
            out = cuda.device_array_like(x, stream=stream)
            start.record(stream)
            axpy[(x.size + 255) // 256, 256, stream](np.float32(2.5), dx, dy, out)
            stop.record(stream)
            got = out.copy_to_host(stream=stream)
            stream.synchronize()
            assert cuda.event_elapsed_time(start, stop) >= 0
            np.testing.assert_allclose(got, _expected(x, y), rtol=1e-6)
    with cuda.gpus[1]:
        other = cuda.stream()
    dx, dy, out = cuda.to_device(x), cuda.to_device(y), cuda.device_array_like(x)
    with pytest.raises(ValueError, match="belongs to CUDA context"):
        axpy[(x.size + 255) // 256, 256, other](np.float32(2.5), dx, dy, out)


def _launch_on(ordinal, data, x, y):
    kernel = pickle.loads(data)
    with cuda.gpus[ordinal]:
        dx, dy, out = cuda.to_device(x), cuda.to_device(y), cuda.device_array_like(x)
        kernel[(x.size + 255) // 256, 256](np.float32(2.5), dx, dy, out)
        return out.copy_to_host()


def test_a_pickled_kernel_launches_on_each_device_of_a_spawned_process(rng):
    x, y = _inputs(rng, 4097)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        futures = [pool.submit(_launch_on, d, pickle.dumps(axpy), x, y) for d in range(len(cuda.gpus))]
        for future in futures:
            np.testing.assert_allclose(future.result(timeout=300), _expected(x, y), rtol=1e-6)
