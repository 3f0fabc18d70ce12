"""Kernel arguments beyond scalars and arrays: complex numbers, raw pointers (CPointer,
voidptr), tuples and namedtuples (nested, with arrays), records by value. Their types
from Python values, their kernel parameters (docs/abi.md) on both back ends, their
packing, and (marked gpu) launches compared with NumPy."""

import ctypes
import re
import struct

import numpy as np
import pytest
from numba.core import types
from numba.np import numpy_support

from cumlir import cuda
from cumlir.runtime import arguments
from cumlir.typing.signatures import accepts, parse_signature

from .cases import argument_kernels as K
from .support import FakeLaunch, poisoned, ptxas

ENTRIES = {
    **K.SIGNATURES,
    "named_tuple": (K.named_tuple, K.named_tuple_types()),
    "record_by_value": (K.record_by_value, K.record_types()),
}
ARRAY_1D = [".u64"] * 4

# the PTX parameters of each kernel: the ABI of docs/abi.md
PARAMETERS = {
    "complex_scalars": [".f64", ".f64", ".f64", ".f64"] + ARRAY_1D * 2,
    "complex64_scalar": [".f32", ".f32"] + ARRAY_1D * 2,
    "typed_pointer": [".u64", ".u64", ".f32"],
    "void_pointer": [".u64", ".u64"] + ARRAY_1D,
    "scalar_tuple": [".f64"] * 3 + ARRAY_1D * 2,
    "nested_tuple": ARRAY_1D + [".u64", ".f64", ".u8", ".f64", ".f64"] + ARRAY_1D,
    "named_tuple": ARRAY_1D * 2 + [".f64", ".u64", ".f64", ".f64"] + ARRAY_1D,
    "record_by_value": [".u64", ".u64", ".u64"] + ARRAY_1D * 2,
}


def _ptx_parameters(ptx, name):
    entry = re.search(rf"\.entry {name}\((.*?)\)", ptx, re.S).group(1)
    return [re.match(r"\s*\.param (\.\w+)", p).group(1) for p in entry.split(",")]


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_kernel_parameters_follow_the_abi(name, backend):
    kernel, sig = ENTRIES[name]
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend=backend)
    ptxas(ptx, "sm_90")
    assert _ptx_parameters(ptx, kernel.__name__) == PARAMETERS[name]


# ---- types from values -------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,expected",
    [
        (1 + 2j, types.complex128),
        (np.complex64(1 - 2j), types.complex64),
        (np.complex128(3j), types.complex128),
        (ctypes.c_void_p(0x1000), types.voidptr),
        ((1.5, 2.5), types.UniTuple(types.float64, 2)),
        (
            (1, 2.5, (True, 3j)),
            types.Tuple((types.int64, types.float64, types.Tuple((types.boolean, types.complex128)))),
        ),
        ((), types.Tuple(())),
        (K.Window(1.0, 2.0), types.NamedUniTuple(types.float64, 2, K.Window)),
        (np.zeros(3, K.POINT)[1], numpy_support.from_dtype(K.POINT)),
    ],
)
def test_argument_types_from_values(value, expected):
    assert arguments.argument_type(value, 0) == expected


def test_tuples_of_arrays_are_typed_by_their_layout():
    value = (np.zeros((3, 4), np.float32), np.zeros(5, np.int16)[::2], 7)
    ty = arguments.argument_type(value, 0)
    assert ty == types.Tuple((types.float32[:, ::1], types.Array(types.int16, 1, "A"), types.int64))
    named = K.Params(np.zeros(4), np.zeros(4), 2.0, 4)
    c = types.float64[::1]
    assert arguments.argument_type(named, 0) == types.NamedTuple((c, c, types.float64, types.int64), K.Params)


def test_a_tuple_member_that_cannot_be_passed_names_its_place():
    with pytest.raises(TypeError, match=r"argument 2\[1\]\[0\]: values of type object cannot be passed"):
        arguments.argument_type((1, (object(), 2)), 2)


# ---- packing -----------------------------------------------------------------------------


class _DeviceBuffer:
    """A foreign device array: only its __cuda_array_interface__."""

    def __init__(self, pointer, n, typestr):
        self.__cuda_array_interface__ = {
            "version": 3,
            "shape": (n,),
            "typestr": typestr,
            "data": (pointer, False),
            "strides": None,
        }


def _pack(argtypes, args):
    launch = FakeLaunch()
    _, buffer = arguments.ArgumentPacker(argtypes).pack(args, launch)
    return bytes(buffer), launch


def test_complex_numbers_are_two_parameters():
    data, _ = _pack([types.complex128, types.complex64, types.complex128], [1.5 - 2j, np.complex64(3 + 4j), 7])
    assert struct.unpack_from("dd", data, 0) == (1.5, -2.0)
    assert struct.unpack_from("f", data, 16) + struct.unpack_from("f", data, 24) == (3.0, 4.0)
    assert struct.unpack_from("dd", data, 32) == (7.0, 0.0)


def test_complex_argument_that_is_not_a_number_is_refused():
    with pytest.raises(TypeError, match="argument 0: expected a complex number for complex128, got 'x'"):
        _pack([types.complex128], ["x"])


@pytest.mark.parametrize(
    "value,address",
    [
        (0x7F0012340000, 0x7F0012340000),
        (np.uint64(0x2000), 0x2000),
        (ctypes.c_void_p(0x3000), 0x3000),
        (ctypes.c_void_p(None), 0),
        (_DeviceBuffer(0x4000, 8, "<f4"), 0x4000),
    ],
)
def test_pointer_arguments_are_device_addresses(value, address):
    data, _ = _pack([types.CPointer(types.float32)], [value])
    assert struct.unpack("Q", data) == (address,)
    data, _ = _pack([types.voidptr], [value])
    assert struct.unpack("Q", data) == (address,)


@pytest.mark.parametrize(
    "value,error,message",
    [
        (2.5, TypeError, r"argument 0: a float32\* takes a device address \(an int\) or a device array, got float"),
        ("0x1000", TypeError, "got str"),
        (True, TypeError, "not a bool"),
        (-1, OverflowError, "argument 0: -1 is not a 64-bit address"),
        (np.zeros(4, np.float32), TypeError, "a NumPy array lives on the host"),
        (_DeviceBuffer(0x4000, 8, "<f8"), TypeError, r"cannot point to an array of float64"),
    ],
)
def test_bad_pointer_arguments_are_refused(value, error, message):
    with pytest.raises(error, match=message):
        _pack([types.CPointer(types.float32)], [value])


def test_tuples_pack_their_members_in_order():
    argtypes, _ = parse_signature(K.SIGNATURES["nested_tuple"][1])
    a, out = np.arange(3.0), np.zeros(3)
    data, launch = _pack(argtypes, [(a, (-5, 0.5), True, 2 - 3j), out])
    slots = struct.unpack("QqqqqdBxxxxxxxddQqqq", data)
    assert slots[:4] == (0x1000, 0, 3, 1)
    assert slots[4:9] == (-5, 0.5, 1, 2.0, -3.0)
    assert slots[9:] == (0x2000, 0, 3, 1)
    assert [x is y for x, y in zip(launch.staged, (a, out))] == [True, True]


def test_records_in_tuples_are_staged():
    record_type, pair_type, *_ = K.record_types()
    host = np.zeros(3, K.POINT)
    data, launch = _pack([record_type, pair_type], [host[0], (host[2], 9)])
    assert struct.unpack("QQq", data) == (0x1000, 0x2000, 9)
    assert len(launch.staged) == 2


@pytest.mark.parametrize(
    "value,message",
    [
        ((1.0, 2.0), r"argument 0: expected a tuple of 3 values"),
        ([1.0, 2.0, 3.0], r"argument 0: expected a tuple of 3 values"),
        ((1.0, "x", 3.0), r"could not convert string to float"),
    ],
)
def test_bad_tuple_arguments_are_refused(value, message):
    with pytest.raises((TypeError, ValueError), match=message):
        _pack([types.UniTuple(types.float64, 3)], [value])


# ---- eager signatures --------------------------------------------------------------------


@pytest.mark.parametrize(
    "declared,actual,ok",
    [
        ("void(complex128)", (types.complex128,), True),
        ("void(complex128)", (types.float64,), True),
        ("void(complex64)", (types.complex128,), True),
        ("void(CPointer(float32), int64)", (types.int64, types.int64), True),
        ("void(CPointer(float32))", (types.float32[::1],), True),
        ("void(CPointer(float32))", (types.float64[::1],), False),
        ("void(CPointer(float32))", (types.float64,), False),
        ("void(voidptr)", (types.int64,), True),
        ("void(voidptr)", (types.voidptr,), True),
        ("void(voidptr)", (types.int16[:, :],), True),
        ("void(UniTuple(float64, 2))", (types.Tuple((types.int64, types.float64)),), True),
        ("void(UniTuple(float64, 2))", (types.UniTuple(types.float64, 3),), False),
        ("void(Tuple((float64[:], int64)))", (types.Tuple((types.float64[::1], types.int64)),), True),
        ("void(Tuple((float64[:], int64)))", (types.Tuple((types.float32[::1], types.int64)),), False),
    ],
)
def test_eager_signatures_accept_these_arguments(declared, actual, ok):
    assert accepts(parse_signature(declared)[0], actual) is ok


def test_an_eager_kernel_names_the_argument_its_signature_refuses():
    kernel, sig = ENTRIES["typed_pointer"]
    eager = cuda.jit(sig)(kernel)
    assert eager.overload_for((types.int64, types.int64, types.float32)) is eager.overload_for(
        (types.voidptr, types.int32, types.float32)
    )
    with pytest.raises(TypeError, match=r"argument 0: a float64 cannot be passed as float32\*"):
        eager.overload_for((types.float64, types.int64, types.float32))
    with pytest.raises(TypeError, match=r"argument 2: a complex128 cannot be passed as float32"):
        eager.overload_for((types.int64, types.int64, types.complex128))


def _scaled(out, x, n):
    out[0] = x[0] * n


def test_of_several_signatures_the_nearest_is_launched():
    # an int64 would convert to int32 (unsafely): the int64 signature, compiled second, is exact
    eager = cuda.jit(["void(float64[:], float64[:], int32)", "void(float64[:], float64[:], int64)"])(_scaled)
    f64 = types.float64[::1]
    assert eager.overload_for((f64, f64, types.int64)).argtypes[2] == types.int64
    assert eager.overload_for((f64, f64, types.int32)).argtypes[2] == types.int32
    assert eager.overload_for((f64, f64, types.int16)).argtypes[2] == types.int32  # promoted, not to int64
    assert eager.overload_for((f64, f64, types.uint64)).argtypes[2] == types.int32  # unsafe either way: the first
    layouts = cuda.jit(["void(float64[:], float64[:], int64)", "void(float64[::1], float64[::1], int64)"])(_scaled)
    assert layouts.overload_for((f64, f64, types.int64)).argtypes[0] == f64  # the same layout before layout A


# ---- on the GPU --------------------------------------------------------------------------


def _run_both(name, make_args, check, n=300):
    """Launch lazily typed and with the eager signature, each on fresh poisoned outputs."""
    kernel, sig = ENTRIES[name]
    for launched in (cuda.jit(kernel), cuda.jit(sig)(kernel)):
        args = make_args()
        launched[(n + 63) // 64, 64](*args)
        check(*args)


@pytest.mark.gpu
def test_complex_scalars_on_the_gpu(rng):
    n = 300
    a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    z, w = complex(rng.standard_normal(), rng.standard_normal()), np.complex128(rng.standard_normal() - 2j)

    def check(z_, w_, a_, out):
        np.testing.assert_allclose(out, a * z + w, rtol=1e-13, atol=1e-13)

    _run_both("complex_scalars", lambda: (z, w, a, poisoned(n, np.complex128)), check, n)

    a32 = a.astype(np.complex64)
    w32 = np.complex64(0.75 - 1.25j)

    def check32(w_, a_, out):
        assert out.dtype == np.complex64
        np.testing.assert_allclose(out, a32.astype(np.complex128) * complex(w32), rtol=1e-6, atol=1e-5)

    _run_both("complex64_scalar", lambda: (w32, a32, poisoned(n, np.complex64)), check32, n)


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["int", "numpy int", "c_void_p", "device array", "cai object"])
def test_typed_pointer_on_the_gpu(form, rng):
    n = 300
    host = rng.standard_normal(n).astype(np.float32)
    dev = cuda.to_device(host)
    pointer = {
        "int": dev.device_pointer,
        "numpy int": np.uint64(dev.device_pointer),
        "c_void_p": dev.device_ctypes_pointer,
        "device array": dev,
        "cai object": _DeviceBuffer(dev.device_pointer, n, "<f4"),
    }[form]
    kernel, sig = ENTRIES["typed_pointer"]
    # a pointer is only reachable through a signature: a lazily typed int is an int64
    cuda.jit(sig)(kernel)[(n + 63) // 64, 64](pointer, n, np.float32(2.5))
    expected = host * np.float32(2.5) + np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(dev.copy_to_host(), expected)


@pytest.mark.gpu
def test_void_pointer_on_the_gpu(rng):
    n = 300
    host = rng.standard_normal(n)
    dev = cuda.to_device(host)
    out = poisoned(n, np.float64)
    kernel, sig = ENTRIES["void_pointer"]
    cuda.jit(sig)(kernel)[(n + 63) // 64, 64](dev.device_pointer, n, out)
    np.testing.assert_array_equal(out, host * 3.0)
    np.testing.assert_array_equal(dev.copy_to_host(), -host)
    # lazily: a ctypes.c_void_p is typed voidptr
    out = poisoned(n, np.float64)
    cuda.jit(kernel)[(n + 63) // 64, 64](dev.device_ctypes_pointer, n, out)
    np.testing.assert_array_equal(out, -host * 3.0)
    np.testing.assert_array_equal(dev.copy_to_host(), host)


@pytest.mark.gpu
def test_tuples_on_the_gpu(rng):
    n = 300
    a = rng.standard_normal(n)
    t = tuple(rng.standard_normal(3))

    def check(t_, a_, out):
        np.testing.assert_allclose(out, a * t[0] + t[1] - t[2], rtol=1e-13, atol=1e-13)

    _run_both("scalar_tuple", lambda: (t, a, poisoned(n, np.float64)), check, n)

    k, scale, z = int(rng.integers(-50, 50)), float(rng.standard_normal()), complex(rng.standard_normal(), 2.0)
    for flag in (True, False):

        def check_nested(t_, out):
            expected = a * scale + k + (100.0 if flag else -100.0) + z.real * z.imag
            np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)

        _run_both(
            "nested_tuple", lambda: ((cuda.to_device(a), (k, scale), flag, z), poisoned(n, np.float64)), check_nested, n
        )


@pytest.mark.gpu
def test_namedtuples_on_the_gpu(rng):
    n = 300
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    alpha = float(rng.standard_normal())
    window = K.Window(-0.5, 0.75)

    def check(p, w, out):
        expected = np.clip(alpha * a[: n - 7] + b[: n - 7], window.lo, window.hi)
        np.testing.assert_allclose(out[: n - 7], expected, rtol=1e-13, atol=1e-13)
        assert np.isnan(out[n - 7 :]).all()  # beyond p.n: untouched

    _run_both(
        "named_tuple", lambda: (K.Params(a, cuda.to_device(b), alpha, n - 7), window, poisoned(n, np.float64)), check, n
    )


@pytest.mark.gpu
def test_records_by_value_on_the_gpu(rng):
    n = 300
    records = np.zeros(4, K.POINT)
    records["x"] = rng.standard_normal(4)
    records["y"] = rng.integers(-100, 100, 4)
    records["z"] = rng.standard_normal(4) + 1j
    a = rng.standard_normal(n)
    r, other, k = records[1], records[3], 5

    def check(r_, pair, a_, out):
        expected = a * r["x"] + r["y"] + np.float64(np.real(r["z"])) + other["x"] * k
        np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)

    _run_both("record_by_value", lambda: (r, (other, k), a, poisoned(n, np.float64)), check, n)
    standalone = np.array(records[2])[()]  # an np.void that owns its bytes
    assert isinstance(standalone, np.void)
    out = poisoned(n, np.float64)
    cuda.jit(K.record_by_value)[(n + 63) // 64, 64](standalone, (other, k), a, out)
    expected = a * standalone["x"] + standalone["y"] + np.float64(np.real(standalone["z"])) + other["x"] * k
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)


def test_bad_arguments_are_refused_before_the_launch():
    # typing the arguments refuses them: no device is needed to see it
    kernel, sig = ENTRIES["typed_pointer"]
    with pytest.raises(TypeError, match=r"argument 0: a float64 cannot be passed as float32\*"):
        cuda.jit(sig)(kernel)[1, 32](2.5, 4, np.float32(1))
    with pytest.raises(TypeError, match=r"argument 0\[1\]: values of type object cannot be passed"):
        cuda.jit(K.scalar_tuple)[1, 32]((1.0, object(), 2.0), np.zeros(3), np.zeros(3))
