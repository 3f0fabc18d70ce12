"""Device arrays read as globals (anything with ``__cuda_array_interface__``): typed from the
interface, compiled in by address, shape and strides, read and written in place, kept out
of the disk cache. On the CPU a stand-in names a fake address, which the PTX must hold; on
the GPU cumlir's, CuPy's and PyTorch's arrays are captured and the results compared with
NumPy."""

import numpy as np
import pytest
from numba.core import errors, types

from cumlir import cache, cuda
from cumlir.codegen import targets
from cumlir.typing.captured_arrays import captured_array_type

from . import support
from .test_codegen import ARCHS

ADDRESS = 0x7F0000001000


class StandIn:
    """Device memory described by an interface alone, at an address no process maps."""

    def __init__(self, shape, typestr="<f4", strides=None, readonly=False, address=ADDRESS):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (address, readonly),
            "strides": strides,
            "version": 3,
        }


PRICES = StandIn((16,))
GRID = StandIn((4, 8), "<f8", strides=(8, 32))  # Fortran order
FROZEN = StandIn((16,), readonly=True)
BROKEN = type("Broken", (), {"__cuda_array_interface__": {"shape": (3,)}})()
HOST = np.arange(4.0)
CAPTURED = FGRID = None  # rebound by the tests that capture them


def add_one(values, i):
    values[i] += 1


add_one_device = cuda.jit(device=True)(add_one)


def reads_and_writes(out, i):
    out[0] = PRICES[i] + GRID[1, i]
    PRICES[i] = 2.0
    window = PRICES[2:8]
    out[1] = window[1] + GRID[:, 1][2]
    add_one_device(PRICES, i)
    out[2] = PRICES.size + GRID.shape[1] + HOST[i]


SIG = "void(float32[::1], int64)"


@pytest.mark.parametrize("cc", ARCHS)
def test_captured_arrays_compile_and_assemble(cc, backend):
    ptx, _ = cuda.compile_ptx(reads_and_writes, SIG, cc=cc, backend=backend)
    support.ptxas(ptx, targets.chip(cc))
    assert str(ADDRESS) in ptx or hex(ADDRESS) in ptx.lower()  # the address is in the code
    assert "ld.const" in ptx  # the host array is still a constant


def _typed(stand_in):
    # what numba's typing of a global makes of the type: a plain Array
    return captured_array_type(stand_in.__cuda_array_interface__).copy(readonly=True)


def test_types_follow_the_interface():
    assert _typed(PRICES) == types.float32[::1]
    assert _typed(GRID) == types.float64[::1, :]
    assert _typed(StandIn((4, 4), strides=(32, 8))) == types.Array(types.float32, 2, "A")
    assert _typed(FROZEN) == types.Array(types.float32, 1, "C", readonly=True)


def test_a_read_only_interface_refuses_writes():
    def kernel(out):
        FROZEN[0] = out[0]

    with pytest.raises(errors.TypingError, match="readonly array"):
        cuda.compile_ptx(kernel, "void(float32[::1])", cc=(8, 0))


def test_an_interface_without_data_is_a_typing_error_naming_the_global():
    def kernel(out):
        out[0] = BROKEN[0]

    with pytest.raises(errors.TypingError, match=r"Untyped global name 'BROKEN'.*needs shape, typestr and data"):
        cuda.compile_ptx(kernel, "void(float32[::1])", cc=(8, 0))


def test_an_interface_of_python_objects_is_a_typing_error():
    objects = StandIn((3,), "|O")

    def kernel(out):
        out[0] = objects[0]

    with pytest.raises(errors.TypingError, match=r"typestr '\|O' is not supported"):
        cuda.compile_ptx(kernel, "void(float32[::1])", cc=(8, 0))


def test_a_kernel_keeps_the_address_it_was_compiled_with():
    def reader(out):
        out[0] = CAPTURED[0]

    reader.__globals__["CAPTURED"] = StandIn((2,), address=0x7F0000002000)
    try:
        kernel = cuda.jit(SIG.replace(", int64", ""), chip="sm_80")(reader)
        first = kernel.inspect_asm()
        reader.__globals__["CAPTURED"] = StandIn((2,), address=0x7F0000003000)
        assert kernel.inspect_asm() == first
        assert str(0x7F0000002000) in str(first)
    finally:
        reader.__globals__["CAPTURED"] = None


def test_a_kernel_capturing_a_device_array_is_not_cached():
    with pytest.raises(
        cache.Unhashable,
        match="the global '(PRICES|GRID)' read by reads_and_writes: a device array is captured by its address",
    ):
        cache.function_fingerprint(reads_and_writes)


def doubled_capture(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = CAPTURED[i] * 2.0


def test_caching_a_kernel_that_captures_a_device_array_is_refused(simulator_or_gpu, monkeypatch, tmp_path, rng):
    # as Numba-CUDA refuses it (a PicklingError): the cubin would hold an address of this process
    import pickle

    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(tmp_path))
    values = rng.standard_normal(5).astype(np.float32)
    monkeypatch.setitem(doubled_capture.__globals__, "CAPTURED", cuda.to_device(values))
    with pytest.raises(pickle.PicklingError, match=r"global device arrays: the global 'CAPTURED' read by"):
        cuda.jit(cache=True)(doubled_capture)[1, 32](np.zeros(5, np.float32))
    with pytest.raises(pickle.PicklingError, match=r"Pass the array\(s\) as arguments"):
        cuda.jit("void(float32[::1])", cache=True)(doubled_capture)  # compiled when decorated
    # caching turned on for every kernel (CUMLIR_CACHE=1) leaves this one out, and it runs
    monkeypatch.setenv("CUMLIR_CACHE", "1")
    kernel = cuda.jit(doubled_capture)
    out = np.full(5, np.nan, np.float32)
    kernel[1, 32](out)
    np.testing.assert_array_equal(out, values * 2)
    assert [o.compile_stats["cache"] for o in kernel.overloads.values()] == ["not cacheable"]
    assert not list(tmp_path.rglob("*.cumlir"))


# ---- on the GPU --------------------------------------------------------------------------


# the kernel writes memory no argument names: numba-cuda's replay of the launch (tests/agreement.py)
# reads what this launch left there
WRITES_A_GLOBAL = pytest.mark.numba_cuda_differs


def _run_with(make_device, backend):
    """reads_and_writes-like work on a captured device array made by *make_device* from a
    NumPy array, against the same steps on NumPy."""
    host = np.arange(16, dtype=np.float32)
    captured = make_device(host.copy())

    def kernel(out, i):
        out[0] = CAPTURED[i] * 2
        CAPTURED[i] = -1.0
        window = CAPTURED[2:8]
        add_one_device(window, 1)
        out[1] = window[1]

    kernel.__globals__["CAPTURED"] = captured
    try:
        out = np.zeros(2, np.float32)
        cuda.jit(SIG, backend=backend)(kernel)[1, 1](out, 5)
        cuda.synchronize()
    finally:
        kernel.__globals__["CAPTURED"] = None
    expected = host.copy()
    expected_out = [host[5] * 2, 0]
    expected[5] = -1
    expected[3] += 1
    expected_out[1] = expected[3]
    np.testing.assert_array_equal(out, expected_out)
    return captured, expected


@pytest.mark.gpu
@WRITES_A_GLOBAL
def test_a_captured_cumlir_array_is_read_and_written(backend):
    captured, expected = _run_with(cuda.to_device, backend)
    np.testing.assert_array_equal(captured.copy_to_host(), expected)


@pytest.mark.gpu
@WRITES_A_GLOBAL
def test_a_captured_cupy_array_is_read_and_written(backend):
    cupy = pytest.importorskip("cupy")
    captured, expected = _run_with(cupy.asarray, backend)
    np.testing.assert_array_equal(cupy.asnumpy(captured), expected)


@pytest.mark.gpu
@WRITES_A_GLOBAL
def test_a_captured_torch_tensor_is_read_and_written(backend):
    torch = pytest.importorskip("torch")
    captured, expected = _run_with(lambda a: torch.from_numpy(a).cuda(), backend)
    np.testing.assert_array_equal(captured.cpu().numpy(), expected)


@pytest.mark.gpu
def test_a_captured_fortran_array_is_read_by_its_strides(backend):
    host = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    grid = cuda.to_device(host)

    def kernel(out):
        for i in range(3):
            for j in range(4):
                out[i * 4 + j] = FGRID[i, j]

    kernel.__globals__["FGRID"] = grid
    try:
        out = np.zeros(12)
        cuda.jit("void(float64[::1])", backend=backend)(kernel)[1, 1](out)
    finally:
        kernel.__globals__["FGRID"] = None
    np.testing.assert_array_equal(out, host.ravel())


def test_an_interface_that_fails_to_read_is_a_typing_error_naming_the_global():
    class Unmapped:
        @property
        def __cuda_array_interface__(self):
            raise ValueError("this array does not view mapped host memory")

    def kernel(out):
        out[0] = UNMAPPED[0]  # noqa: F821 (set below)

    kernel.__globals__["UNMAPPED"] = Unmapped()
    try:
        with pytest.raises(errors.TypingError, match="'UNMAPPED'.*does not view mapped host memory"):
            cuda.compile_ptx(kernel, "void(float32[::1])", cc=(8, 0))
    finally:
        del kernel.__globals__["UNMAPPED"]
