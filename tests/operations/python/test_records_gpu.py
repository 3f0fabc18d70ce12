"""Records on the GPU: record arrays (host and device), nested records, sub-array fields,
record scalar arguments and records through device functions, against NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ... import support
from ...cases import record_kernels as R

pytestmark = pytest.mark.gpu


def _launch(pyfunc, n, *args, threads=64):
    cuda.jit(pyfunc)[(n + threads - 1) // threads, threads](*args)


def _random_records(dtype, shape, rng):
    """Random values in every scalar field (nested fields included); padding poisoned."""
    out = _poisoned_records(dtype, shape)
    _fill(out, rng)
    return out


def _fill(view, rng):
    for name in view.dtype.names:
        field = view[name]
        if field.dtype.names:
            _fill(field, rng)
        elif field.dtype.kind == "c":
            field[...] = rng.standard_normal(field.shape) + 1j * rng.standard_normal(field.shape)
        elif field.dtype.kind == "f":
            field[...] = rng.standard_normal(field.shape) * 100
        elif field.dtype.kind == "b":
            field[...] = rng.integers(0, 2, field.shape).astype(bool)
        else:
            info = np.iinfo(field.dtype)
            field[...] = rng.integers(info.min, info.max, field.shape, dtype=field.dtype, endpoint=True)


def _random_points(dtype, n, rng):
    """(random points with small y, so that y + k stays in int16, their copy)."""
    points = _random_records(dtype, n, rng)
    points["y"] = rng.integers(-1000, 1000, n)
    return points, points.copy()


def _poisoned_records(dtype, shape):
    """Records whose every byte (padding included) is 0x5A."""
    count = int(np.prod(shape))
    return np.frombuffer(np.full(count * dtype.itemsize, 0x5A, np.uint8).tobytes(), dtype).reshape(shape).copy()


def _assert_fields_equal(actual, expected):
    for name in expected.dtype.names:
        if expected.dtype[name].names:
            _assert_fields_equal(actual[name], expected[name])
        else:
            np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)


def _wrap(values, dtype):
    return values.astype(np.int64).astype(dtype)


@pytest.mark.parametrize("dtype", [R.ALL_PACKED, R.ALL_ALIGNED], ids=["packed", "aligned"])
def test_every_field_type(dtype, rng):
    n = 300
    src = _random_records(dtype, n, rng)
    dst = _poisoned_records(dtype, n)
    _launch(R.copy_all_fields, n, src, dst)
    expected = np.zeros(n, dtype)
    expected["b"] = ~src["b"]
    for name in ("i1", "u1", "i2", "u2", "i4", "u4", "i8"):
        expected[name] = _wrap(src[name].astype(np.int64) + 1, src[name].dtype)
    expected["u8"] = src["u8"] ^ src["u1"].astype(np.uint64)
    expected["f2"] = src["f2"] + src["f2"]
    expected["f4"] = (src["f4"].astype(np.float64) + 1).astype(np.float32)
    expected["f8"] = src["f8"] + 1
    expected["c8"] = src["c8"] * np.complex64(2)
    expected["c16"] = src["c16"] * 2
    expected["pad"] = src["pad"]
    _assert_fields_equal(dst, expected)


@pytest.mark.parametrize("dtype", [R.POINT_PACKED, R.POINT_ALIGNED], ids=["packed", "aligned"])
def test_read_and_write_through_references(dtype, rng):
    n = 500
    points, before = _random_points(dtype, n, rng)
    out = support.poisoned(n, np.float64)
    _launch(R.point_update, n, points, out)
    product = before["z"] * before["y"]
    support.assert_contractible(out, before["x"].astype(np.float64) + product, before["x"], product)
    np.testing.assert_array_equal(points["y"], before["y"] + 1)
    np.testing.assert_array_equal(points["x"], before["z"].astype(np.float32))
    np.testing.assert_array_equal(points["z"], before["z"])


@pytest.mark.parametrize("dtype", [R.POINT_PACKED, R.POINT_ALIGNED], ids=["packed", "aligned"])
def test_whole_record_copies(dtype, rng):
    n = 257
    src = _random_records(dtype, n, rng)
    dst = _poisoned_records(dtype, n)
    _launch(R.record_copy, n, src, dst)
    if cuda.is_simulator():  # the CPU copies a record's fields, not its padding (docs/simulator.md)
        _assert_fields_equal(dst, src[::-1])
    else:
        assert dst.tobytes() == src[::-1].tobytes()
    a = _random_records(dtype, n, rng)
    before = a.copy()
    _launch(R.swap_pairs, n // 2, a)
    expected = before.copy()
    expected["x"][0 : n - 1 : 2], expected["x"][1:n:2] = before["x"][1:n:2], before["x"][0 : n - 1 : 2]
    _assert_fields_equal(a, expected)


@pytest.mark.parametrize("order", ["C", "F", "strided"])
@pytest.mark.parametrize("dtype", [R.POINT_PACKED, R.POINT_ALIGNED], ids=["packed", "aligned"])
def test_two_dimensional_record_arrays(dtype, order, rng):
    base = _random_records(dtype, (37, 40), rng)
    points = {"C": base, "F": np.asfortranarray(base), "strided": base[:, ::3]}[order]
    before = points.copy()
    out = support.poisoned(points.size, np.float64).reshape(points.shape)
    cuda.jit(R.points_2d)[(3, 3), (16, 16)](points, out)
    np.testing.assert_array_equal(out, before["z"] - before["x"].astype(np.float64))
    i, j = np.indices(points.shape)
    np.testing.assert_array_equal(points["y"], i * 10 + j)
    np.testing.assert_array_equal(points["z"], before["z"])


@pytest.mark.parametrize("dtype", [R.OUTER, R.OUTER_PACKED], ids=["aligned", "packed"])
def test_nested_records(dtype, rng):
    n = 200
    a = _random_records(dtype, n, rng)
    before = a.copy()
    out = support.poisoned(n, np.float64)
    _launch(R.nested, n, a, out)
    inner = before["inner"]
    expected = inner["a"] + inner["b"] * before["w"].astype(np.float64) + before["tag"]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(a["inner"]["a"], np.arange(n))
    np.testing.assert_array_equal(a["inner"]["b"], -inner["b"])
    np.testing.assert_array_equal(a["w"], before["w"])
    b = _poisoned_records(dtype, n)
    _launch(R.nested_copy, n, before, b)
    _assert_fields_equal(b["inner"], before["inner"])


@pytest.mark.parametrize("dtype", [R.WITH_ARRAY, R.WITH_ARRAY_PACKED], ids=["aligned", "packed"])
def test_sub_array_fields_assigned_whole(dtype, rng):
    n = 150
    a = _random_records(dtype, n, rng)
    b = _random_records(dtype, n, rng)
    before = a.copy()
    rows = rng.integers(-1000, 1000, (n, 3))  # int64, converted into the float32 field
    grid = rng.standard_normal((n, 2, 2)) * 1e3  # float64, truncated into the int64 field
    s = 2.5
    _launch(R.whole_sub_arrays, n, a, b, rows, grid, s)
    expected = before.copy()
    for i in range(n):  # NumPy's assignments, one record after another
        if i % 4 == 0:
            expected[i]["v"], expected[i]["m"] = b[i]["v"], b[i]["m"]
        elif i % 4 == 1:
            expected[i]["v"], expected[i]["m"] = rows[i], grid[i]
        elif i % 4 == 2:
            expected[i]["v"], expected[i]["m"] = rows[i, :1], rows[i, 1:3]
        else:
            expected[i]["v"], expected[i]["m"] = s, i
    _assert_fields_equal(a, expected)


@pytest.mark.parametrize("dtype", [R.WITH_ARRAY, R.WITH_ARRAY_PACKED], ids=["aligned", "packed"])
def test_sub_array_fields(dtype, rng):
    n = 150
    a = _random_records(dtype, n, rng)
    a["n"] = rng.integers(-1000, 1000, n)
    before = a.copy()
    out = support.poisoned(n, np.float64)
    _launch(R.sub_arrays, n, a, out)
    v = before["v"]
    expected = ((v[:, 0] + v[:, 1]) + v[:, 2]).astype(np.float64) + before["m"][:, 1, 0]
    np.testing.assert_array_equal(out, expected)
    expected_v = v.copy()
    expected_v[:, 1] = before["n"]
    np.testing.assert_array_equal(a["v"], expected_v)
    expected_m = before["m"].copy()
    expected_m[:, 0, 1] = np.arange(n)
    np.testing.assert_array_equal(a["m"], expected_m)


@pytest.mark.parametrize("dtype", [R.POINT_PACKED, R.POINT_ALIGNED], ids=["packed", "aligned"])
def test_record_scalar_argument_is_written_back(dtype, rng):
    host = _random_records(dtype, 3, rng)
    before = host.copy()
    out = support.poisoned(1, np.float64)
    cuda.jit(R.record_argument)[1, 1](host[1], out)
    assert out[0] == before["x"][1].astype(np.float64) + before["z"][1]
    assert host["y"][1] == 7
    assert host["x"][1] == np.float32(before["x"][1].astype(np.float64) * 2)
    _assert_fields_equal(host[[0, 2]], before[[0, 2]])


@pytest.mark.parametrize("dtype", [R.POINT_PACKED, R.POINT_ALIGNED], ids=["packed", "aligned"])
def test_records_through_device_functions(dtype, rng):
    n = 300
    points, before = _random_points(dtype, n, rng)
    out = support.poisoned(n, np.float64)
    _launch(R.through_device_function, n, points, out)
    np.testing.assert_array_equal(out, np.abs(before["x"]).astype(np.float64) + np.abs(before["z"]))
    np.testing.assert_array_equal(points["y"], before["y"] + 3)
    np.testing.assert_array_equal(points["x"], np.full(n, 1.5, np.float32))


def test_iterating_over_records(rng):
    points = _random_records(R.POINT_PACKED, 100, rng)
    out = support.poisoned(1, np.float64)
    cuda.jit(R.iterate_records)[1, 1](points, out)
    total = 0.0
    for z in points["z"].tolist():
        total += z
    assert out[0] == total


class _DeviceRecords:
    """A device buffer exposing a record array through the CUDA Array Interface (with descr)."""

    def __init__(self, buffer, dtype, shape):
        self._buffer = buffer
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": dtype.str,
            "descr": dtype.descr,
            "data": (buffer.data.ptr, False),
            "strides": None,
            "version": 3,
        }


def test_device_record_array(rng):
    cp = pytest.importorskip("cupy")
    n = 400
    host, _ = _random_points(R.POINT_PACKED, n, rng)
    device = cp.asarray(host.view(np.uint8).reshape(-1))
    out = cp.full(n, cp.nan, cp.float64)
    _launch(R.point_update, n, _DeviceRecords(device, R.POINT_PACKED, (n,)), out)
    cp.cuda.runtime.deviceSynchronize()
    result = device.get().view(R.POINT_PACKED)
    product = host["z"] * host["y"]
    support.assert_contractible(out.get(), host["x"].astype(np.float64) + product, host["x"], product)
    np.testing.assert_array_equal(result["y"], host["y"] + 1)
    np.testing.assert_array_equal(result["x"], host["z"].astype(np.float32))


@pytest.mark.parametrize("step", [1, 2])
def test_field_views(step, rng):
    points = _random_records(R.POINT_ALIGNED, 301, rng)
    view = points[::step]
    before = view.copy()
    out = support.poisoned(len(view), np.float64)
    _launch(R.field_views, len(view), view, out)
    np.testing.assert_array_equal(out, before["z"] * 2)
    np.testing.assert_array_equal(view["x"], np.arange(len(view), dtype=np.float32))
    np.testing.assert_array_equal(view["y"], before["y"])


def test_sliced_and_reshaped_record_arrays(rng):
    m = 150
    points = _random_records(R.POINT_PACKED, 2 * m, rng)
    out = support.poisoned(m, np.float64)
    _launch(R.sliced_and_reshaped, m, points, out)
    np.testing.assert_array_equal(out, points["z"][1::2] + points["x"][m:].astype(np.float64))
