"""The launch fast path (runtime/fastpack.py, runtime/readers.py, ConfiguredKernel), on a
fake driver (tests/fake_driver.py): kernels compile for real and each launch records the
bytes of its parameters. After the first launch with some argument kinds, later launches
must write exactly the bytes the general packer writes for the same values, without
typing the arguments again; anything else must go the general way with its checks."""

import collections
import ctypes
import enum
import itertools
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

from cumlir import cuda, dispatcher
from cumlir.runtime import arguments, placement, readers

from . import fake_driver
from .cases import launch_kernels as K
from .fake_arrays import FakeCupyArray, FakeNumbaArray, FakeTensor, InterfaceOnly, install_fake_cupy

Pair = collections.namedtuple("Pair", "x y")


@cuda.jit
def nothing():
    pass


three = cuda.jit(K.vadd)


@cuda.jit
def matrix(a, b):
    b[0, 0] = a[0, 0]


@cuda.jit
def sixteen(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    pass


@cuda.jit
def one(x):
    pass


@cuda.jit
def scaled(t, out):
    out[0] = t[0] * t[1]


@cuda.jit
def nested(t, out):
    out[0] = t[0][0] * t[0][1] + t[1]


three_eager = cuda.jit(K.VADD_FLOAT32)(K.vadd)


@cuda.jit
def gathering(out, *rest):
    out[0] = len(rest)


@cuda.jit("void(int32, float32, boolean, complex64)")
def eager_scalars(i, f, b, z):
    pass


@pytest.fixture
def fake(monkeypatch):
    driver = fake_driver.install(monkeypatch)
    kernels = [k for k in globals().values() if isinstance(k, dispatcher.Dispatcher)]
    for kernel in kernels:  # loaded with another test's driver
        fake_driver.forget_loaded(kernel)
    forget_cupy_streams = install_fake_cupy(monkeypatch)
    monkeypatch.setattr(readers, "SYNC", True)
    yield driver
    for kernel in kernels:  # nothing of the fakes stays for tests on a real GPU
        fake_driver.forget_loaded(kernel)
    forget_cupy_streams()


def _slots(args, kernel=None):
    """The parameter slots the launch of *kernel* with *args* reads (its compiled types')."""
    types = tuple(arguments.argument_type(a, i) for i, a in enumerate(args))
    if kernel is not None:
        return kernel.overload_for(types).loaded().record.packer.slots
    return arguments.ArgumentPacker(types).slots


def _general_bytes(kernel, args):
    """What the general packer writes for *args* (arrays on the device already)."""
    types = tuple(arguments.argument_type(a, i) for i, a in enumerate(args))
    packer = kernel.overload_for(types).loaded().record.packer
    return bytes(packer.pack(args, _NoStaging())[1])[: arguments.SLOT * packer.slots]


class _NoStaging:
    stream = -1

    def wait_for_producer(self, stream):
        pass


def _launch(fake, launcher, args):
    fake.slots = _slots(args, launcher.dispatcher)
    launcher(*args)
    return fake.launches[-1]


def _twice(fake, general, kernel, config, *args):
    """Launch twice; the second must take the fast path and write what the first did."""
    first = _launch(fake, kernel[config], args)
    before = len(general)
    second = _launch(fake, kernel[config], args)
    assert len(general) == before, "the second launch typed its arguments again"
    assert second["params"] == first["params"]
    assert second["params"] == _general_bytes(kernel, args)
    return second


# ---- the fast path writes what the general path writes ---------------------------------------


def test_no_arguments(fake, general):
    launch = _twice(fake, general, nothing, (2, 32))
    assert launch["grid"] == (2, 1, 1) and launch["block"] == (32, 1, 1) and launch["params"] == b""


SCALARS = [
    1,
    -(2**63),
    2**63 - 1,
    2.5,
    True,
    False,
    1.5 - 2j,
    np.float32(-0.75),
    np.float16(3.5),
    np.int8(-7),
    np.uint8(250),
    np.int16(-300),
    np.uint16(65000),
    np.int32(-(2**31)),
    np.uint32(2**32 - 1),
    np.uint64(2**64 - 1),
    np.bool_(True),
    np.complex64(1 - 1j),
    np.complex128(2j),
    np.float64(-1e300),
]


@pytest.mark.parametrize("value", SCALARS, ids=[f"{type(v).__name__}({v})" for v in SCALARS])
def test_scalars(fake, general, value):
    _twice(fake, general, one, (1, 1), value)


def test_sixteen_scalars_of_mixed_types(fake, general):
    values = [
        1,
        2.0,
        np.float32(3),
        np.int16(4),
        True,
        6,
        7.5,
        np.uint64(8),
        9,
        10.25,
        np.int8(-11),
        12,
        13.0,
        14,
        15,
        16,
    ]
    launch = _twice(fake, general, sixteen, (1, 1), *values)
    other = [v * 2 if not isinstance(v, bool) else not v for v in values]
    fake.slots = 16
    sixteen[1, 1](*other)
    assert fake.launches[-1]["params"] == _general_bytes(sixteen, other) != launch["params"]


def test_eager_scalar_conversions(fake, general):
    # an int for complex64, a float for int32 (truncated, as the general path converts it)
    for values in (
        [7, 2.5, 1, 3],
        [np.int64(-3), 1, 0.0, 1.5 + 2j],
        [2.9, np.float64(0.1), np.bool_(False), np.complex128(1j)],
    ):
        _twice(fake, general, eager_scalars, (1, 1), *values)


def test_tuples_and_namedtuples(fake, general):
    out = cuda.device_array(4)
    _twice(fake, general, scaled, (1, 1), (2.0, 3.5), out)
    _twice(fake, general, scaled, (1, 1), Pair(np.float32(2), 7), out)
    _twice(fake, general, nested, (1, 1), ((1, 2.5), 4.0), out)


def test_star_args_of_each_count(fake, general):
    # each count of the launch's arguments is a kernel of its own, with its own route
    out = cuda.device_array(4)
    _twice(fake, general, gathering, (1, 1), out, 2.0, np.int32(3))
    _twice(fake, general, gathering, (1, 1), out)
    _twice(fake, general, gathering, (1, 1), out, (1, 2.5), out)
    before = len(general)
    _launch(fake, gathering[1, 1], (out, 4.0, np.int32(-1)))
    assert len(general) == before
    assert len(gathering.overloads) == 3


@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_cumlir_device_arrays(fake, general, order):
    base = cuda.device_array((6, 8), np.float64, order="F" if order == "F" else "C")
    a = base if order != "A" else base[:, ::2]
    b = cuda.device_array((3, 3), np.float64)
    _twice(fake, general, matrix, (1, 1), a, b)
    # a new view of the same type: read without typing it
    view = {"C": base[1:], "F": base[:, 1:], "A": base[1:, ::2]}[order]
    before = len(general)
    launch = _launch(fake, matrix[1, 1], (view, b))
    assert len(general) == before
    assert launch["params"] == _general_bytes(matrix, (view, b))


def _three(make, dtype=np.float32, n=50):
    return [make(np.arange(n, dtype=dtype) * k) for k in (1, 2, 3)]


@pytest.mark.parametrize(
    "make",
    [FakeCupyArray, FakeTensor, FakeNumbaArray, InterfaceOnly, lambda h: cuda.to_device(h)],
    ids=["cupy", "torch", "numba", "interface", "cumlir"],
)
def test_three_arrays(fake, general, make):
    args = _three(make)
    _twice(fake, general, three, (2, 32), *args)
    # other arrays of the same type: other pointers and sizes, still no typing
    others = _three(make, n=77)
    before = len(general)
    launch = _launch(fake, three[2, 32], others)
    assert len(general) == before
    assert launch["params"] == _general_bytes(three, others)


@pytest.mark.parametrize(
    "make", [FakeCupyArray, FakeTensor, FakeNumbaArray, InterfaceOnly], ids=["cupy", "torch", "numba", "interface"]
)
@pytest.mark.parametrize(
    "shape,key",
    [
        ((5, 7), np.s_[:, :]),
        ((5, 7), np.s_[::2, 1:]),
        ((1, 7), np.s_[:, :]),
        ((0, 3), np.s_[:, :]),
        ((5, 1), np.s_[::-1, :]),
    ],
)
def test_layouts_of_foreign_arrays(fake, general, make, shape, key):
    for order in "CF":
        a = make(np.zeros(shape, np.float64, order=order)[key])
        b = make(np.zeros((2, 2)))
        _twice(fake, general, matrix, (1, 1), a, b)


def test_a_slice_of_another_layout_takes_the_general_path(fake, general):
    a, b = (FakeCupyArray(np.zeros((4, 6))) for _ in range(2))
    _twice(fake, general, matrix, (1, 1), a, b)
    strided = FakeCupyArray(np.zeros((4, 6))[:, ::2])
    before = len(general)
    launch = _launch(fake, matrix[1, 1], (strided, b))
    assert len(general) == before + 1
    assert launch["params"] == _general_bytes(matrix, (strided, b))
    assert len(matrix.overloads) >= 2  # the strided array is typed 'A': another kernel


def test_alternating_argument_types(fake, general):
    f32 = _three(FakeCupyArray)
    f64 = _three(FakeCupyArray, np.float64)
    for args in (f32, f64, f32, f64, f32):
        launch = _launch(fake, three[1, 64], args)
        assert launch["params"] == _general_bytes(three, args)
    f32_types = tuple(arguments.argument_type(a, 0) for a in f32)
    f64_types = tuple(arguments.argument_type(a, 0) for a in f64)
    assert f32_types in three.overloads and f64_types in three.overloads


def test_the_last_launch_function_declines_other_kinds_and_counts(fake, general):
    # a configured kernel tries the launch function that launched last before looking the
    # kinds up: other kinds, fewer or more arguments must still find their own way
    cupy_args = _three(FakeCupyArray)
    own_args = tuple(cuda.to_device(a._host) for a in cupy_args)
    launcher = three[1, 32]
    for args in (cupy_args, own_args, cupy_args, own_args):
        launch = _launch(fake, launcher, args)
        assert launch["params"] == _general_bytes(three, args)
    for wrong in (cupy_args[:2], (*cupy_args, cupy_args[0])):
        before = len(general)
        with pytest.raises(TypeError):
            launcher(*wrong)
        assert len(general) == before + 1


# ---- the launcher cache ----------------------------------------------------------------------


def test_configurations_are_cached(fake):
    assert nothing[4, 128] is nothing[4, 128]
    assert nothing[(4, 2), 128] is nothing[(4, 2), 128]
    assert nothing[4, 128, 0, 0] is nothing[4, 128]  # the same meaning, the same launcher
    s = cuda.stream()
    assert nothing[4, 128, s] is nothing[4, 128, s.handle]
    assert nothing[4, 128, s].config.stream == s.handle
    assert nothing.configure(4, 128) is nothing[4, 128]


@pytest.mark.parametrize("config", [(1.0, 32), (1, 32.0), (True, 32), ((1, 1.0), 32), (1, 32, 0, 0.0)])
def test_a_cached_configuration_does_not_accept_equal_values_of_other_types(fake, config):
    nothing[1, 32]
    nothing[(1, 1), 32]
    nothing[1, 32, 0, 0]
    with pytest.raises(TypeError):
        nothing[config]


def test_lists_and_numpy_ints_still_configure(fake):
    fake.slots = 0
    nothing[[2, 2], np.int64(32)]()
    assert fake.launches[-1]["grid"] == (2, 2, 1) and fake.launches[-1]["block"] == (32, 1, 1)


def test_new_compiled_signatures_forget_the_fast_paths(fake, general):
    args = _three(FakeCupyArray)
    _twice(fake, general, three, (1, 32), *args)
    three.compile("void(float32[:], float32[:], float32[:])")
    before = len(general)
    _launch(fake, three[1, 32], args)
    assert len(general) == before + 1


# ---- bad input: refused before the launch ----------------------------------------------------


@pytest.mark.parametrize(
    "config,message",
    [
        ((1, 2048), "more than the 1024"),
        ((1, (32, 32, 2)), "more than the 1024"),
        ((1, (1, 1, 128)), "block dimension z = 128 exceeds this device's limit of 64"),
        ((1, (2048, 1)), "more than the 1024"),
        (((1, 70000), 32), "grid dimension y = 70000 exceeds this device's limit of 65535"),
        (((1, 1, 65536), 32), "grid dimension z = 65536"),
        ((0, 32), "at least 1"),
        ((1, 0), "at least 1"),
        ((1, 32, 0, 300_000), "more than the 232448 bytes per block"),
    ],
)
def test_bad_configurations(fake, config, message):
    fake.slots = 0
    for _ in range(2):  # also once a fast path exists for other configurations
        with pytest.raises(ValueError, match=message):
            nothing[config]()
        nothing[1, 32]()
    assert all(launch["block"] == (32, 1, 1) for launch in fake.launches)


def test_a_stream_of_another_context_is_refused(fake):
    s = cuda.stream()
    fake.stream_contexts[s.handle] = fake_driver.CONTEXT + 7
    fake.slots = 0
    with pytest.raises(ValueError, match="belongs to CUDA context 0x5007, not to the current one"):
        nothing[1, 1, s]()
    assert not fake.launches
    fake.stream_contexts.clear()
    nothing[1, 1, s]()
    assert fake.launches[-1]["stream"] == s.handle


@pytest.mark.parametrize("make", [FakeCupyArray, FakeTensor], ids=["cupy", "torch"])
def test_an_array_of_another_device_is_refused(fake, general, make, monkeypatch):
    """Strict placement (tests/test_placement.py has the rest)."""
    monkeypatch.setenv("CUMLIR_STRICT_DEVICE", "1")
    monkeypatch.setattr(placement, "_several", True)
    fake.devices = 2
    args = _three(make)
    _twice(fake, general, three, (1, 32), *args)
    count = len(fake.launches)
    elsewhere = make(np.zeros(50, np.float32), 1)
    with pytest.raises(
        ValueError, match="argument 2: the .* is on CUDA device 1, but the kernel is launched on device 0"
    ):
        three[1, 32](args[0], args[1], elsewhere)
    assert len(fake.launches) == count


def test_an_eager_kernel_refuses_a_type_change(fake, general):
    args = _three(FakeCupyArray)
    _twice(fake, general, three_eager, (1, 32), *args)
    count = len(fake.launches)
    wrong = _three(FakeCupyArray, np.float64)
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        three_eager[1, 32](*wrong)
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        three_eager[1, 32](args[0], args[1], 3.0)
    assert len(fake.launches) == count
    _launch(fake, three_eager[1, 32], args)  # and the right types still launch


def test_values_that_do_not_fit_raise_the_general_error(fake, general):
    fake.slots = 4
    eager_scalars[1, 1](1, 2.0, True, 1j)
    with pytest.raises(OverflowError, match="argument 0: 4294967296 does not fit in int32"):
        eager_scalars[1, 1](2**32, 2.0, True, 1j)
    _twice(fake, general, eager_scalars, (1, 1), 1, 1e300, True, 1j)  # float32 infinity, as NumPy's cast
    fake.slots = 1
    one[1, 1](5)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        one[1, 1](2**64)
    with pytest.raises(TypeError, match="takes 1 arguments but 2 were given"):
        one[1, 1](1, 2)
    with pytest.raises(TypeError, match="positional arguments only"):
        one[1, 1](x=1)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 7


class Shade(enum.Enum):
    DARK = 3
    LIGHT = 5


@cuda.jit("void(complex32)")
def half_complex(z):
    pass


@cuda.jit("void(tf32)")
def tensor_float(x):
    pass


def _every_time_general(fake, general, launcher, args):
    for _ in range(3):
        before = len(general)
        launch = _launch(fake, launcher, args)
        assert len(general) == before + 1, "a route was made for arguments the fast path declines"
    return launch["params"]


@pytest.mark.parametrize("member", [Level.HIGH, Shade.LIGHT, Shade.DARK])
def test_enum_members_take_the_general_path_as_their_values(fake, general, member):
    assert _every_time_general(fake, general, one[1, 1], (member,)) == struct.pack("q", member.value)


def test_complex32_takes_the_general_path_rounding_each_part(fake, general):
    params = _every_time_general(fake, general, half_complex[1, 1], (0.1 + 65519j,))
    slot = arguments.SLOT
    assert struct.unpack_from("e", params, 0)[0] == float(np.float16(0.1))
    assert struct.unpack_from("e", params, slot)[0] == 65504.0


def test_tf32_takes_the_general_path_rounding_ties_away(fake, general):
    params = _every_time_general(fake, general, tensor_float[1, 1], (1 + 2.0**-11,))
    assert struct.unpack_from("f", params, 0)[0] == 1 + 2.0**-10


# ---- streams, contexts, threads ----------------------------------------------------------------


def test_the_interface_stream_is_waited_for(fake, general):
    args = _three(FakeCupyArray)
    s = cuda.stream()
    FakeCupyArray.current_stream = 0xABC0  # CuPy's current stream is another one
    _launch(fake, three[1, 32, s], args)
    _launch(fake, three[1, 32, s], args)
    assert fake.synchronized == [0xABC0, 0xABC0]  # once per launch, general and fast
    FakeCupyArray.current_stream = s.handle
    _launch(fake, three[1, 32, s], args)
    FakeCupyArray.current_stream = 0
    _launch(fake, three[1, 32], args)  # the default stream, named 1 by the interface
    assert fake.synchronized == [0xABC0, 0xABC0]


def test_the_interface_stream_wait_can_be_turned_off(fake, general, monkeypatch):
    monkeypatch.setattr(readers, "SYNC", False)
    args = [InterfaceOnly(np.zeros(8, np.float32), stream=0x7700) for _ in range(3)]
    _twice(fake, general, three, (1, 32), *args)
    assert fake.synchronized == []


@pytest.mark.parametrize("name", ["CUMLIR_CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC"])
def test_the_sync_switch_is_read_from_the_environment(name):
    code = "from cumlir.runtime import readers; print(readers.SYNC)"
    env = {**os.environ, name: "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_another_current_context_takes_the_general_path(fake, general):
    fake.devices = 2
    args = _three(FakeCupyArray)
    _twice(fake, general, three, (1, 32), *args)
    cuda.select_device(1)
    moved = [FakeCupyArray(np.zeros(50, np.float32), 1) for _ in range(3)]
    before = len(general)
    launch = _launch(fake, three[1, 32], moved)
    assert len(general) == before + 1  # the kernel is loaded in device 1's context
    cuda.select_device(0)
    _launch(fake, three[1, 32], args)
    assert len(general) == before + 2  # the route of device 1 is the current one: not device 0's
    _launch(fake, three[1, 32], args)
    assert len(general) == before + 2
    assert launch["params"] == _general_bytes(three, moved)


def test_a_busy_route_launches_the_general_way(fake, general):
    args = _three(FakeCupyArray)
    _twice(fake, general, three, (1, 32), *args)
    route = three._launches.routes[tuple(map(type, args))]
    with route.lock:  # another thread filling the buffer
        before = len(general)
        launch = _launch(fake, three[1, 32], args)
        assert len(general) == before + 1
    assert launch["params"] == _general_bytes(three, args)


def test_numpy_arrays_are_copied_in_and_out(fake, general):
    a, b = np.arange(10.0), np.arange(10.0)
    out = np.zeros(10)
    fake.slots = _slots((a, b, out))
    three[1, 32](a, b, out)
    three[1, 32](a, b, out)
    assert len(general) == 2  # host arrays are staged: no fast path
    assert len(fake.launches) == 2


def test_records_and_pointers(fake, general):
    @cuda.jit("void(voidptr, CPointer(float32))")
    def pointers(p, q):
        pass

    _twice(fake, general, pointers, (1, 1), 0x1000, ctypes.c_void_p(0x2000))
    _twice(fake, general, pointers, (1, 1), np.uint64(0x3000), 0x4000)


def test_the_stream_of_a_numba_array_is_waited_for(fake, general):
    args = [FakeNumbaArray(np.zeros(8, np.float32), stream=0xDD00) for _ in range(3)]
    _twice(fake, general, three, (1, 32), *args)
    assert fake.synchronized == [0xDD00, 0xDD00]
    quiet = [FakeNumbaArray(np.zeros(8, np.float32)) for _ in range(3)]
    _launch(fake, three[1, 32], quiet)
    assert fake.synchronized == [0xDD00, 0xDD00]


def test_enabling_compilation_again_forgets_the_fast_paths(fake, general):
    kernel = cuda.jit(K.VADD_FLOAT32)(K.vadd)
    args = _three(FakeCupyArray)  # 'C' arrays, which the signature's 'A' kernel accepts
    _twice(fake, general, kernel, (1, 32), *args)
    assert len(kernel.overloads) == 1
    kernel.disable_compile(False)
    before = len(general)
    _launch(fake, kernel[1, 32], args)  # typed again: now compiled for 'C' arrays
    assert len(general) == before + 1
    assert len(kernel.overloads) == 2


def test_numpy_array_types_kept_by_flags_agree_with_their_layouts(monkeypatch):
    # the general path types a NumPy array by its dtype, dimensions and NumPy's flags:
    # every view must get the type its shape and strides give
    monkeypatch.setattr(arguments, "_HOST_TYPES", {})
    checked = 0
    for shape in [(0,), (1,), (5,), (1, 5), (5, 1), (3, 4), (0, 3), (2, 3, 4), (1, 3, 1)]:
        for order in "CF":
            base = np.zeros(tuple(2 * s + 1 for s in shape), order=order)
            for steps in itertools.product([1, 2, -1], repeat=len(shape)):
                view = base[
                    tuple(slice(None, None, st) if st < 0 else slice(0, 2 * s + 1, st) for s, st in zip(shape, steps))
                ]
                for v in (view, view[tuple(slice(0, s) for s in shape)], view.T):
                    for writeable in (True, False):
                        w = v.view()
                        w.flags.writeable = writeable
                        expected = arguments._array_type(w.dtype, w.shape, w.strides, not writeable, 0)
                        assert arguments.argument_type(w, 0) == expected, (w.shape, w.strides)
                        checked += 1
    assert checked > 1000 and 1 < len(arguments._HOST_TYPES) < checked


class _CupyStream:  # what the launch reads of each library's stream
    def __init__(self, ptr):
        self.ptr = ptr


class _TorchStream:
    def __init__(self, handle):
        self.cuda_stream = handle


class _ProtocolStream:  # cuda.core's Stream, numba-cuda's Stream
    def __init__(self, handle):
        self._handle = handle

    def __cuda_stream__(self):
        return (0, self._handle)


@pytest.mark.parametrize(
    "make",
    [_CupyStream, _TorchStream, _ProtocolStream, cuda.external_stream, int],
    ids=["cupy", "torch", "protocol", "external_stream", "int"],
)
def test_every_stream_kind_launches_on_its_handle(fake, general, make):
    stream = make(0xBEE0)
    fake.slots = 0
    for _ in range(3):
        nothing[1, 1, stream]()
    assert [launch["stream"] for launch in fake.launches] == [0xBEE0] * 3
    assert len(general) == 1  # the later launches took the fast path
    assert nothing[1, 1, stream] is nothing[1, 1, 0xBEE0]


@pytest.mark.parametrize("stream,handle", [(None, 0), (0, 0), ("legacy", 1), ("per_thread", 2), ("default", 0)])
def test_the_default_streams(fake, stream, handle):
    made = {
        "legacy": cuda.legacy_default_stream,
        "per_thread": cuda.per_thread_default_stream,
        "default": cuda.default_stream,
    }
    stream = made[stream]() if stream in made else stream
    fake.slots = 0
    nothing[1, 1, stream]()
    nothing[1, 1, stream]()
    assert [launch["stream"] for launch in fake.launches] == [handle, handle]


def test_an_integer_of_the_other_signedness_passes_its_bits(fake, general):
    # a warp mask written 0xFFFFFFFF for an int32 parameter is -1, as Numba-CUDA packs it
    masked = _launch(fake, eager_scalars[1, 1], (0xFFFFFFFF, 2.0, True, 1j))
    assert masked["params"] == _general_bytes(eager_scalars, (-1, 2.0, True, 1j))
    with pytest.raises(OverflowError, match="argument 0: -2147483649 does not fit in int32"):
        eager_scalars[1, 1](-(2**31) - 1, 2.0, True, 1j)
