"""Where a launch runs when the process sees several devices (runtime/placement.py), on a
fake driver of two devices (tests/fake_driver.py): the device of the array arguments,
whichever is current; arrays of two devices refused; with CUMLIR_STRICT_DEVICE=1 the
current device, and an array of another device refused. The fake driver fails any launch
of a kernel outside the context it was loaded in."""

import numpy as np
import pytest

from cumlir import cuda, dispatcher
from cumlir.runtime import readers

from . import fake_driver
from .cases import launch_kernels as K
from .fake_arrays import FakeCupyArray, FakeTensor, install_fake_cupy

three = cuda.jit(K.vadd)


@cuda.vectorize(["float32(float32, float32)"])
def add(x, y):
    return x + y


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.delenv("CUMLIR_STRICT_DEVICE", raising=False)
    driver = fake_driver.install(monkeypatch, devices=2)
    kernels = [k for k in globals().values() if isinstance(k, dispatcher.Dispatcher)]
    for kernel in kernels:  # loaded with another test's driver
        fake_driver.forget_loaded(kernel)
    forget_cupy_streams = install_fake_cupy(monkeypatch)
    monkeypatch.setattr(readers, "SYNC", True)
    driver.slots = 0  # the parameters are not read: where the launch ran is what matters
    yield driver
    for kernel in kernels:
        fake_driver.forget_loaded(kernel)
    forget_cupy_streams()


def _on(make, device, n=50):
    return [make(np.arange(n, dtype=np.float32) * k, device) for k in (1, 2, 3)]


def _device_arrays(device, n=50):
    with cuda.gpus[device]:
        return [cuda.to_device(np.arange(n, dtype=np.float32) * k) for k in (1, 2, 3)]


def _context_of_launch(fake):
    """The device whose context the last launch ran in (the fake's function records it)."""
    return fake.launched_in[-1] - fake_driver.CONTEXT


@pytest.fixture
def launched_in(fake, monkeypatch):
    fake.launched_in = []
    launch = fake.cuLaunchKernel

    def recording(f, *rest):
        fake.launched_in.append(fake.current)
        return launch(f, *rest)

    monkeypatch.setattr(fake, "cuLaunchKernel", recording)
    return fake


class InterfaceOf:
    """Any other CUDA Array Interface object: its device is the driver's to tell."""

    def __init__(self, array):
        self.array = array  # the memory's owner, kept alive
        self.__cuda_array_interface__ = array.__cuda_array_interface__


ARRAYS = {
    "cupy": lambda device: _on(FakeCupyArray, device),
    "torch": lambda device: _on(FakeTensor, device),
    "cumlir": _device_arrays,
    "interface": lambda device: [InterfaceOf(a) for a in _device_arrays(device)],
}


@pytest.mark.parametrize("kind", ARRAYS)
def test_a_launch_runs_on_its_arrays_device(launched_in, kind):
    fake = launched_in
    cuda.select_device(0)
    for _ in range(3):  # the first launch and the later ones (which cannot take device 0's fast path)
        three[2, 32](*ARRAYS[kind](1))
        assert _context_of_launch(fake) == 1
        assert cuda.get_current_device().id == 0, "the launch left its device current"
    three[2, 32](*ARRAYS[kind](0))
    assert _context_of_launch(fake) == 0


@pytest.mark.parametrize("kind", ARRAYS)
def test_arrays_of_two_devices_are_refused(launched_in, kind):
    fake = launched_in
    a, b, _ = ARRAYS[kind](0)
    _, _, c = ARRAYS[kind](1)
    with pytest.raises(ValueError, match="argument 0 is on CUDA device 0 and argument 2 on device 1"):
        three[2, 32](a, b, c)
    assert not fake.launched_in


@pytest.mark.parametrize("kind", ARRAYS)
def test_strict_placement_refuses_an_array_of_another_device(launched_in, monkeypatch, kind):
    fake = launched_in
    monkeypatch.setenv("CUMLIR_STRICT_DEVICE", "1")
    cuda.select_device(0)
    three[2, 32](*ARRAYS[kind](0))
    with pytest.raises(ValueError, match="argument 0: .* is on CUDA device 1, but the kernel is launched on device 0"):
        three[2, 32](*ARRAYS[kind](1))
    assert fake.launched_in == [fake_driver.CONTEXT]


def test_the_fast_path_does_not_take_an_array_of_another_device(launched_in):
    fake = launched_in
    cuda.select_device(0)
    here = _device_arrays(0)
    three[2, 32](*here)
    three[2, 32](*here)  # the fast path of device 0
    three[2, 32](*_device_arrays(1))
    assert [c - fake_driver.CONTEXT for c in fake.launched_in] == [0, 0, 1]


def test_forall_runs_on_its_arrays_device(launched_in, monkeypatch):
    fake = launched_in
    monkeypatch.setattr(fake, "cuOccupancyMaxPotentialBlockSize", lambda *a: (0, 0, 128), raising=False)
    cuda.select_device(0)
    three.forall(50)(*_device_arrays(1))
    assert _context_of_launch(fake) == 1


def test_a_ufunc_runs_and_allocates_on_its_arrays_device(launched_in):
    fake = launched_in
    cuda.select_device(0)
    x, y, _ = _device_arrays(1, n=64)
    result = add(x, y)
    assert _context_of_launch(fake) == 1
    assert result._device_id == 1 and result.shape == (64,)  # the fake runs no kernel: no values to see
