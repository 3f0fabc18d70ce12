"""Chains of device functions each calling the next: numba types (and cumlir lowers) a callee
inside its caller, so the compiler nests as deep as the chain."""

import sys

import pytest
from numba.core import errors

from cumlir import cuda

from . import support


def _chain(depth):
    """The last of *depth* device functions f0 ... f{depth-1}, each adding 1 to what the
    one before it returns."""
    lines = ["@cuda.jit(device=True)\ndef f0(x):\n    return x + 1\n"]
    lines += [f"@cuda.jit(device=True)\ndef f{i}(x):\n    return f{i - 1}(x) + 1\n" for i in range(1, depth)]
    namespace = {"cuda": cuda}
    exec("\n".join(lines), namespace)
    return namespace[f"f{depth - 1}"]


def _kernel(top):
    def k(a):
        a[0] = top(a[1])

    return k


def test_a_chain_200_deep_compiles():
    limit = sys.getrecursionlimit()
    ptx, _ = cuda.compile_ptx(_kernel(_chain(200)), "void(int64[:])", cc=(9, 0))
    assert ", 200;" in ptx  # the 200 additions, folded into one
    support.ptxas(ptx)
    assert sys.getrecursionlimit() == limit  # raised while compiling only


def test_an_absurdly_deep_chain_is_one_clear_error():
    with pytest.raises(errors.UnsupportedError) as info:
        cuda.compile_ptx(_kernel(_chain(401)), "void(int64[:])", cc=(9, 0))
    assert str(info.value) == "device functions call one another more than 400 deep, the deepest f0"
