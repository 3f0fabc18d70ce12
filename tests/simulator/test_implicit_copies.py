"""A NumPy array given to a kernel is copied to the device and back around the launch, and
Numba-CUDA warns of it (NumbaPerformanceWarning), as cumlir does unless told not to; and
``cuda.devicearray.auto_device`` makes device arrays as Numba-CUDA's does."""

import warnings

import numpy as np
import pytest
from numba.core.errors import NumbaPerformanceWarning

from cumlir import cuda

pytestmark = pytest.mark.usefixtures("simulated")


def double(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2


def test_a_host_array_argument_warns_of_its_copy(rng):
    x = rng.standard_normal(40)
    expected = 2 * x
    with pytest.warns(NumbaPerformanceWarning, match="Host array used in CUDA kernel"):
        cuda.jit(double)[1, 64](x)
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize(
    "variable, value",
    [("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "0"), ("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")],
)
def test_the_warning_can_be_turned_off(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    kernel = cuda.jit(double)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaPerformanceWarning)
        kernel[1, 64](np.ones(8))


def test_device_mapped_and_explicit_copies_do_not_warn():
    kernel = cuda.jit(double)
    mapped = cuda.mapped_array(8)
    mapped[:] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaPerformanceWarning)
        kernel[1, 64](cuda.to_device(np.ones(8)))
        kernel[1, 64](mapped)
        cuda.synchronize()
    np.testing.assert_array_equal(mapped, 2)


def test_auto_device(rng):
    host = rng.standard_normal((3, 4))
    with pytest.warns(NumbaPerformanceWarning):
        device, made = cuda.devicearray.auto_device(host)
    assert made and isinstance(device, cuda.devicearray.DeviceNDArray)
    np.testing.assert_array_equal(device.copy_to_host(), host)
    again, made = cuda.devicearray.auto_device(device)
    assert again is device and not made
    viewed, made = cuda.devicearray.auto_device(cuda.as_cuda_array(device))
    assert not made and viewed.device_ctypes_pointer.value == device.device_ctypes_pointer.value
    constant, made = cuda.devicearray.auto_device(2)
    assert made and constant.shape == () and constant.copy_to_host() == 2
    with pytest.raises(ValueError, match="not contiguous"):
        cuda.devicearray.auto_device(host[:, ::2])
    empty, _ = cuda.devicearray.auto_device(host, copy=False, user_explicit=True)
    assert empty.shape == host.shape
