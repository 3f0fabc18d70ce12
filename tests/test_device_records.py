"""``DeviceRecord`` (runtime/devicerecord.py): an element of a device array of records stays in
device memory, as Numba-CUDA's: its scalar fields read to the host, nested records and
sub-array fields are device views whose writes land in the array, a whole record copies
both ways, and a kernel given one reads and writes it in place. Run on the simulator in the
CPU tier and on the GPU in the gpu tier."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime.devicerecord import DeviceRecord

from . import support

INNER = np.dtype([("i", np.int32), ("j", np.float32, (2, 3))])
OUTER = np.dtype([("x", np.float64), ("c", np.complex64), ("y", INNER), ("s", "S4")], align=True)


def _host(rng, n=3):
    host = np.zeros(n, OUTER)
    host["x"] = rng.standard_normal(n)
    host["c"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    host["y"]["i"] = rng.integers(-100, 100, n)
    host["y"]["j"] = rng.standard_normal((n, 2, 3))
    host["s"] = [b"ab", b"cdef", b"g"][:n]
    return host


def test_fields_read_as_numba_cudas(simulator_or_gpu, rng):
    host = _host(rng)
    d = cuda.to_device(host)
    rec = d[1]
    assert isinstance(rec, DeviceRecord) and rec.dtype == OUTER and rec.shape == ()
    assert rec["x"] == host[1]["x"] and isinstance(rec["x"], np.float64)
    assert rec["c"] == host[1]["c"] and rec["s"] == host[1]["s"]
    assert isinstance(rec["y"], DeviceRecord) and rec["y"]["i"] == host[1]["y"]["i"]
    np.testing.assert_array_equal(rec["y"]["j"].copy_to_host(), host[1]["y"]["j"])
    assert rec[0] == host[1][0]  # a field by position
    with pytest.raises(KeyError, match="has no field 'z'"):
        rec["z"]


def test_writes_through_a_record_land_in_the_array(simulator_or_gpu, rng):
    host = _host(rng)
    d = cuda.to_device(host)
    d[0]["x"] = 0.5
    d[0]["y"]["i"] = 7
    d[2]["y"]["j"] = np.arange(6).reshape(2, 3)  # a whole sub-array field
    d[2]["y"]["j"][1, 2] = 2.5  # one element of it, through its device view
    d[1]["y"] = np.array((11, np.full((2, 3), 3.0)), INNER)
    d[1]["s"] = b"zz"
    expected = host.copy()
    expected[0]["x"], expected[0]["y"]["i"] = 0.5, 7
    expected[2]["y"]["j"] = np.arange(6).reshape(2, 3)
    expected[2]["y"]["j"][1, 2] = 2.5
    expected[1]["y"] = (11, np.full((2, 3), 3.0))
    expected[1]["s"] = b"zz"
    got = d.copy_to_host()
    for name in OUTER.names:
        np.testing.assert_array_equal(got[name], expected[name])


def test_a_whole_record_copies_both_ways(simulator_or_gpu, rng):
    host = _host(rng)
    d = cuda.to_device(np.zeros(3, OUTER))
    d[1].copy_to_device(host[2])
    into = np.zeros(1, OUTER)[0]
    assert d[1].copy_to_host(into) is into
    assert into.tobytes() == host[2].tobytes()
    assert d[1].copy_to_host().tobytes() == host[2].tobytes()
    single = cuda.to_device(host[0])  # a host record: a DeviceRecord of its own
    assert isinstance(single, DeviceRecord) and single.copy_to_host().tobytes() == host[0].tobytes()


def _update(rec, out):
    out[0] = rec.x + rec.y.i
    rec.y.i = 42
    rec.y.j[1, 1] = rec.x


def test_a_kernel_reads_and_writes_a_device_record_in_place(simulator_or_gpu, rng):
    host = _host(rng)
    d = cuda.to_device(host)
    out = support.poisoned(1, np.float64)
    cuda.jit(_update)[1, 1](d[2], out)
    assert out[0] == host[2]["x"] + host[2]["y"]["i"]
    got = d.copy_to_host()
    assert got[2]["y"]["i"] == 42 and got[2]["y"]["j"][1, 1] == np.float32(host[2]["x"])
    assert got[:2].tobytes() == host[:2].tobytes()  # the other records untouched


def test_records_made_as_numba_cuda_makes_them(simulator_or_gpu, rng):
    from cumlir.runtime.devicearray import from_record_like

    host = _host(rng, 1)[0]
    made = DeviceRecord(OUTER)
    made.copy_to_device(host)
    assert made.copy_to_host().tobytes() == host.tobytes()
    like = from_record_like(made)
    assert isinstance(like, DeviceRecord) and like.dtype == OUTER and like.device_pointer != made.device_pointer
    over = from_record_like(host, gpu_data=made.gpu_data)  # the same memory
    assert over["y"]["i"] == host["y"]["i"]
    assert cuda.devicearray.DeviceRecord is DeviceRecord
    with pytest.raises(TypeError, match="structured dtype"):
        DeviceRecord(np.float64)
