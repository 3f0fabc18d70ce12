"""Device functions jitted with signatures (``cuda.jit("int32(int32)", device=True)``), as
Numba-CUDA compiles them: calls take the declared result type (an int32 result wraps), their
arguments convert to the signature chosen among those declared, and a call none accepts is
a typing error; device functions jitted without signatures are typed per call."""

import numpy as np
import pytest
from numba.core import errors

from cumlir import cuda

from . import support


@cuda.jit("int32(int32)", device=True)
def wrapped_triple(x):
    return x * 3


@cuda.jit(["float32(float32, float32)", "int16(int16, int16)"], device=True)
def declared_pair(x, y):
    return x * 3 + y


@cuda.jit(device=True)
def lazy_triple(x):
    return x * 3


def calls(out, big, small, f):
    i = cuda.grid(1)
    if i < big.size:
        out[0, i] = wrapped_triple(big[i])  # int64 argument: converted to int32, the result wraps
        out[1, i] = lazy_triple(big[i])  # typed for int64: no wrapping
        out[2, i] = declared_pair(small[i], small[i])  # int16(int16, int16): wraps at 16 bits
        out[3, i] = declared_pair(f[i], 1.0) * 2**24  # float32(float32, float32): float32 arithmetic


def test_declared_signatures_set_the_types_of_calls(simulator_or_gpu, rng):
    n = 300
    big = rng.integers(-(2**33), 2**33, n).astype(np.int64)
    small = rng.integers(-(2**15), 2**15, n).astype(np.int16)
    f = rng.standard_normal(n)
    out = support.poisoned((4, n), np.float64)
    cuda.jit(calls)[3, 128](out, big, small, f)
    np.testing.assert_array_equal(out[0], (big.astype(np.int32) * np.int32(3)).astype(np.float64))
    np.testing.assert_array_equal(out[1], (big * 3).astype(np.float64))
    np.testing.assert_array_equal(out[2], (small * np.int16(3) + small).astype(np.float64))
    f32 = f.astype(np.float32)
    # numba computes x * 3 + y in float64 (float32 times an int64 constant); the result is a float32
    np.testing.assert_array_equal(
        out[3], (f32.astype(np.float64) * 3 + 1).astype(np.float32).astype(np.float64) * 2**24
    )


def test_a_call_no_declared_signature_accepts_is_a_typing_error():
    def kernel(a):
        a[0] = wrapped_triple(a[0], a[1])

    with pytest.raises(errors.TypingError, match="wrapped_triple"):
        cuda.compile_ptx(kernel, "void(int64[::1])", cc=(9, 0))


def test_the_declared_signature_is_what_inspection_shows(backend):
    from numba.core import types

    ptx = wrapped_triple.inspect_asm(cc=(9, 0))
    assert list(ptx) == [(types.int32,)] and ".b32" in ptx[(types.int32,)]
    assert wrapped_triple.compile_device((types.int32,)).signature.return_type == types.int32
