"""Integer constants beyond int64 and uint64 (``2**70``, ``10**30``): the nearest float when
stored into a float, an error naming the value, the type and the line for an integer; the
constants numba types (``2**64 - 1`` as uint64, ``-2**63`` as int64) as before."""

import struct

import numpy as np
import pytest
from numba.core import errors

from cumlir import cuda

from . import support

BIG = 2**80


def _powers(a):
    a[0] = 2**70  # CPython leaves this to be computed: 2 ** 70 in int64 would wrap to 0
    a[1] = -(2**70)
    a[2] = 10**30  # folded by CPython into a constant numba cannot type
    a[3] = BIG


def _fitting(a):
    a[0] = 2**64 - 1  # uint64
    a[1] = -(2**63)  # int64


def _float_bits(value, bits):
    if bits == 64:
        return struct.unpack("<q", struct.pack("<d", value))[0]
    return struct.unpack("<i", struct.pack("<f", value))[0]


@pytest.mark.parametrize("dtype,bits", [("float64", 64), ("float32", 32)])
def test_wide_constants_store_their_nearest_float(backend, dtype, bits):
    ptx, _ = cuda.compile_ptx(_powers, f"void({dtype}[::1])", cc=(9, 0), backend=backend)
    values = [2.0**70, -(2.0**70), 1e30 if bits == 64 else float(np.float32(1e30)), 2.0**80]
    for value in values:
        assert f"{_float_bits(value, bits)};" in ptx, value
    support.ptxas(ptx)


def test_float32_takes_the_float_nearest_the_integer():
    # rounding to double first, then to float32, would give inf
    def k(a):
        a[0] = 2**128 - 2**103 - 1

    ptx, _ = cuda.compile_ptx(k, "void(float32[::1])", cc=(9, 0))
    assert f"{_float_bits(float(np.finfo(np.float32).max), 32)};" in ptx


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32"])
def test_a_wide_constant_stored_into_an_integer_is_an_error(dtype):
    with pytest.raises(errors.TypingError) as info:
        cuda.compile_ptx(_powers, f"void({dtype}[::1])", cc=(9, 0))
    message = str(info.value)
    assert f"the integer constant {2**70} does not fit {dtype}" in message
    assert "a[0] = 2**70" in message  # the source line


def test_constants_numba_types_are_stored_as_before():
    ptx, _ = cuda.compile_ptx(_fitting, "void(uint64[::1])", cc=(9, 0))
    assert "-1;" in ptx  # 2**64 - 1: all ones
    assert "-9223372036854775808;" in ptx


@pytest.mark.gpu
def test_wide_constants_on_the_gpu(backend):
    for dtype in (np.float64, np.float32):
        a = np.zeros(4, dtype)
        cuda.jit(backend=backend)(_powers)[1, 1](a)
        expected = np.array([2**70, -(2**70), 10**30, BIG], dtype=object).astype(np.float64).astype(dtype)
        np.testing.assert_array_equal(a, expected)
    a = np.zeros(2, np.uint64)
    cuda.jit(backend=backend)(_fitting)[1, 1](a)
    assert a.tolist() == [2**64 - 1, 2**63]
