"""Raw pointers (operations/python/pointers.py): ``p[i]``, ``p[i] = v``, ``p + n``, ``n + p`` and
``p - n`` on ``CPointer``s of numbers and records, moving by whole elements, with indices of every
integer type; a ``CPointer`` passed where a ``voidptr`` is taken. The generated code runs on the
host (tests/nrt_harness.py) over random data, against NumPy; the PTX of both code generators is
checked by ptxas; what typing refuses."""

import re

import numpy as np
import pytest
from numba import from_dtype
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import nrt_harness, support

N = 16


def _walk(src, dst, out, n, k):
    """Reads at src, src + k, k + src and back from src's end; writes at dst + k."""
    end = src + 2 * n
    for i in range(n):
        out[0, i] = src[i]
        out[1, i] = (src + k)[i]
        out[2, i] = (k + src)[i]
        out[3, i] = (end - k)[-1 - i]
        (dst + k)[i] = src[i]


def _expected_walk(a, k):
    n = N
    rows = [a[:n], a[k : k + n], a[k : k + n], a[2 * n - k - 1 - np.arange(n)]]
    return np.stack(rows)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64"])
def test_indexing_and_arithmetic_move_by_whole_elements(rng, dtype):
    element = support.numba_type(dtype)
    pointer = types.CPointer(element)
    kernel = nrt_harness.Kernel(_walk, (pointer, pointer, element[:, ::1], types.int64, types.int64))
    for k in (0, 1, 5, N):
        a = support.random_values(dtype, 2 * N, rng)
        b = support.poisoned(2 * N, dtype)
        out = support.poisoned(4 * N, dtype).reshape(4, N)
        kernel(a.ctypes.data, b.ctypes.data, out, N, k).check_balanced()
        support.assert_matches(out.ravel(), _expected_walk(a, k).ravel(), f"reads, k={k}")
        # the writes landed at dst + k, and nowhere else
        expected = support.poisoned(2 * N, dtype)
        expected[k : k + N] = a[:N]
        support.assert_matches(b, expected, f"writes, k={k}")


def _offsets(src, offsets, out):
    middle = src + len(offsets)
    for j in range(len(offsets)):
        out[0, j] = middle[offsets[j]]
        out[1, j] = (middle + offsets[j])[0]
        out[2, j] = (offsets[j] + middle)[0]
        out[3, j] = (middle - offsets[j])[0]


@pytest.mark.parametrize("index", ["int8", "int16", "int32", "uint32", "int64", "uint64"])
def test_indices_of_every_integer_type_count_elements(rng, index):
    kernel = nrt_harness.Kernel(
        _offsets, (types.CPointer(types.float64), support.numba_type(index)[::1], types.float64[:, ::1])
    )
    a = rng.standard_normal(2 * N + 1)
    # negative offsets from the middle where the type has them: they count back, as C's
    low = -N if np.dtype(index).kind == "i" else 0
    offsets = rng.integers(low, N + 1, N).astype(index)
    out = support.poisoned(4 * N, np.float64).reshape(4, N)
    kernel(a.ctypes.data, offsets, out).check_balanced()
    position = N + offsets.astype(np.int64)
    expected = np.stack([a[position], a[position], a[position], a[N - offsets.astype(np.int64)]])
    support.assert_matches(out.ravel(), expected.ravel())


def _store(p, q, values):
    for i in range(len(values)):
        p[i] = values[i]
        (q + 1)[i] = values[i]


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8"])
def test_a_store_converts_the_value_to_the_element_type(rng, dtype):
    pointer = types.CPointer(support.numba_type(dtype))
    kernel = nrt_harness.Kernel(
        _store, (pointer, pointer, types.float64[::1] if dtype == "float32" else types.int64[::1])
    )
    if dtype == "float32":
        values = rng.standard_normal(N) * 1e3
    else:
        values = rng.integers(-(2**40), 2**40, N)
    p, q = support.poisoned(N, dtype), support.poisoned(N + 1, dtype)
    kernel(p.ctypes.data, q.ctypes.data, values).check_balanced()
    # float64 rounds to float32; integers keep their low bits, as NumPy's astype
    converted = values.astype(dtype)
    support.assert_matches(p, converted)
    support.assert_matches(q[1:], converted)
    support.assert_matches(q[:1], support.poisoned(1, dtype))  # q[0], before q + 1, untouched


PAIR = np.dtype([("key", np.int32), ("value", np.float64)], align=True)


def _records(p, n, out):
    """Records are held by reference: fields read and written through the pointer, a whole
    record copied, pointer arithmetic by the record's size."""
    for i in range(n):
        r = p[i]
        out[i] = r.key + r.value
        r.key = i * 10
    (p + 1)[0].value = -0.5
    (2 + p)[1].key = 7
    p[n - 1] = p[0]


def test_records_through_pointers(rng):
    kernel = nrt_harness.Kernel(_records, (types.CPointer(from_dtype(PAIR)), types.int64, types.float64[::1]))
    n = 6
    a = np.zeros(n, PAIR)
    a["key"] = rng.integers(-1000, 1000, n)
    a["value"] = rng.standard_normal(n)
    expected_out = a["key"] + a["value"]
    expected = a.copy()
    expected["key"] = np.arange(n) * 10
    expected[1]["value"] = -0.5
    expected[3]["key"] = 7
    expected[n - 1] = expected[0]
    out = support.poisoned(n, np.float64)
    kernel(a.ctypes.data, n, out).check_balanced()
    support.assert_matches(out, expected_out)
    for field in ("key", "value"):
        support.assert_matches(a[field], expected[field], field)


@cuda.jit("float64(voidptr, int64)", device=True)
def _read_void(v, i):
    return cuda.carray(v, N, np.float64)[i]


def _passed_as_void(p, out):
    for i in range(N):
        out[i] = _read_void(p + 1, N - 1 - i) if i > 0 else _read_void(p, 0)


def test_a_typed_pointer_passes_for_a_voidptr(rng):
    kernel = nrt_harness.Kernel(_passed_as_void, (types.CPointer(types.float64), types.float64[::1]))
    a = rng.standard_normal(N + 1)
    out = support.poisoned(N, np.float64)
    kernel(a.ctypes.data, out).check_balanced()
    expected = np.concatenate([a[:1], a[1 + N - 1 - np.arange(1, N)]])
    support.assert_matches(out, expected)


def _copy_along(p, q, i):
    q[i] = (p + 3)[i]


def test_an_element_is_its_size_in_bytes_on_both_code_generators(backend):
    pointer = types.CPointer(types.float32)
    ptx, _ = cuda.compile_ptx(_copy_along, (pointer, pointer, types.int64), cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    # i counts 4-byte elements, p + 3 moves 12 bytes: the load is 12 bytes past the store's offset
    (scaled,) = re.findall(r"shl\.b64\s+(%rd\d+), %rd\d+, 2;", ptx)
    (load,) = re.findall(r"ld\.global\.[bf]32\s+%\w+, \[(%rd\d+)\+12\];", ptx)
    (store,) = re.findall(r"st\.global\.[bf]32\s+\[(%rd\d+)\], %\w+;", ptx)
    for address in (load, store):
        assert re.search(rf"add\.s64\s+{address}, %rd\d+, {scaled};", ptx)


F32 = types.CPointer(types.float32)


@pytest.mark.parametrize(
    "body, argtypes, message",
    [
        ("return (p + 1.5)[0]", (F32,), r"add\(float32\*, float64\)"),
        ("return (p + p)[0]", (F32,), r"add\(float32\*, float32\*\)"),
        ("return p - p", (F32,), r"sub\(float32\*, float32\*\)"),
        ("return (1 - p)[0]", (F32,), r"sub\(Literal\[int\]\(1\), float32\*\)"),
        ("return p[1.5]", (F32,), r"getitem\(float32\*, float64\)"),
        ("return (p * 2)[0]", (F32,), r"mul\(float32\*, Literal\[int\]\(2\)\)"),
    ],
)
def test_what_typing_refuses(body, argtypes, message):
    namespace = {}
    exec(f"def device(p):\n    {body}\n", namespace)
    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(namespace["device"], argtypes, device=True, cc=(9, 0))


def _plus_one(p):
    return p + 1


def _one_plus(p):
    return 1 + p


def _minus_two(p):
    return p - 2


def _as_number(p):
    return p * 2.0


@pytest.mark.parametrize("pyfunc", [_plus_one, _one_plus, _minus_two])
def test_arithmetic_on_a_voidptr_is_refused_by_typing(pyfunc):
    # a voidptr is only passed on or wrapped by cuda.carray (pointers.py): p + 1 has no element to move by
    with pytest.raises(TypingError) as raised:
        cuda.compile_ptx(pyfunc, (types.voidptr,), device=True, cc=(9, 0))
    assert (
        str(raised.value)
        .splitlines()[0]
        .endswith(
            "a voidptr has no element type to move by; make it an array with cuda.carray(p, shape, dtype), "
            "or take a typed pointer (CPointer(float32), ...)"
        )
    )


def test_a_voidptr_is_no_number():
    with pytest.raises(TypingError):
        cuda.compile_ptx(_as_number, (types.voidptr,), device=True, cc=(9, 0))


def _stepping(p, out, b):
    p += b
    out[0] = p[0]
    p -= 1
    out[1] = p[0]
    p += np.int8(-1)
    out[2] = p[0]
    p[1] = out[0] * 2  # a store through the pointer: a[4]


STEPPING = (types.CPointer(types.complex128), types.complex128[::1], types.int32)


def test_a_pointer_steps_in_place_by_elements_complex_ones_too(rng):
    kernel = nrt_harness.Kernel(_stepping, STEPPING)
    a = rng.standard_normal(8) + 1j * rng.standard_normal(8)
    original = a.copy()
    out = support.poisoned(3, np.complex128)
    kernel(a.ctypes.data, out, np.int32(5)).check_balanced()
    support.assert_matches(out, original[[5, 4, 3]])
    expected = original.copy()
    expected[4] = original[5] * 2
    support.assert_matches(a, expected)


def test_complex_pointers_assemble_on_both_code_generators(backend):
    ptx, _ = cuda.compile_ptx(_stepping, STEPPING, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")


def test_ctypes_cast_in_a_kernel_says_what_to_use():
    import ctypes

    def kernel(a):
        p = ctypes.cast(a, ctypes.POINTER(ctypes.c_int32))
        p[0] = 1

    with pytest.raises(
        TypingError, match=r"ctypes.cast is not supported in device code: an array's address is a.ctypes"
    ):
        cuda.compile_ptx(kernel, "void(int32[::1])", cc=(9, 0))
