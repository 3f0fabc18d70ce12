"""The ``simulated`` fixture (conftest.py): the simulator on for one test, in a process that
may have a GPU and its driver, and everything as it was afterwards."""

import os

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime import driver as drv
from cumlir.runtime.simulator import driver as simulator

from .conftest import simulating


def add_one(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += 1


def test_a_kernel_runs_on_the_simulator(simulated):
    assert simulated is simulator and drv.driver() is simulator and cuda.is_simulator()
    x = np.arange(40, dtype=np.float32)
    cuda.jit(add_one)[2, 32](x)
    np.testing.assert_array_equal(x, np.arange(1, 41))
    assert drv.current_context().name == "cumlir simulator"


def test_state_is_put_back(monkeypatch):
    """With a real driver's state in place (stand-ins here), a test with the simulator on
    leaves it as it was: the driver, the caches (the same objects, unchanged), the
    environment and the simulated driver's context stack."""
    real = object()
    caches = {"_devices": {0: "device"}, "_contexts": {0: "context"}, "_by_handle": {0x1234: "context"}}
    monkeypatch.setattr(drv, "_driver", real)
    for name, cache in caches.items():
        monkeypatch.setattr(drv, name, cache)
    monkeypatch.delenv("CUMLIR_SIMULATOR", raising=False)
    monkeypatch.setenv("CUMLIR_SIMULATOR_CHECKS", "0")
    stack = simulator.cuCtxGetCurrent()[1]
    with pytest.MonkeyPatch.context() as inner, simulating(inner):
        assert drv._driver is simulator and os.environ["CUMLIR_SIMULATOR"] == "1"
        assert "CUMLIR_SIMULATOR_CHECKS" not in os.environ
        assert all(getattr(drv, name) == {} for name in caches)
        x = np.zeros(8, np.float32)
        cuda.jit(add_one)[1, 8](x)
        assert (x == 1).all() and drv._contexts
    assert drv._driver is real
    for name, cache in caches.items():
        assert getattr(drv, name) is cache
    assert caches == {"_devices": {0: "device"}, "_contexts": {0: "context"}, "_by_handle": {0x1234: "context"}}
    assert "CUMLIR_SIMULATOR" not in os.environ and os.environ["CUMLIR_SIMULATOR_CHECKS"] == "0"
    assert int(simulator.cuCtxGetCurrent()[1]) == int(stack)
