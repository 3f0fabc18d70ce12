"""Frees from finalizers (runtime/cleanup.py) never raise: a device array that lives until
interpreter shutdown may be finalized after the modules' globals are set to None (an
"Exception ignored in DeviceMemory.__del__" per array was printed at the exit of a
process that ran Dask and cumlir's ufuncs on two GPUs)."""

from cumlir.runtime import cleanup
from cumlir.runtime import driver as drv

from . import fake_driver


def test_a_free_at_shutdown_is_silent(monkeypatch):
    fake_driver.install(monkeypatch)
    monkeypatch.setattr(cleanup, "_free", None)  # what shutdown leaves of the module
    cleanup.release("cuMemFree", 0x1234)


def test_a_free_with_the_driver_module_gone_is_silent(monkeypatch):
    monkeypatch.setattr(cleanup, "drv", None)
    cleanup._free("cuMemFree", 0x1234)


def test_a_free_calls_the_driver(monkeypatch):
    fake = fake_driver.install(monkeypatch)
    freed = []
    monkeypatch.setattr(fake, "cuMemFree", lambda pointer: freed.append(pointer) or (0,), raising=False)
    cleanup.release("cuMemFree", 0x1234)
    assert freed == [0x1234]
    assert drv.current_context().ordinal == 0
