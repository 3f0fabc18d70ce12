"""Arrays over raw pointers (operations/cuda/foreign.py: cuda.carray, cuda.farray and
cuda.nrt_array) on the CPU: the generated code run on the host (tests/nrt_harness.py) over NumPy
buffers, against NumPy's C- and Fortran-ordered views of the same memory (elements, shapes,
strides, writes landing in the buffer); an array adopted from a MemInfo released once; result
types, typing errors naming the function, 64-bit offsets under index_bits=32, and PTX from both
code generators assembled by ptxas."""

import ctypes

import numba
import numba.np.numpy_support
import numpy as np
import pytest
from numba import typeof
from numba.core import types
from numba.core.errors import TypingError

import cumlir
from cumlir import compiler, cuda

from ... import nrt_harness, support

# ---- the generated code run on the host ---------------------------------------------------


def read_2d_c(out, meta, p, m, n):
    a = cuda.carray(p, (m, n))
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j]
    meta[0], meta[1], meta[2] = a.strides[0], a.strides[1], a.size


def read_2d_f(out, meta, p, m, n):
    a = cuda.farray(p, (m, n))
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j]
    meta[0], meta[1], meta[2] = a.strides[0], a.strides[1], a.size


READERS = {"C": read_2d_c, "F": read_2d_f}


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["float64", "int16", "uint8", "complex64"])
def test_a_2d_array_over_a_pointer_is_numpys_view_of_the_buffer(order, dtype, rng):
    # the extents given as an int32 and a uint16: each converted to the int64 of the shape
    m, n = 5, 7
    buffer = rng.standard_normal(m * n) * 100
    buffer = (buffer + 1j * buffer[::-1] if dtype == "complex64" else buffer).astype(dtype)
    out = support.poisoned(m * n, dtype).reshape(m, n)
    meta = support.poisoned(3, np.int64)
    argtypes = (typeof(out), typeof(meta), types.CPointer(typeof(buffer).dtype), types.int32, types.uint16)
    nrt_harness.Kernel(READERS[order], argtypes)(out, meta, buffer.ctypes.data, m, n)
    view = buffer.reshape(m, n, order=order)
    np.testing.assert_array_equal(out, view)
    assert meta.tolist() == [*view.strides, view.size]


def read_3d(c_out, f_out, p):
    c = cuda.carray(p, (2, 3, 4))
    f = cuda.farray(p, (2, 3, 4))
    for i in range(2):
        for j in range(3):
            for k in range(4):
                c_out[i, j, k] = c[i, j, k]
                f_out[i, j, k] = f[i, j, k]


def test_3d_arrays_over_a_pointer(rng):
    buffer = support.random_values("int32", 24, rng)
    c_out, f_out = (support.poisoned(24, np.int32).reshape(2, 3, 4) for _ in range(2))
    argtypes = (typeof(c_out), typeof(f_out), types.CPointer(types.int32))
    nrt_harness.Kernel(read_3d, argtypes)(c_out, f_out, buffer.ctypes.data)
    np.testing.assert_array_equal(c_out, buffer.reshape(2, 3, 4))
    np.testing.assert_array_equal(f_out, buffer.reshape(2, 3, 4, order="F"))


def write_through(p, n):
    a = cuda.carray(p, n)  # a 1-d shape as an integer
    for i in range(a.size):
        a[i] = a[i] * 3 + i
    b = cuda.farray(p, (2, n // 2))
    b[1, 0] = -1  # element 1 of the buffer: the same memory, no copy


def test_writes_land_in_the_memory_pointed_to(rng):
    buffer = support.random_values("int64", 10, rng) // 8
    expected = buffer * 3 + np.arange(10)
    expected[1] = -1
    nrt_harness.Kernel(write_through, (types.CPointer(types.int64), types.int64))(buffer.ctypes.data, 10)
    np.testing.assert_array_equal(buffer, expected)


def from_voidptr(out, p):
    a = cuda.carray(p, 6, np.int16)
    b = cuda.carray(p, (2, 3), dtype=numba.int16)
    c = cuda.farray(p, (2, 3), "int16")
    for i in range(6):
        out[0, i] = a[i]
        out[1, i] = b[i // 3, i % 3]
        out[2, i] = c[i % 2, i // 2]


def test_a_voidptr_with_a_dtype_in_each_spelling(rng):
    buffer = support.random_values("int16", 6, rng)
    out = support.poisoned(18, np.int16).reshape(3, 6)
    nrt_harness.Kernel(from_voidptr, (typeof(out), types.voidptr))(out, buffer.ctypes.data)
    np.testing.assert_array_equal(
        out, [buffer, buffer.reshape(2, 3).ravel(), buffer.reshape(2, 3, order="F").ravel("F")]
    )


make_block = cuda.declare_device("cumlir_test_make_block", "voidptr(int32, int32)")


def adopts_a_block(out, m, n):
    a = cuda.nrt_array(make_block(m, n), (m, n), np.int16)
    for i in range(m):
        for j in range(n):
            out[i, j] = a[i, j]


def test_nrt_array_adopts_the_memory_and_releases_it_once(rng):
    values = support.random_values("int16", 12, rng)

    @ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32, ctypes.c_int32)
    def make(result, m, n):
        # a MemInfo of the stand-in runtime holding m x n int16, its one reference handed over
        meminfo = nrt_harness.current().allocate(2 * m * n, 2)
        data = ctypes.c_uint64.from_address(meminfo + 24).value  # the MemInfo's data pointer
        ctypes.memmove(data, values.ctypes.data, 2 * m * n)
        result[0] = meminfo
        return 0

    out = support.poisoned(12, np.int16).reshape(3, 4)
    argtypes = (typeof(out), types.int32, types.int32)
    runtime = nrt_harness.Kernel(adopts_a_block, argtypes, [(make_block.name, make)])(out, 3, 4)
    runtime.check_balanced()  # freed when the array dies: no reference taken or given twice
    assert runtime.stats["alloc"] == 1
    np.testing.assert_array_equal(out, values.reshape(3, 4))


# ---- typing -------------------------------------------------------------------------------


def _type_of(body, *argtypes):
    namespace = {"cuda": cuda, "np": np, "numba": numba, "cumlir": cumlir}
    names = ", ".join(f"a{k}" for k in range(len(argtypes)))
    exec(f"def f({names}):\n    x = {body}\n    return x.ndim\n", namespace)
    return compiler.type_function(namespace["f"], argtypes).typemap["x"]


F32P, I32P = types.CPointer(types.float32), types.CPointer(types.int32)


@pytest.mark.parametrize(
    "body, argtypes, expected",
    [
        ("cuda.carray(a0, (3, 4))", (F32P,), types.Array(types.float32, 2, "C")),
        ("cuda.farray(a0, (3, 4))", (F32P,), types.Array(types.float32, 2, "F")),
        ("cuda.carray(a0, a1)", (I32P, types.uint8), types.Array(types.int32, 1, "C")),
        ("cuda.farray(a0, (a1, a1, 2))", (I32P, types.int64), types.Array(types.int32, 3, "F")),
        ("cuda.carray(a0, 4, np.int32)", (I32P,), types.Array(types.int32, 1, "C")),  # the pointer's own
        ("cuda.carray(a0, 4, None)", (I32P,), types.Array(types.int32, 1, "C")),
        ("cuda.carray(a0, 4, np.uint16)", (types.voidptr,), types.Array(types.uint16, 1, "C")),
        ("cuda.nrt_array(a0, (2, 2), np.bool_)", (types.voidptr,), types.Array(types.boolean, 2, "C")),
    ],
)
def test_result_types(body, argtypes, expected):
    assert _type_of(body, *argtypes) == expected


@pytest.mark.parametrize(
    "body, argtype, message",
    [
        ("cuda.carray(a0, 4.0)", I32P, r"carray: the shape must be an integer or a tuple of integers, got float64"),
        ("cuda.farray(a0, (4, 2.0))", I32P, r"farray: the shape must be an integer or a tuple of integers, got"),
        ("cuda.carray(a0, (True, 2))", I32P, r"carray: the shape must be an integer or a tuple of integers"),
        (
            "cuda.carray(a0, 4)",
            types.int32[:],
            r"carray: the first argument must be a CPointer or a voidptr, got array",
        ),
        ("cuda.farray(a0, 4)", types.int64, r"farray: the first argument must be a CPointer or a voidptr, got int64"),
        (
            "cuda.carray(a0, 4)",
            types.voidptr,
            r"carray: a voidptr needs a dtype, as in carray\(ptr, shape, numba\.int32\)",
        ),
        (
            "cuda.farray(a0, 4, np.float64)",
            I32P,
            r"farray: the dtype float64 does not match the pointer's element type int32",
        ),
        ("cuda.carray(a0, 4, 'notatype')", types.voidptr, r"carray: Invalid NumPy dtype specified: 'notatype'"),
        ("cuda.nrt_array(a0, 4, np.int16)", types.int64, r"nrt_array: the MemInfo must be a voidptr, got int64"),
        (
            "cuda.nrt_array(a0, 4, np.datetime64)",
            types.voidptr,
            r"nrt_array: the dtype must be a number or bool type, got class\(datetime64",
        ),
        ("cuda.nrt_array(a0, 4.5, np.int8)", types.voidptr, r"nrt_array: the shape must be an integer or a tuple"),
    ],
)
def test_bad_arguments_are_typing_errors_naming_the_function(body, argtype, message):
    with pytest.raises(TypingError, match=message):
        _type_of(body, argtype)


@pytest.mark.parametrize("pointer", [I32P, types.voidptr], ids=["CPointer", "voidptr"])
def test_a_dtype_that_is_no_dtype_is_refused_naming_it(pointer):
    with pytest.raises(TypingError, match=r"carray: the dtype must be a NumPy dtype or a numba type, got 5\b"):
        _type_of("cuda.carray(a0, 4, 5)", pointer)


@pytest.mark.parametrize(
    "spelling", ["numba.carray", "numba.np.numpy_support.carray", "cumlir.carray", "numba.farray", "cumlir.farray"]
)
def test_numbas_spellings_are_the_cuda_namespaces(spelling):
    layout = "F" if spelling.endswith("farray") else "C"
    assert _type_of(f"{spelling}(a0, (3, 4))", F32P) == types.Array(types.float32, 2, layout)
    with pytest.raises(TypingError, match=r"array: a voidptr needs a dtype"):
        _type_of(f"{spelling}(a0, 4)", types.voidptr)


def test_cumlirs_carray_is_numbas_on_the_host(rng):
    buffer = support.random_values("float32", 12, rng)
    view = cumlir.farray(buffer.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), (3, 4))
    np.testing.assert_array_equal(view, buffer.reshape(3, 4, order="F"))


# ---- launched ------------------------------------------------------------------------------


@cuda.jit("void(CPointer(float32), int64, int64)")
def rescale_c(p, m, n):
    a = numba.carray(p, (m, n))
    i, j = cuda.grid(2)
    if i < m and j < n:
        a[i, j] = a[i, j] * 2 + i - 3 * j


@cuda.jit("void(CPointer(float32), int64, int64)")
def rescale_f(p, m, n):
    a = numba.np.numpy_support.farray(p, (m, n), dtype=numba.float32)
    i, j = cuda.grid(2)
    if i < m and j < n:
        a[i, j] = a[i, j] * 2 + i - 3 * j


@pytest.mark.parametrize("order, kernel", [("C", rescale_c), ("F", rescale_f)])
def test_a_kernel_writes_through_numbas_array_over_a_device_pointer(order, kernel, simulator_or_gpu, rng):
    m, n = 13, 9
    values = support.random_values("float32", m * n, rng)
    device = cuda.to_device(values)
    kernel[(2, 2), (8, 8)](device.gpu_data.device_pointer, m, n)
    i, j = np.indices((m, n))
    expected = values.astype(np.float64).reshape(m, n, order=order) * 2 + i - 3 * j
    np.testing.assert_array_equal(device.copy_to_host().reshape(m, n, order=order), expected.astype(np.float32))


# ---- code ---------------------------------------------------------------------------------


def over_pointer(p, i, j):
    a = cuda.carray(p, (1 << 20, 1 << 12))
    return a[i, j]


def over_array(a, i, j):
    return a[i, j]


def _llvm_body(fn, first, index_bits):
    text, _ = cuda.compile(fn, (first, types.int64, types.int64), cc=(9, 0), output="llvm", index_bits=index_bits)
    return text[text.index("define") :]


def test_offsets_into_an_array_over_a_pointer_stay_64_bit_under_index_bits_32():
    # an array over a pointer may span any size: its module is lowered with 64-bit offsets even
    # where the options ask for 32, which an ordinary array's 2-d offsets then take
    assert "trunc" in _llvm_body(over_array, types.float64[:, ::1], 32)
    assert "trunc" not in _llvm_body(over_pointer, types.CPointer(types.float64), 32)


def pointer_kernel(out, p, q, n):
    a = cuda.carray(p, (n, 4))
    b = cuda.farray(q, (4, n), np.float32)
    for i in range(n):
        for j in range(4):
            out[i, j] = a[i, j] + b[j, i]


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_ptx_assembles_and_copies_nothing(cc, backend):
    sig = (types.float32[:, ::1], types.CPointer(types.float32), types.voidptr, types.int32)
    ptx, _ = cuda.compile_ptx(pointer_kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    # views of the memory pointed to: nothing allocated, nothing staged in local memory
    assert "NRT_MemInfo_alloc" not in ptx and ".local" not in ptx
