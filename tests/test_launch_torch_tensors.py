"""PyTorch tensors on the launch fast path (runtime/readers.py reads a tensor's own
attributes, not its interface dict): for every dtype, dimension count and layout the fast
path writes the bytes the general path writes, and what the general path refuses (a
tensor of another device, on the host, sparse, requiring grad, of another dtype for an
eager signature) it still refuses, with the same error, launching nothing. Stand-in
tensors (tests/fake_arrays.py) over host memory, on the fake driver."""

import numpy as np
import pytest

from cumlir import cuda, dispatcher
from cumlir.runtime import arguments, placement

from . import fake_driver
from .cases import launch_kernels as K
from .fake_arrays import SPARSE_COO, FakeTensor


@cuda.jit
def one(a):
    pass


@cuda.jit
def take_three(a, b, c):
    pass


three = cuda.jit(K.vadd)
three_eager = cuda.jit(K.VADD_FLOAT32)(K.vadd)

DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]

# (name, host view of a base of n elements): each layout class twice, from bases of two sizes
LAYOUTS = [
    ("0-d", lambda base: base[0, 0, 0, ...]),
    ("1-d C", lambda base: base.ravel()),
    ("1-d C, one element of any stride", lambda base: base.ravel()[1:2]),
    ("1-d C, empty", lambda base: base.ravel()[:0]),
    ("1-d strided", lambda base: base.ravel()[::3]),
    ("2-d C", lambda base: base[0]),
    ("2-d F (transposed)", lambda base: base[0].T),
    ("2-d sliced", lambda base: base[0, ::2, 1:]),
    ("2-d C, an axis of extent 1", lambda base: base[0, 1:2, :]),
    ("2-d C, empty", lambda base: base[0, :, :0]),
    ("3-d C", lambda base: base),
    ("3-d C, extent-1 axes of odd strides", lambda base: base[1:2, 2:3, :]),
    ("3-d F", lambda base: base.T),
    ("3-d sliced", lambda base: base[:, ::2, 1::2]),  # torch has no negative strides
]


def _bases(dtype):
    return np.zeros((3, 4, 5), dtype), np.zeros((2, 6, 7), dtype)


@pytest.fixture
def fake(monkeypatch):
    driver = fake_driver.install(monkeypatch)
    kernels = [k for k in globals().values() if isinstance(k, dispatcher.Dispatcher)]
    for kernel in kernels:  # loaded with another test's driver
        fake_driver.forget_loaded(kernel)
    yield driver
    for kernel in kernels:
        fake_driver.forget_loaded(kernel)


def _general_bytes(kernel, args):
    types = tuple(arguments.argument_type(a, i) for i, a in enumerate(args))
    packer = kernel.overload_for(types).loaded().record.packer
    return bytes(packer.pack(args, _NoStaging())[1])[: arguments.SLOT * packer.slots]


class _NoStaging:
    stream = -1

    def wait_for_producer(self, stream):
        pass


def _launch(fake, kernel, args, config=(1, 1)):
    types = tuple(arguments.argument_type(a, i) for i, a in enumerate(args))
    fake.slots = kernel.overload_for(types).loaded().record.packer.slots
    kernel[config](*args)
    return fake.launches[-1]["params"]


def _route(kernel, args):
    return kernel._launches.routes.get(tuple(map(type, args)))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_and_layout_packs_what_the_general_path_packs(fake, general, dtype):
    for name, view in LAYOUTS:
        first, second = (FakeTensor(view(base)) for base in _bases(dtype))
        assert first.is_contiguous() == second.is_contiguous(), name  # the same layout class
        _launch(fake, one, (first,))  # the general path, which makes the route
        assert _route(one, (first,)) is not None, f"{name}: no fast path"
        for tensor in (first, second, first):
            before = len(general)
            params = _launch(fake, one, (tensor,))
            assert len(general) == before, f"{name}: the launch typed its arguments again"
            assert params == _general_bytes(one, (tensor,)), name


def test_compact_tensors_are_read_in_the_launch_function_itself(fake, general):
    for ndim in (1, 2, 3):
        args = (FakeTensor(np.zeros((2, 3, 4)[:ndim], np.float32)),)
        _launch(fake, one, args)
        names = _route(one, args).builder.names
        assert "a0_strided" in names and "a0_read" not in names, f"{ndim}-d: the reader is called, not inlined"
    transposed = (FakeTensor(np.zeros((3, 4), np.float32).T),)
    _launch(fake, one, transposed)
    assert "a0_read" in _route(one, transposed).builder.names


def test_three_vectors_of_other_sizes_stay_on_the_fast_path(fake, general):
    for n in (50, 1, 0, 77, 2):
        args = [FakeTensor(np.arange(n, dtype=np.float32) * k) for k in (1, 2, 3)]
        params = _launch(fake, three, args, (2, 32))
        assert params == _general_bytes(three, args)
    assert len(general) == 1


@pytest.mark.parametrize(
    "other",
    [
        ("a 2-d tensor", lambda: FakeTensor(np.zeros((5, 10), np.float32))),
        ("a strided vector", lambda: FakeTensor(np.zeros(100, np.float32)[::2])),
        ("a float64 vector", lambda: FakeTensor(np.zeros(50, np.float64))),
    ],
    ids=lambda case: case[0],
)
def test_a_tensor_of_another_type_is_typed_again(fake, general, other):
    args = [FakeTensor(np.arange(50, dtype=np.float32)) for _ in range(3)]
    _launch(fake, take_three, args)
    _launch(fake, take_three, args)
    before = len(general)
    changed = (args[0], other[1](), args[2])
    params = _launch(fake, take_three, changed)
    assert len(general) == before + 1
    assert params == _general_bytes(take_three, changed)


def _error(launch):
    with pytest.raises(Exception) as caught:
        launch()
    return type(caught.value), str(caught.value)


def _sparse():
    tensor = FakeTensor(np.zeros(50, np.float32))
    tensor.layout = SPARSE_COO
    return tensor


@pytest.mark.parametrize(
    "refused",
    [
        ("on the host", lambda: FakeTensor(np.zeros(50, np.float32), device=-1)),
        ("sparse", _sparse),
        ("requiring grad", lambda: FakeTensor(np.zeros(50, np.float32), requires_grad=True)),
    ],
    ids=lambda case: case[0],
)
def test_refused_tensors_raise_the_general_error_and_launch_nothing(fake, general, refused):
    fresh = cuda.jit(K.vadd)  # no route yet: every launch of it is a general one
    args = [FakeTensor(np.arange(50, dtype=np.float32)) for _ in range(3)]
    expected = _error(lambda: fresh[1, 32](args[0], args[1], refused[1]()))
    _launch(fake, three, args, (1, 32))
    _launch(fake, three, args, (1, 32))
    count = len(fake.launches)
    assert _error(lambda: three[1, 32](args[0], args[1], refused[1]())) == expected
    assert len(fake.launches) == count


def test_a_tensor_of_another_device_is_refused(fake, general, monkeypatch):
    monkeypatch.setenv("CUMLIR_STRICT_DEVICE", "1")
    monkeypatch.setattr(placement, "_several", True)
    fake.devices = 2
    args = [FakeTensor(np.arange(50, dtype=np.float32)) for _ in range(3)]
    _launch(fake, three, args, (1, 32))
    _launch(fake, three, args, (1, 32))
    count = len(fake.launches)
    with pytest.raises(ValueError, match="argument 1: the FakeTensor is on CUDA device 1, but the kernel is launched"):
        three[1, 32](args[0], FakeTensor(np.zeros(50, np.float32), device=1), args[2])
    assert len(fake.launches) == count


def test_an_eager_signature_refuses_another_dtype(fake, general):
    args = [FakeTensor(np.arange(50, dtype=np.float32)) for _ in range(3)]
    _launch(fake, three_eager, args)
    _launch(fake, three_eager, args)
    count = len(fake.launches)
    for wrong in (np.float64, np.int32, np.float16):
        with pytest.raises(TypeError, match="no compiled signature accepts"):
            three_eager[1, 1](args[0], FakeTensor(np.zeros(50, wrong)), args[2])
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        three_eager[1, 1](args[0], FakeTensor(np.zeros((5, 10), np.float32)), args[2])
    assert len(fake.launches) == count


def test_a_pending_conjugation_is_refused_on_either_path(fake, general):
    kernel = cuda.jit(K.vadd)
    values = [FakeTensor(np.arange(50, dtype=np.complex64) * (1 + 1j)) for _ in range(3)]
    _launch(fake, kernel, values, (1, 32))  # the general path, which makes the route
    _launch(fake, kernel, values, (1, 32))  # the fast path
    count = len(fake.launches)
    pending = FakeTensor(np.arange(50, dtype=np.complex64), conjugated=True)
    for args in ((pending, values[1], values[2]), (values[0], values[1], pending)):
        with pytest.raises(TypeError, match=r"conjugation is pending \(t.conj\(\)\).*t.resolve_conj\(\)"):
            kernel[1, 32](*args)
    assert len(fake.launches) == count
