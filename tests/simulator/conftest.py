import contextlib
import gc

import pytest


def _pop_all(cu):
    """Pops every context current on this thread from the driver *cu*'s stack; the popped
    handles, the bottom of the stack first."""
    popped = []
    while int(cu.cuCtxGetCurrent()[1]):
        popped.append(cu.cuCtxPopCurrent()[1])
    return popped[::-1]


@contextlib.contextmanager
def simulating(monkeypatch):
    """The CPU simulator on, in a normal test process, with or without a GPU and its driver:
    CUMLIR_SIMULATOR=1, and the runtime's driver state (cumlir/runtime/driver.py: the driver
    module and its caches of devices and contexts) swapped for the simulator's driver with
    empty caches, by *monkeypatch*, which puts them back. Kernels compiled meanwhile run on
    the CPU; the simulator's checks are on. Yields the simulator's driver module."""
    from cumlir.runtime import driver as drv
    from cumlir.runtime import warm_up
    from cumlir.runtime.simulator import driver as simulator

    # a warm-up a real launch started (runtime/warm_up.py) fills the real driver's caches:
    # let it finish before they are swapped (with the simulator's driver in place, a launch
    # in the test starts none: the driver counts as initialised)
    for thread in list(warm_up._started):
        thread.join()
    monkeypatch.setenv("CUMLIR_SIMULATOR", "1")
    for name in ("CUMLIR_SIMULATOR_CHECKS", "CUMLIR_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(drv, "_driver", simulator)
    monkeypatch.setattr(drv, "_devices", {})
    monkeypatch.setattr(drv, "_contexts", {})
    monkeypatch.setattr(drv, "_by_handle", {})
    # the simulated driver's context stack of this thread (its per-thread current context):
    # empty for the test, as it was afterwards
    before = _pop_all(simulator)
    try:
        yield simulator
    finally:
        # what the test made and dropped (kernels' modules, device arrays) is freed through
        # the simulated driver, not through whatever driver is back in place when the garbage
        # collector gets to it
        gc.collect()
        _pop_all(simulator)
        # release the primary context the runtime retained in the test (the last reference
        # resets the simulated device: its memory and modules go)
        for ordinal in list(drv._contexts):
            drv.forget_context(ordinal)
        for handle in before:
            simulator.cuCtxPushCurrent(handle)


@pytest.fixture
def simulated(monkeypatch):
    """The CPU simulator on for one test (``simulating``), everything put back afterwards."""
    with simulating(monkeypatch) as simulator:
        yield simulator
