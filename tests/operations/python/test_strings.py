"""Strings in device code (operations/python/strings.py): literals and values holding them,
compared, measured, indexed by code point, ``ord``, passed to and returned from device
functions, printed. The generated code runs on the host (tests/nrt_harness.py) against
Python's own answers; the GPU test prints."""

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

from ... import support

WORDS = ("abc", "héllo", "日本語", "a🙂b", "", "abd")


@cuda.jit(device=True)
def word(k):
    if k == 0:
        return "abc"
    elif k == 1:
        return "héllo"
    elif k == 2:
        return "日本語"
    elif k == 3:
        return "a🙂b"
    elif k == 4:
        return ""
    return "abd"


@cuda.jit(device=True)
def is_greeting(s):
    return s == "héllo"


def facts(out, k, j):
    s = word(k)
    t = word(j)
    n = len(s)
    out[0] = n
    out[1] = s == t
    out[2] = s != t
    out[3] = is_greeting(s)
    for i in range(n):
        out[4 + i] = ord(s[i])
    if n > 0:
        out[9] = ord(s[-1])
    out[10] = len("日本") + ("x" == "x") + 10 * ("x" != "y")  # literals: decided while compiling


def _expected(k, j):
    s, t = WORDS[k], WORDS[j]
    out = np.full(11, -7, np.int64)
    out[0], out[1], out[2], out[3] = len(s), s == t, s != t, s == "héllo"
    for i, c in enumerate(s):
        out[4 + i] = ord(c)
    if s:
        out[9] = ord(s[-1])
    out[10] = 2 + 1 + 10
    return out


SIG = (types.int64[::1], types.int64, types.int64)


def test_strings_compile_on_both_code_generators(backend):
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(facts, SIG, cc=cc, backend=backend)
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_the_generated_code_answers_as_python():
    from ... import nrt_harness

    kernel = nrt_harness.Kernel(facts, SIG)
    for k in range(len(WORDS)):
        for j in range(len(WORDS)):
            out = np.full(11, -7, np.int64)
            kernel(out, k, j)
            np.testing.assert_array_equal(out, _expected(k, j), err_msg=f"{WORDS[k]!r} and {WORDS[j]!r}")


def speaks(out, k):
    s = word(k)
    print("word", s, len(s))
    print(s[1] if len(s) > 1 else s)


def test_print_writes_the_bytes(backend):
    ptx, _ = cuda.compile_ptx(speaks, (types.int64[::1], types.int64), cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert "word %s %lld" in bytes(int(b) for b in _global_bytes(ptx)).decode(errors="replace")


def _global_bytes(ptx):
    import re

    return [int(b) for group in re.findall(r"\{([\d, ]+)\}", ptx) for b in group.split(",")]


@pytest.mark.parametrize(
    "source, words",
    [
        ("s = word(k)\n    out[0] = len(s[1:3])", "slicing a string known only at run time is not supported"),
        ("out[0] = ord(k)", "ord\\(\\) takes a one-character string"),
    ],
)
def test_refused_forms_name_the_problem(source, words):
    namespace = {"word": word, "cuda": cuda}
    exec(f"def kernel(out, k):\n    {source}\n", namespace)
    with pytest.raises(Exception, match=words):
        cuda.compile_ptx(namespace["kernel"], (types.int64[::1], types.int64), cc=(9, 0))


@pytest.mark.gpu
def test_on_the_gpu(capfd, backend):
    kernel = cuda.jit(backend=backend)(facts)
    out = cuda.to_device(np.full(11, -7, np.int64))
    kernel[1, 1](out, 3, 3)
    np.testing.assert_array_equal(out.copy_to_host(), _expected(3, 3))
    cuda.jit(backend=backend)(speaks)[1, 1](out, 1)
    cuda.synchronize()
    printed = capfd.readouterr().out
    assert "word héllo 5\né\n" in printed, printed


def test_the_same_once_numbas_own_string_typing_is_loaded():
    import numba.cpython.unicode  # noqa: F401  (numba's CPU typing of str, which some imports load)

    from ... import nrt_harness

    kernel = nrt_harness.Kernel(facts, SIG)
    for k in range(len(WORDS)):
        out = np.full(11, -7, np.int64)
        kernel(out, k, 1)
        np.testing.assert_array_equal(out, _expected(k, 1))
    test_refused_forms_name_the_problem(
        "s = word(k)\n    out[0] = len(s[1:3])", "slicing a string known only at run time is not supported"
    )
