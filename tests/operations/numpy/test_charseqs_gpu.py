"""NumPy's fixed-width strings on the GPU (operations/numpy/charseqs.py): random "S" and "U"
arrays (characters of one to four UTF-8 bytes) compared, measured, copied between widths,
indexed, assigned from literals and string values, in arrays and record fields; against
NumPy."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import charseq_kernels as K

pytestmark = pytest.mark.gpu

N = 300


def _launch(pyfunc, n, *args):
    cuda.jit(pyfunc)[(n + 63) // 64, 64](*args)


@pytest.mark.parametrize("kind", ["U", "S"])
@pytest.mark.parametrize("widths", [(4, 4), (3, 7), (8, 1)])
def test_comparisons_and_lengths_are_numpys(kind, widths, rng):
    a = K.random_strings(N, widths[0], kind, rng)
    b = K.random_strings(N, widths[1], kind, rng)
    b[:60] = a[:60]  # equal pairs too (cut to b's width)
    out = np.zeros((N, 8), np.bool_)
    lengths = np.zeros(N, np.int64)
    _launch(K.compare, N, a, b, out, lengths)
    n_a, n_b = np.char.str_len(a), np.char.str_len(b)
    expected = np.stack([a == b, a != b, a < b, a <= b, a > b, a >= b, n_a == 0, n_b > 0], axis=1)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(lengths, n_a)


@pytest.mark.parametrize("kind", ["U", "S"])
@pytest.mark.parametrize("width", [2, 5, 9])
def test_copies_between_widths_pad_and_cut(kind, width, rng):
    a = K.random_strings(N, 5, kind, rng)
    b = np.zeros(N, dtype=f"{kind}{width}")
    _launch(K.copy, N, a, b)
    np.testing.assert_array_equal(b, a.astype(b.dtype))
    # the bytes themselves: NUL padded, as NumPy stores them
    np.testing.assert_array_equal(b.view(np.uint8), a.astype(b.dtype).view(np.uint8))


@pytest.mark.parametrize("kind", ["U", "S"])
def test_2d_views_of_device_arrays(kind, rng):
    a = K.random_strings(6 * 8, 3, kind, rng).reshape(6, 8)
    device = cuda.to_device(a)[::2, ::-1]
    out = np.zeros((3, 8), dtype=a.dtype)
    cuda.jit(K.copy_2d)[(1, 1), (8, 8)](device, out)
    np.testing.assert_array_equal(out, a[::2, ::-1])


def test_unicode_literals_and_string_values(rng):
    a = K.random_strings(N, 4, "U", rng)
    a[::5] = "abc"
    before = a.copy()
    equal, less = np.zeros(N, np.bool_), np.zeros(N, np.bool_)
    _launch(K.unicode_literals, N, a, equal, less)
    words = np.array(["é中😀x" if i % 3 == 0 else "abc" for i in range(N)], dtype="U4")
    np.testing.assert_array_equal(equal, before == "abc")
    np.testing.assert_array_equal(less, before < words)
    np.testing.assert_array_equal(a, np.where(np.arange(N) % 2 == 1, words, "zz"))


def test_bytes_literals(rng):
    a = K.random_strings(N, 2, "S", rng)
    a[::4] = b"ab"
    before = a.copy()
    equal = np.zeros(N, np.bool_)
    _launch(K.bytes_literals, N, a, equal)
    np.testing.assert_array_equal(equal, before == b"ab")
    np.testing.assert_array_equal(a, np.where(np.arange(N) % 2 == 1, b"xy", b"q").astype("S2"))


def test_characters_and_bytes(rng):
    a = K.random_strings(N, 4, "U", rng)
    bs = K.random_strings(N, 3, "S", rng)
    first, last = np.full(N, "-", "U1"), np.full(N, "-", "U1")
    codes = np.zeros(N, np.uint32)
    _launch(K.characters, N, a, first, last, bs, codes)
    filled = np.char.str_len(a) > 0
    np.testing.assert_array_equal(first[filled], [s[0] for s in a[filled]])
    np.testing.assert_array_equal(last[filled], [s[-1] for s in a[filled]])
    np.testing.assert_array_equal(first[~filled], "-")
    has_bytes = np.char.str_len(bs) > 0
    np.testing.assert_array_equal(codes[has_bytes], [s[0] for s in bs[has_bytes]])


def test_string_fields_of_records():
    dtype = np.dtype([("x", np.int32), ("y", np.dtype("<U12"))])
    a = np.zeros(2, dtype)
    out = np.zeros(3, np.int64)
    cuda.jit(K.record_fields)[1, 1](a, out)
    np.testing.assert_array_equal(a, np.asarray([(1, "ABC"), (2, "XYZ")], dtype=dtype))
    np.testing.assert_array_equal(out, [1, 1, 3])
    dtype = np.dtype([("x", np.float32), ("y", np.dtype("S12"))])
    a = np.zeros(2, dtype)
    cuda.jit(K.bytes_record_fields)[1, 1](a)
    np.testing.assert_array_equal(a, np.asarray([(1, b"ABC"), (2, b"XYZ")], dtype=dtype))


@cuda.jit(debug=True, opt=False)
def _past_the_end(a, out):
    out[0] = a[0][2]  # "ab": index 2 is past its length


def test_an_index_past_the_string_raises_with_debug():
    with pytest.raises(IndexError, match="string index out of range"):
        _past_the_end[1, 1](np.array(["ab"], "U4"), np.zeros(1, "U1"))
