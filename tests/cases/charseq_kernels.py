"""Kernels on NumPy's fixed-width strings ("S", "U"), and random arrays of them: shared by
the CPU tests (PTX) and the GPU tests (compared with NumPy)."""

import numpy as np

from cumlir import cuda

# code points of one, two, three and four UTF-8 bytes, and the NUL NumPy pads with
UNICODE_ALPHABET = list("abcxyzé中😀")
BYTES_ALPHABET = [chr(c) for c in range(97, 123)]


def random_strings(n, width, kind, rng):
    """*n* random strings of 0 to *width* characters, as an array of dtype kind+width."""
    alphabet = UNICODE_ALPHABET if kind == "U" else BYTES_ALPHABET
    words = ["".join(rng.choice(alphabet, rng.integers(0, width + 1))) for _ in range(n)]
    if kind == "S":
        return np.array([w.encode() for w in words], dtype=f"S{width}")
    return np.array(words, dtype=f"U{width}")


def compare(a, b, out, lengths):
    """Every comparison of a[i] with b[i], `not a[i]`, and len(a[i])."""
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        out[i, 0] = x == y
        out[i, 1] = x != y
        out[i, 2] = x < y
        out[i, 3] = x <= y
        out[i, 4] = x > y
        out[i, 5] = x >= y
        out[i, 6] = not x
        out[i, 7] = bool(y)
        lengths[i] = len(x)


def copy(a, b):
    """b[i] = a[i], between arrays of any widths."""
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i]


def copy_2d(a, b):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        b[i, j] = a[i, j]


def unicode_literals(a, equal, less):
    """Literals and a string value (one of two literals) stored and compared."""
    i = cuda.grid(1)
    if i < a.size:
        word = "é中😀x" if i % 3 == 0 else "abc"
        equal[i] = a[i] == "abc"
        less[i] = a[i] < word
        if i % 2:
            a[i] = word
        else:
            a[i] = "zz"


def bytes_literals(a, equal):
    i = cuda.grid(1)
    if i < a.size:
        equal[i] = a[i] == b"ab"
        a[i] = b"xyz" if i % 2 else b"q"


def characters(a, first, last, bs, codes):
    """s[0] and s[-1] of unicode strings (one-character strings), b[0] of bytes (numbers)."""
    i = cuda.grid(1)
    if i < a.size:
        s = a[i]
        if len(s) > 0:
            first[i] = s[0]
            last[i] = s[-1]
        if len(bs[i]) > 0:
            codes[i] = bs[i][0]


def record_fields(a, out):
    """Numba-CUDA's string fields of records: assigned from literals, read and compared."""
    a[0]["x"] = 1
    a[0]["y"] = "ABC"
    a[1]["x"] = 2
    a[1]["y"] = "XYZ"
    out[0] = a[0].y == "ABC"
    out[1] = a[1]["y"] > a[0].y
    out[2] = len(a[1].y)


def bytes_record_fields(a):
    a[0]["x"] = 1
    a[0]["y"] = b"ABC"
    a[1]["x"] = 2
    a[1]["y"] = b"XYZ"
