"""Numba-CUDA's setup and teardown callbacks of link items: setup once after each module
linking the item is loaded (one per argument-type tuple, one per kernel), teardown just
before the module is unloaded, when its kernel's last holder lets it go or ``cuda.close()``
resets the context."""

import gc

import pytest

from cumlir import cuda

from . import fake_driver


@pytest.fixture
def fake(monkeypatch):
    driver = fake_driver.install(monkeypatch)
    driver.slots = 1  # the kernels below take one scalar
    return driver


class Counter:
    def __init__(self):
        self.live, self.set_up, self.torn_down = 0, [], []

    def setup(self, module):
        self.live += 1
        self.set_up.append(int(module.handle))

    def teardown(self, module):
        self.live -= 1
        self.torn_down.append(int(module.handle))


def _item(counter):
    return cuda.CUSource("", setup_callback=counter.setup, teardown_callback=counter.teardown)


def test_setup_once_per_module_and_teardown_when_it_is_dropped(fake):
    counter = Counter()

    @cuda.jit(link=[_item(counter)])
    def kernel(x):
        pass

    assert counter.live == 0
    kernel[1, 1](42)  # (int64,): one module
    kernel[1, 1](43)
    assert counter.live == 1
    kernel[1, 1](3.5)  # (float64,): another
    assert counter.live == 2 and len(set(counter.set_up)) == 2
    del kernel
    gc.collect()
    assert counter.live == 0 and sorted(counter.torn_down) == sorted(counter.set_up)


def test_a_reset_tears_every_module_down(fake):
    counter = Counter()
    item = _item(counter)
    kernels = [cuda.jit(link=[item])(lambda a: None), cuda.jit(link=[item])(lambda a: None)]
    for kernel in kernels:
        kernel[1, 1](1)
    assert counter.live == 2
    cuda.get_current_device().reset()  # as cuda.close() resets each device it used
    assert counter.live == 0
    del kernels
    gc.collect()
    assert counter.live == 0  # torn down once


def test_callbacks_must_be_callable():
    with pytest.raises(TypeError, match="setup_callback=...\\) must be callable"):
        cuda.CUSource("", setup_callback=3)
    with pytest.raises(TypeError, match="teardown_callback"):
        cuda.PTXSource(b"", teardown_callback="no")
