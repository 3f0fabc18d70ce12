"""Device memory reached in ways a second library or a worker thread uses it: an array made
with ``from_cuda_array_interface`` and no owner views the memory the interface names (it
copied nothing and allocated nothing), and copies from a thread that has not used CUDA yet
make a context current first."""

import threading

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime import devicearray

pytestmark = pytest.mark.usefixtures("simulated")


def test_an_interface_without_an_owner_is_viewed_in_place(rng):
    host = rng.standard_normal((5, 7))
    source = cuda.to_device(host)
    viewed = cuda.from_cuda_array_interface(source.__cuda_array_interface__)
    assert viewed.device_ctypes_pointer.value == source.device_ctypes_pointer.value
    assert isinstance(viewed.gpu_data, devicearray.ForeignMemory)
    np.testing.assert_array_equal(viewed.copy_to_host(), host)
    column = viewed[:, 3]  # a view of it shares the memory too
    np.testing.assert_array_equal(column.copy_to_host(), host[:, 3])
    viewed[1:3].copy_to_device(np.zeros((2, 7)))
    host[1:3] = 0
    np.testing.assert_array_equal(source.copy_to_host(), host)


def _in_a_new_thread(work):
    errors = []

    def run():
        try:
            work()
        except BaseException as e:  # the test reports what the thread raised
            errors.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


def test_copies_from_a_thread_that_has_not_used_cuda(rng):
    values = rng.integers(0, 1000, size=100)
    source = cuda.to_device(values)
    target = cuda.to_device(np.zeros_like(values))
    out = np.zeros_like(values)

    def copies():
        target.copy_to_device(source)
        out[:] = source.copy_to_host()

    _in_a_new_thread(copies)
    np.testing.assert_array_equal(out, values)
    np.testing.assert_array_equal(target.copy_to_host(), values)
