"""tf32 (types.tf32, numba-cuda-mlir's TensorFloat-32): the software rounding run on the host
(tests/nrt_harness.py, the kernel compiled for sm_75, where no cvt.rna.tf32 exists) against
an arithmetic reference over float32 and float64 sweeps; PTX on both code generators (the
cvt from sm_80), typing, kernel arguments rounded on the host the same way, and (marked gpu)
the hardware path giving the software's bits."""

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda, types
from cumlir.runtime import arguments
from cumlir.typerecords.tf32 import Tf32Parameter

from ... import nrt_harness, support

tf32 = types.tf32
_rounded = Tf32Parameter.rounded
_NAN_BITS = 0x7FFFE000


def to_tf32(out, inp):
    for i in range(inp.size):
        out[i] = tf32(inp[i])


def operators(out, a, b):
    for i in range(a.size):
        x, y = tf32(a[i]), tf32(b[i])
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x / y
        out[4, i] = -x
        out[5, i] = 1.0 if x < y else 0.0
        out[6, i] = 1.0 if x == y else 0.0


def in_arrays(out, a):
    local = cuda.local.array(8, tf32)
    shared = cuda.shared.array(32, tf32)
    i = cuda.threadIdx.x
    for k in range(8):
        local[k] = tf32(a[(i + k) % a.size])
    shared[i] = local[i % 8] + local[(i + 3) % 8]
    cuda.syncthreads()
    out[i] = shared[31 - i]
    print(shared[i])


def float32_sweep():
    """float32 with every sign and exponent, mantissas beside the rounding point of tf32 (the
    13 low bits 0, 1, 0xFFF, 0x1000 (a tie), 0x1001, 0x1FFF), subnormals, infinities, NaNs."""
    high = (np.arange(512, dtype=np.uint64) << 23)[:, None] | (np.arange(0, 1 << 10, 7, dtype=np.uint64) << 13)
    low = np.array([0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF], np.uint64)
    bits = (high[:, :, None] | low).ravel()
    return np.concatenate([bits, [0x7F800001, 0xFFC00000, 0x7F7FF000, 0x7F7FEFFF]]).astype(np.uint32).view(np.float32)


def float64_sweep():
    """float64 ties of tf32 nudged by less than float32 can hold, either way, and beyond float32."""
    ties = float32_sweep()
    ties = ties[np.isfinite(ties) & ((ties.view(np.uint32) & 0x1FFF) == 0x1000)].astype(np.float64)
    return np.concatenate([ties * (1 + 2.0**-40), ties * (1 - 2.0**-40), [1e300, -1e300, 1e-300, 3.4e38]])


def reference_bits(values):
    with np.errstate(over="ignore"):
        out = np.array([_rounded(float(v)) for v in values], np.float32).view(np.uint32)
    out[np.isnan(values)] = _NAN_BITS
    return out


def _host_run(values):
    argtypes = (types.float32[::1], types.Array(types.from_dtype(values.dtype), 1, "C"))
    kernel = nrt_harness.Kernel(to_tf32, argtypes, cc=(7, 5))
    out = np.full(values.size, np.nan, np.float32)
    kernel(out, values)
    return out.view(np.uint32)


@pytest.mark.parametrize("sweep", [float32_sweep, float64_sweep])
def test_software_rounding_on_the_host(sweep):
    values = sweep()
    got, expected = _host_run(values), reference_bits(values)
    bad = np.nonzero(got != expected)[0]
    assert not len(bad), [(values[i], hex(got[i]), hex(expected[i])) for i in bad[:5]]


@pytest.mark.parametrize(
    "x, expected",
    [
        (1 + 2.0**-11, 1 + 2.0**-10),  # a tie: away from zero
        (-(1 + 2.0**-11), -(1 + 2.0**-10)),
        (1 + 2.0**-11 - 2.0**-40, 1.0),
        (1 + 3 * 2.0**-11, 1 + 2 * 2.0**-10),  # a tie: away, not to even
        ((2 - 2.0**-11) * 2.0**127, math.inf),
        (2.0**-149, 0.0),
        (2.0**-137, 2.0**-136),  # a subnormal tie
    ],
)
def test_reference_by_exact_arithmetic(x, expected):
    assert _rounded(x) == expected
    # nearest of the multiples of the ulp, ties away: checked with fractions
    if math.isfinite(expected) and expected:
        ulp = Fraction(max(2.0 ** (math.frexp(x)[1] - 11), 2.0**-136))
        assert abs(Fraction(x) - Fraction(expected)) <= ulp / 2


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)])
@pytest.mark.parametrize("kernel", [to_tf32, operators, in_arrays])
def test_ptx(kernel, cc, backend):
    sig = {
        to_tf32: "void(float32[::1], float64[::1])",
        operators: "void(float32[:, ::1], float32[::1], float32[::1])",
        in_arrays: "void(float32[::1], float32[::1])",
    }[kernel]
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert ("cvt.rna.tf32.f32" in ptx) == (cc >= (8, 0))


def _result_type(body, argtypes):
    from cumlir.typing.frontend import type_function

    scope = {}
    exec(f"def f(a, b):\n    return {body}\n", {}, scope)
    return type_function(scope["f"], argtypes).return_type


@pytest.mark.parametrize(
    "body, argtypes, expected",
    [
        ("a + b", (tf32, tf32), tf32),
        ("a / b", (tf32, tf32), tf32),
        ("-a", (tf32, tf32), tf32),
        ("a < b", (tf32, tf32), types.boolean),
        ("a * b", (tf32, types.float32), types.float32),
        ("a * b", (tf32, types.float64), types.float64),
    ],
)
def test_typing_as_numba_cuda_mlir(body, argtypes, expected):
    assert _result_type(body, argtypes) == expected


def test_no_implicit_conversion_to_tf32():
    def store(out, x):
        out[0] = x

    with pytest.raises(TypingError):
        cuda.compile_ptx(store, (types.Array(tf32, 1, "C"), types.complex64), cc=(8, 0))


@pytest.mark.parametrize("x", [1 + 2.0**-11, -3.0e-39, 1e300, -math.inf, np.float32(0.1), 7])
def test_scalar_argument_rounded_as_the_device_rounds(x):
    buffer = bytearray(8)
    arguments._parameter(tf32, 0).pack(x, buffer, 0, None)
    assert struct.unpack_from("I", buffer)[0] == reference_bits(np.array([x], np.float64))[0]


def test_scalar_argument_nan_and_bad_values():
    parameter = arguments._parameter(tf32, 2)
    buffer = bytearray(8)
    parameter.pack(math.nan, buffer, 0, None)
    assert struct.unpack_from("I", buffer)[0] == _NAN_BITS
    with pytest.raises(TypeError, match="argument 2: expected a real number for tf32, got 1j"):
        parameter.pack(1j, buffer, 0, None)


# ---- on the GPU ------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("sweep", [float32_sweep, float64_sweep])
def test_gpu_conversions_give_the_softwares_bits(sweep, backend):
    values = sweep()
    out = np.zeros(values.size, np.float32)
    cuda.jit(backend=backend)(to_tf32)[1, 1](out, values)
    np.testing.assert_array_equal(out.view(np.uint32), reference_bits(values))


@pytest.mark.gpu
def test_gpu_operators_round_the_float32_result(backend):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(256).astype(np.float32) for _ in range(2))
    out = np.zeros((7, 256), np.float32)
    cuda.jit(backend=backend)(operators)[1, 1](out, a, b)
    x, y = (reference_bits(v).view(np.float32) for v in (a, b))
    for row, exact in enumerate((x + y, x - y, x * y, x / y)):
        np.testing.assert_array_equal(out[row].view(np.uint32), reference_bits(exact.astype(np.float32)))
    np.testing.assert_array_equal(out[4], -x)
    np.testing.assert_array_equal(out[5], (x < y).astype(np.float32))
    np.testing.assert_array_equal(out[6], (x == y).astype(np.float32))
