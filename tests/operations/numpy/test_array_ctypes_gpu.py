"""``a.ctypes.data`` on the GPU: the address of each view's first element, as NumPy gives it
for the same view of the host array, on arrays of several dtypes and layouts."""

import numpy as np
import pytest

from cumlir import cuda

pytestmark = pytest.mark.gpu

DTYPES = ["bool", "int8", "uint16", "float32", "float64", "complex128", [("x", "f4"), ("y", "i1")]]


@cuda.jit
def _addresses(a, out):
    out[0] = a.ctypes.data
    out[1] = a[1:].ctypes.data
    out[2] = a[::2].ctypes.data
    out[3] = a[3:, 1:].ctypes.data
    out[4] = a.T.ctypes.data
    out[5] = a[-1].ctypes.data


def _offsets(host):
    """What the kernel's views are, on the host: their addresses less host's own."""
    views = [host, host[1:], host[::2], host[3:, 1:], host.T, host[-1]]
    base = host.__array_interface__["data"][0]
    return np.array([v.__array_interface__["data"][0] - base for v in views], dtype=np.int64)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("order", "CF")
def test_addresses_of_views(dtype, order, rng):
    host = np.zeros((6, 5), dtype=np.dtype(dtype), order=order)
    device = cuda.to_device(host)
    for source in (device, device[1:, ::-1]):  # also a strided view, of layout A
        out = cuda.to_device(np.zeros(6, np.uint64))
        _addresses[1, 1](source, out)
        got = out.copy_to_host().astype(np.int64)
        start = source.__cuda_array_interface__["data"][0]
        assert got[0] == start
        view = host if source is device else host[1:, ::-1]
        expected = _offsets(view) + (view.__array_interface__["data"][0] - host.__array_interface__["data"][0])
        np.testing.assert_array_equal(got - device.__cuda_array_interface__["data"][0], expected)


@cuda.jit
def _aligned(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i:].ctypes.data % 16 == 0


def test_alignment_tests_on_the_address(rng):
    a = cuda.to_device(rng.standard_normal(64).astype(np.float32))
    out = cuda.to_device(np.zeros(64, np.bool_))
    _aligned[1, 64](a, out)
    start = a.__cuda_array_interface__["data"][0]
    expected = np.array([(start + 4 * i) % 16 == 0 for i in range(64)])
    np.testing.assert_array_equal(out.copy_to_host(), expected)
