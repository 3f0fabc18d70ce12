"""32-bit element offsets (the option index_bits, docs/launching.md "Address classes"): the
code of each class, the span that picks the class at a launch (on the fake driver,
tests/fake_driver.py), the classes kept apart, and on a GPU arrays past 2**31 bytes."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.options import Options
from cumlir.runtime import address_spans, readers

from . import fake_driver, support

SIG = "void(float32[:, :], float32[:, ::1])"


def copy2(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j]


def _body(ptx):
    return ptx[ptx.index(".entry") :]


@pytest.mark.parametrize("bits", [None, 64])
def test_wide_offsets_without_a_launch(backend, bits):
    """compile_ptx and the like compile 64-bit offsets unless asked: every product in 64 bits."""
    keywords = {} if bits is None else {"index_bits": bits}
    ptx, _ = cuda.compile_ptx(copy2, SIG, cc=(9, 0), backend=backend, **keywords)
    support.ptxas(ptx)
    assert "mul.lo.s64" in _body(ptx) and "mul.wide.s32" not in _body(ptx)


def test_narrow_offsets(backend):
    """index_bits=32: the offsets are int32 sums, widened once (mul.wide.s32 by the item size)."""
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(copy2, SIG, cc=cc, backend=backend, index_bits=32)
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
        body = _body(ptx)
        assert "mul.wide.s32" in body and "mul.lo.s64" not in body


def test_narrow_offsets_of_a_negative_stride_view(backend):
    def reverse(a, out):
        i = cuda.grid(1)
        if i < a.shape[1]:
            out[i] = a[::-1, ::-1][1, i]

    sig = "void(float32[:, :], float32[:])"
    narrow, _ = cuda.compile_ptx(reverse, sig, cc=(9, 0), backend=backend, index_bits=32)
    wide, _ = cuda.compile_ptx(reverse, sig, cc=(9, 0), backend=backend)
    support.ptxas(narrow)
    # the offsets are 32-bit sums: LLVM may compute them in 64 bits and sign-extend the low half
    assert "shr.s64" in _body(narrow) and "shr.s64" not in _body(wide)


def test_an_array_of_unknown_span_keeps_every_offset_wide():
    """An array on the device heap may span any size: the kernel is compiled as with 64 bits."""

    def heap(a, n):
        tmp = np.zeros(n, np.float32)
        i = cuda.grid(1)
        tmp[i] = a[i]
        a[i] = tmp[i] + 1

    wide, _ = cuda.compile_ptx(heap, "void(float32[:], int64)", cc=(9, 0), index_bits=64)
    narrow, _ = cuda.compile_ptx(heap, "void(float32[:], int64)", cc=(9, 0), index_bits=32)
    assert narrow == wide


@cuda.jit(device=True)
def element(a, i, j):
    return a[i, j]


def copy_through_a_device_function(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = element(a, i, j)


def test_device_functions_take_their_kernels_class():
    narrow, _ = cuda.compile_ptx(copy_through_a_device_function, SIG, cc=(9, 0), index_bits=32)
    wide, _ = cuda.compile_ptx(copy_through_a_device_function, SIG, cc=(9, 0))
    assert "mul.wide.s32" in _body(narrow) and "mul.wide.s32" not in _body(wide)


class Span:
    """An array as its CUDA Array Interface describes it, at an address nothing reads."""

    def __init__(self, shape, strides=None, dtype=np.float32, data=0x10000):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": np.dtype(dtype).str,
            "strides": strides,
            "data": (data, False),
            "version": 3,
        }


LIMIT = 2**31
# 2-d: the offsets of 1-d arrays are never narrowed (one index times one stride)
LARGE_GLOBAL = Span((2, LIMIT // 2), dtype=np.uint8)  # spans LIMIT bytes
SMALL_GLOBAL = Span((2, LIMIT // 2 - 1), dtype=np.uint8)  # LIMIT - 2


def read_large_global(out):
    i = cuda.grid(1)
    out[i] = LARGE_GLOBAL[1, i]


def read_small_global(out):
    i = cuda.grid(1)
    out[i] = SMALL_GLOBAL[1, i]


def test_a_global_array_of_2_gib_keeps_every_offset_wide():
    sig = "void(uint8[::1])"
    wide, _ = cuda.compile_ptx(read_large_global, sig, cc=(9, 0))
    narrow, _ = cuda.compile_ptx(read_large_global, sig, cc=(9, 0), index_bits=32)
    assert narrow == wide
    small, _ = cuda.compile_ptx(read_small_global, sig, cc=(9, 0), index_bits=32)
    small_wide, _ = cuda.compile_ptx(read_small_global, sig, cc=(9, 0))
    # below 2 GiB the global's offsets are narrowed: a sum in 32 bits, sign-extended
    assert "shr.s64" in _body(small) and "shr.s64" not in _body(small_wide)


@pytest.mark.parametrize("value", [16, 0, True, "32"])
def test_index_bits_is_checked(value):
    with pytest.raises(ValueError, match="index_bits must be 32, 64 or None"):
        Options(index_bits=value)


def test_the_classes_have_their_own_cache_keys():
    keys = {Options(index_bits=b).cache_key() for b in (None, 32, 64)}
    assert len(keys) == 3


# ---- spans -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "array, narrow",
    [
        (Span((LIMIT // 4,)), False),  # exactly 2**31 bytes
        (Span((LIMIT // 4 - 1,)), True),
        (Span((1,), dtype=np.uint8), True),
        (Span((LIMIT - 1,), dtype=np.uint8), True),  # 2**31 - 1 bytes
        (Span((LIMIT,), dtype=np.uint8), False),
        (Span((1024, LIMIT // 4096), (-4, 4096)), False),  # negative strides count by magnitude
        (Span((1024, 1024), (-4, 4096)), True),
        (Span((2, 16), (LIMIT, 4)), False),  # a view of every other row of a large base
        (Span((1, 16), (LIMIT, 4)), True),  # one row of it: the stride of one extent spans nothing
        (Span(()), True),  # 0-d
        (Span((0, 2**40)), True),  # empty: no element is reached
        ((Span((4,)), (Span((LIMIT,), dtype=np.uint8), 1)), False),  # in a tuple
        (np.broadcast_to(np.zeros(1, np.float32), (LIMIT // 4,)), False),  # staged as a compact copy
        (np.zeros(4, np.float32), True),
        (3.5, True),
    ],
)
def test_the_span_of_launch_arguments(array, narrow):
    assert address_spans.narrow_arguments((array,)) is narrow


def test_a_slice_spans_its_own_elements():
    base = np.zeros((4, 8), np.float32)
    view = base[1:3, ::-2]  # strides (32, -8)
    assert address_spans.span(view.shape, view.strides, 4) == 32 + 3 * 8 + 4


# ---- launches ----------------------------------------------------------------------------


@cuda.jit
def scale(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2


@cuda.jit
def scale_rows(a, out):
    i = cuda.grid(1)
    if i < a.shape[1]:
        out[0, i] = a[0, i] * 2


@cuda.jit(index_bits=32)
def promised(a):
    a[0] = 1


@pytest.fixture
def fake(monkeypatch):
    driver = fake_driver.install(monkeypatch)
    for kernel in (scale, scale_rows, promised):
        fake_driver.forget_loaded(kernel)
    monkeypatch.setattr(readers, "SYNC", False)
    driver.slots = 8  # two 1-d arrays
    yield driver
    for kernel in (scale, scale_rows, promised):
        fake_driver.forget_loaded(kernel)


def _classes(kernel):
    (overload,) = kernel.overloads.values()
    return bool(overload._narrow_loaded), bool(overload._loaded)


def test_a_launch_picks_the_class_of_its_arrays(fake, general):
    fake.slots = 12  # two 2-d arrays
    small, out = Span((2, 64)), Span((2, 64))
    large = Span((LIMIT // 256, 64))  # spans 2**31 bytes
    scale_rows[1, 64](small, out)
    assert _classes(scale_rows) == (True, False)
    (route,) = scale_rows._launching().routes.values()
    assert route.kernel.narrow
    scale_rows[1, 64](small, out)  # the narrow route takes it
    assert len(general) == 1
    scale_rows[1, 64](large, out)  # the narrow route declines: the general path loads the wide class
    assert len(general) == 2 and _classes(scale_rows) == (True, True)
    launching = scale_rows._launching()
    (narrow,), (wide,) = launching.routes.values(), launching.wide_routes.values()
    assert narrow.kernel.narrow and not wide.kernel.narrow  # the narrow route stays first
    first, last = fake.launches[0]["params"], fake.launches[-1]["params"]
    assert first[16:24] == (2).to_bytes(8, "little") and last[16:24] == (LIMIT // 256).to_bytes(8, "little")


def _modules(kernel):
    """The module handles of the narrow and the wide class of a kernel's one overload."""
    (overload,) = kernel.overloads.values()
    (narrow,), (wide,) = overload._narrow_loaded.values(), overload._loaded.values()
    return narrow._module, wide._module


@pytest.mark.parametrize("large_first", [False, True])
def test_small_launches_after_a_large_one_take_the_narrow_class(fake, general, large_first):
    fake.slots = 12
    small, large, out = Span((2, 64)), Span((LIMIT // 256, 64)), Span((2, 64))
    sizes = [large, small] * 3 if large_first else [small, large] * 3
    for a in sizes:
        scale_rows[1, 64](a, out)
    narrow, wide = _modules(scale_rows)
    assert [launch["module"] for launch in fake.launches] == [wide if a is large else narrow for a in sizes]
    assert len(general) == 2  # one a class: every later launch takes a route


def test_the_narrow_route_takes_a_large_1d_array(fake, general):
    # 1-d offsets are 64-bit in both classes: the route checks no 1-d span
    scale[1, 64](Span((64,)), Span((64,)))
    scale[1, 64](Span((LIMIT // 4,)), Span((64,)))
    assert len(general) == 1
    (route,) = scale._launching().routes.values()
    assert route.kernel.narrow


def test_the_classes_are_compiled_apart(fake):
    fake.slots = 12
    scale_rows[1, 64](Span((2, 64)), Span((2, 64)))
    scale_rows[1, 64](Span((LIMIT // 256, 64)), Span((2, 64)))
    (overload,) = scale_rows.overloads.values()
    narrow = overload._binaries[(9, 0), True]
    wide = overload._binaries[(9, 0), False]
    # the narrow class sums a 2-d offset in 32 bits and reads no offset parameter (abi.md)
    assert "cvt.s64.s32" in narrow.code and "cvt.s64.s32" not in wide.code
    assert "[scale_rows_param_1]" not in narrow.code and "[scale_rows_param_1]" in wide.code


def test_a_promise_of_small_arrays_is_checked_at_launch(fake):
    fake.slots = 4
    promised[1, 1](Span((4,)))
    with pytest.raises(ValueError, match="index_bits=32, but an array argument spans 2\\*\\*31 bytes or more"):
        promised[1, 1](Span((LIMIT,), dtype=np.uint8))


# ---- on a GPU ----------------------------------------------------------------------------


@cuda.jit
def read_at(a, i, out):
    out[0] = a[i]


@pytest.mark.gpu
def test_an_element_past_2_gib():
    n = 3 * 2**30 // 4  # 3 GiB of float32
    a = cuda.device_array(n, np.float32)
    far = np.float32(7.5)
    a[n - 1 : n].copy_to_device(np.array([far]))
    out = cuda.device_array(1, np.float32)
    read_at[1, 1](a, n - 1, out)
    assert out.copy_to_host()[0] == far
    small = cuda.to_device(np.arange(8, dtype=np.float32))
    read_at[1, 1](small, 5, out)  # then a small array: its own class, still right
    assert out.copy_to_host()[0] == 5
    read_at[1, 1](a, n - 1, out)
    assert out.copy_to_host()[0] == far


@cuda.jit
def mark_last(a):
    i = cuda.grid(1)
    a[i, a.shape[1] - 1] = 1.5 + i


@pytest.mark.gpu
def test_a_small_a_large_then_small_launches():
    @cuda.jit
    def rows(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = a[i, a.shape[1] - 1]

    small = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = cuda.device_array(3, np.float32)
    rows[1, 32](cuda.to_device(small), out)
    np.testing.assert_array_equal(out.copy_to_host(), small[:, -1])
    width = 2**29 + 8  # each row 2 GiB and 32 bytes of float32
    large = cuda.device_array((2, width), np.float32)
    mark_last[1, 2](large)
    out2 = cuda.device_array(2, np.float32)
    rows[1, 32](large, out2)
    np.testing.assert_array_equal(out2.copy_to_host(), [1.5, 2.5])
    # the narrow class again, through the routes, and the wide one behind it
    for k in range(3):
        again = np.random.default_rng(k).standard_normal((5, 7)).astype(np.float32)
        out3 = cuda.to_device(np.full(5, np.nan, np.float32))
        rows[1, 32](cuda.to_device(again), out3)
        np.testing.assert_array_equal(out3.copy_to_host(), again[:, -1])
        out2 = cuda.to_device(np.full(2, np.nan, np.float32))
        rows[1, 32](large, out2)
        np.testing.assert_array_equal(out2.copy_to_host(), [1.5, 2.5])
    (overload,) = rows.overloads.values()
    assert overload._narrow_loaded and overload._loaded
