"""``cuda.jit(extensions=[...])``: argument handlers (Numba-CUDA's and numba-cuda-mlir's)
give each launch argument as it is passed, and what must run after the launch; on a fake
driver (tests/fake_driver.py), which records the parameters each launch passes."""

import pickle
import struct

import numpy as np
import pytest

from cumlir import cuda

from . import fake_driver


class ToDevice:
    """Passes host arrays as device arrays it makes, copied back after the launch."""

    def __init__(self):
        self.calls = []
        self.made = []
        self.copied = 0

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.calls.append((str(ty), type(val).__name__, stream))
        if not isinstance(val, np.ndarray):
            return ty, val
        device = cuda.to_device(val)
        self.made.append(device)
        retr.append(lambda: self._copy_back(device, val))
        return ty, device

    def _copy_back(self, device, host):
        device.copy_to_host(host)
        self.copied += 1


class Named:
    """Records the order handlers are asked in."""

    def __init__(self, name, log):
        self.name, self.log = name, log

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.log.append(self.name)
        return ty, val


class Retyping:
    def prepare_args(self, ty, val, stream=0, retr=None):
        from numba.core import types

        return (types.float64[::1], val) if isinstance(ty, types.Array) else (ty, val)


def double(a, n):
    i = cuda.grid(1)
    if i < n:
        a[i] *= 2


SIG = "void(float32[::1], int32)"


@pytest.fixture
def fake(monkeypatch):
    driver = fake_driver.install(monkeypatch)
    driver.slots = 5  # the array's pointer, offset, extent, stride; the int
    return driver


def _pointer(launch):
    return struct.unpack_from("Q", launch["params"], 0)[0]


def test_each_launch_passes_what_the_handler_gives_and_runs_its_writebacks(fake):
    handler = ToDevice()
    kernel = cuda.jit(SIG, extensions=[handler])(double)
    host = np.arange(4, dtype=np.float32)
    for _ in range(2):  # never the fast path: every launch goes through the handler
        kernel[1, 32](host, np.int32(4))
    assert handler.calls == [("array(float32, 1d, C)", "ndarray", 0), ("int32", "int32", 0)] * 2
    assert [_pointer(launch) for launch in fake.launches] == [d.device_pointer for d in handler.made]
    assert handler.copied == 2  # its writeback ran after each launch


class Scaled:
    """A user's wrapper that a handler turns into the device array it holds."""

    def __init__(self, device):
        self.device = device


class Unwrapping:
    def prepare_args(self, ty, val, stream=0, retr=None):
        return (ty, val.device) if isinstance(val, Scaled) else (ty, val)


def test_a_one_signature_kernel_leaves_its_arguments_to_the_handlers(fake):
    kernel = cuda.jit(SIG, extensions=[Unwrapping()])(double)
    device = cuda.to_device(np.zeros(4, np.float32))
    kernel[1, 32](Scaled(device), 4)  # as Numba-CUDA's specialized kernels: no typing of a Scaled
    assert _pointer(fake.launches[0]) == device.device_pointer
    lazy = cuda.jit(extensions=[Unwrapping()])(double)  # compiled per argument types: they are typed
    with pytest.raises(TypeError, match="argument 0: values of type Scaled cannot be passed to a kernel"):
        lazy[1, 32](Scaled(device), 4)


def test_handlers_are_asked_from_the_last_to_the_first(fake):
    log = []
    kernel = cuda.jit(SIG, extensions=[Named("first", log), Named("second", log)])(double)
    kernel[1, 32](cuda.to_device(np.zeros(4, np.float32)), np.int32(4))
    assert log == ["second", "first", "second", "first"]


def test_writebacks_run_after_the_launch(fake, monkeypatch):
    order = []
    launch = fake.cuLaunchKernel
    monkeypatch.setattr(fake, "cuLaunchKernel", lambda *a: order.append("launch") or launch(*a))

    class Later:
        def prepare_args(self, ty, val, stream=0, retr=None):
            retr.append(lambda: order.append("writeback"))
            return ty, val

    kernel = cuda.jit(SIG, extensions=[Later()])(double)
    kernel[1, 32](cuda.to_device(np.zeros(4, np.float32)), np.int32(4))
    assert order == ["launch", "writeback", "writeback"]


def test_a_handler_may_not_change_a_type(fake):
    kernel = cuda.jit(SIG, extensions=[Retyping()])(double)
    with pytest.raises(TypeError, match=r"passes argument 0 as array\(float64, 1d, C\), but the kernel was compiled"):
        kernel[1, 32](cuda.to_device(np.zeros(4, np.float32)), np.int32(4))
    assert not fake.launches


def test_an_extension_needs_prepare_args():
    with pytest.raises(TypeError, match="has no prepare_args"):
        cuda.jit(extensions=[object()])(double)


def test_the_handlers_are_the_kernel_s_and_change_no_code():
    handler = ToDevice()
    kernel = cuda.jit(extensions=[handler])(double)
    assert kernel.extensions == [handler]
    assert cuda.jit(double).extensions == []  # as Numba-CUDA's, where none were given
    assert kernel.options.cache_key() == cuda.jit(double).options.cache_key()
    plain = cuda.jit(double).compile(SIG).output("ptx", (9, 0))
    assert kernel.compile(SIG).output("ptx", (9, 0)) == plain


def test_a_handler_appended_after_launches_serves_the_launches_that_follow(fake):
    kernel = cuda.jit(double)  # compiled per argument types, launched by its fast path at first
    device = cuda.to_device(np.zeros(4, np.float32))
    kernel[1, 32](device, np.int32(4))
    kernel[1, 32](device, np.int32(4))
    handler = ToDevice()
    kernel.extensions.append(handler)
    assert kernel.extensions == [handler] and kernel.options.extensions == (handler,)
    kernel[1, 32](device, np.int32(4))  # the same types as before: not the fast path now
    host = np.arange(4, dtype=np.float32)
    kernel[1, 32](host, np.int32(4))
    assert [c[1] for c in handler.calls] == ["DeviceNDArray", "int32", "ndarray", "int32"]
    assert _pointer(fake.launches[-1]) == handler.made[-1].device_pointer and handler.copied == 1
    kernel.extensions.remove(handler)
    kernel[1, 32](device, np.int32(4))
    assert len(handler.calls) == 4 and len(fake.launches) == 5


def test_a_handler_appended_serves_a_compiled_signature(fake):
    log = []
    kernel = cuda.jit(SIG)(double)
    device = cuda.to_device(np.zeros(4, np.float32))
    kernel[1, 32](device, np.int32(4))
    kernel.extensions.append(Named("later", log))
    kernel.extensions.extend([Named("last", log)])
    kernel[1, 32](device, np.int32(4))
    assert log == ["last", "later", "last", "later"]
    del kernel.extensions[:]
    kernel[1, 32](device, np.int32(4))
    assert len(log) == 4 and len(fake.launches) == 3


def test_a_handler_without_prepare_args_is_refused_and_not_kept():
    kernel = cuda.jit(double)
    with pytest.raises(TypeError, match="has no prepare_args"):
        kernel.extensions.append(object())
    with pytest.raises(TypeError, match="has no prepare_args"):
        kernel.extensions[:] = [ToDevice(), 3]
    assert kernel.extensions == [] and kernel.options.extensions == ()


def test_a_kernel_with_handlers_pickles():
    kernel = cuda.jit(extensions=[ToDevice()])(double)
    kernel.extensions.append(Unwrapping())
    again = pickle.loads(pickle.dumps(kernel))
    assert [type(h) for h in again.extensions] == [ToDevice, Unwrapping]
    assert type(pickle.loads(pickle.dumps(kernel.extensions))) is list


@pytest.mark.gpu
def test_handlers_on_the_gpu():
    rng = np.random.default_rng(7)
    host = rng.standard_normal(1000).astype(np.float32)
    handler = ToDevice()
    kernel = cuda.jit(SIG, extensions=[handler])(double)
    result = host.copy()
    kernel[4, 256](result, result.size)  # a host array in, the handler's device copy launched, copied back
    np.testing.assert_array_equal(result, host * 2)
    assert handler.copied == 1
    unwrapping = cuda.jit(SIG, extensions=[Unwrapping()])(double)
    device = cuda.to_device(host)
    unwrapping[4, 256](Scaled(device), host.size)
    np.testing.assert_array_equal(device.copy_to_host(), host * 2)


class DefaultIn:
    """Numba-CUDA's example: host arrays copied in only, unless the launch wraps them itself."""

    def prepare_args(self, ty, val, stream=0, retr=None):
        from cumlir.runtime.arg_hints import ArgHint, In, wrap_arg

        if not isinstance(val, (np.ndarray, ArgHint)):  # a scalar: no copies to choose
            return ty, val
        return ty, wrap_arg(val, default=In)


def test_a_handler_choosing_the_copies_with_wrap_arg(simulator_or_gpu):
    kernel = cuda.jit(extensions=[DefaultIn()])(double)
    host = np.arange(4, dtype=np.float32)
    kernel[1, 32](host, np.int32(4))
    np.testing.assert_array_equal(host, np.arange(4))  # copied in, not back
    kernel[1, 32](cuda.InOut(host), np.int32(4))  # wrapped by the launch: kept
    np.testing.assert_array_equal(host, 2 * np.arange(4))
