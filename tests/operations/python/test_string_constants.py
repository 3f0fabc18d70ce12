"""String methods and operators on constants (operations/python/string_constants.py): each
folded as Python computes it, through device functions given constants, compared
in kernels run on the simulator and the GPU; in PTX from both code generators; strings known
only at run time refused in words that say so."""

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support

CASES = [
    ("'Hello World'.upper()", "Hello World".upper()),
    ("'Hello World'.lower().title()", "hello world".title()),
    ("'  pad  '.strip() + '|'", "pad|"),
    ("'a-b-c'.replace('-', '_', 1)", "a_b-c"),
    ("'ab' * 3", "ababab"),
    ("2 * 'xy'", "xyxy"),
    ("'abc'.zfill(6)", "000abc"),
    ("'abc'.center(7, '*')", "**abc**"),
    ("'prefix_rest'.removeprefix('prefix_')", "rest"),
    ("'ÄÖü'.casefold()", "äöü"),
]
VALUES = [
    ("'a-b-c'.find('b')", 2),
    ("'a-b-c'.rfind('-')", 3),
    ("'banana'.count('an')", 2),
    ("'banana'.startswith('ban')", True),
    ("'banana'.endswith('x')", False),
    ("'123'.isdigit()", True),
    ("'Abc'.istitle()", True),
    ("len('ab'.upper() + 'cd')", 4),
    ("'héllo'[1] + 'héllo'[-1]", "éo"),
    ("'abcdef'[1:4] + 'abcdef'[::-2]", "bcdfdb"),
]


def _kernel(expressions):
    body = "\n".join(f"    out[{i}] = ({e}) == {v!r}" for i, (e, v) in enumerate(expressions))
    scope = {}
    exec(compile(f"def kernel(out):\n{body}\n", "<string constants>", "exec"), scope)
    return scope["kernel"]


@cuda.jit(device=True)
def _shout(s):
    return s.upper() + "!"


@cuda.jit(device=True)
def _initials(first, last):
    return first[0] + last[0]


def _through_device_functions(out):
    out[0] = _shout("hey") == "HEY!"
    out[1] = _initials("Ada", "Lovelace") == "AL"
    out[2] = len(_shout("héllo")) == 6


def test_methods_and_operators_fold_as_python_computes(simulator_or_gpu):
    cases = CASES + VALUES
    out = support.poisoned(len(cases), np.int64)
    cuda.jit(_kernel(cases))[1, 1](out)
    assert out.tolist() == [1] * len(cases), [c for c, ok in zip(cases, out) if not ok]


def test_device_functions_given_constants(simulator_or_gpu):
    out = support.poisoned(3, np.int64)
    cuda.jit(_through_device_functions)[1, 1](out)
    assert out.tolist() == [1, 1, 1]


def test_the_folded_code_assembles(backend):
    ptx, _ = cuda.compile_ptx(_kernel(CASES + VALUES), "void(int64[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")


def test_a_string_known_only_at_run_time_is_refused_in_words():
    def kernel(out, flag):
        s = "a" if flag[0] else "b"
        out[0] = len(s.upper())

    with pytest.raises(TypingError, match=r"str.upper\(\) of a string known only at run time"):
        cuda.compile_ptx(kernel, "void(int64[::1], boolean[::1])", cc=(9, 0))


def test_a_method_python_refuses_is_a_typing_error():
    def kernel(out):
        out[0] = "abc".index("z")

    with pytest.raises(TypingError, match=r"str.index\(\): substring not found"):
        cuda.compile_ptx(kernel, "void(int64[::1])", cc=(9, 0))


def test_the_same_once_numbas_own_string_overloads_are_loaded(backend):
    import numba.cpython.unicode  # noqa: F401  (numba's CPU strings, which other imports load)

    ptx, _ = cuda.compile_ptx(_through_device_functions, "void(int64[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
