"""complex32 (cuda.complex32, two float16 parts): its type and conversions, the typing of its
operators, PTX on both code generators for sm_80 and sm_90 (assembled by ptxas), its 4-byte
form in memory, scalar kernel arguments rounded as float16, and (marked gpu) results against
NumPy's complex64 rounded part by part to float16.

The generated code is not run on the host: LLVM lowers float16 conversions on x86 to
compiler-rt calls (``__truncsfhf2``) that the JIT of tests/nrt_harness.py cannot resolve."""

import re
import struct

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda, refused, types
from cumlir.runtime import arguments

from ... import support

CCS = ((8, 0), (9, 0))


def everything(out, inp):
    """Every complex32 operation on the first two inputs, widened into *out*."""
    z = cuda.complex32(inp[0])
    w = cuda.complex32(inp[1].real, inp[1].imag)
    out[0] = z + w
    out[1] = z - w
    out[2] = z * w
    out[3] = z / w
    out[4] = abs(z)
    out[5] = z.conjugate()
    out[6] = -z
    out[7] = z.real
    out[8] = z.imag
    out[9] = 1.0 if z == w else 0.0
    out[10] = 1.0 if z != w else 0.0
    half = np.float16(inp[2].real)
    out[11] = z + half
    out[12] = half * w
    z += w
    out[13] = z


def in_arrays(out, inp):
    """complex32 elements of a local and a shared array, stored and read back."""
    local = cuda.local.array(4, cuda.complex32)
    shared = cuda.shared.array(32, cuda.complex32)
    i = cuda.threadIdx.x
    for k in range(4):
        local[k] = cuda.complex32(inp[(i + k) % inp.size])
    shared[i] = local[i % 4] * local[(i + 1) % 4]
    cuda.syncthreads()
    out[i] = shared[31 - i]


def mixed(out, inp):
    """complex32 with other numbers: computed in complex64 or complex128."""
    z = cuda.complex32(inp[0])
    out[0] = z - inp[1]
    out[1] = z * np.float32(2.5)
    out[2] = z**2
    out[3] = 1.0 if z == inp[1] else 0.0
    out[4] = z / np.complex128(inp[1])


def printed(x):
    print(cuda.complex32(x[0]), x[0])


def test_the_type():
    assert cuda.complex32 is types.complex32
    assert isinstance(types.complex32, types.Complex)
    assert types.complex32.underlying_float == types.float16
    assert types.complex32.bitwidth == 32
    assert "complex32" not in refused.NUMBA_CUDA_MLIR["cuda"]


@pytest.mark.parametrize(
    "other, conversion",
    [
        (types.float16, types.Conversion.safe),
        (types.float32, types.Conversion.unsafe),
        (types.int32, types.Conversion.unsafe),
        (types.complex64, types.Conversion.unsafe),
    ],
)
def test_conversions_to_complex32(other, conversion):
    from cumlir.typing.context import typing_context

    assert typing_context().can_convert(other, types.complex32) == conversion


def test_widening_is_exact():
    from cumlir.typing.context import typing_context

    context = typing_context()
    assert context.can_convert(types.complex32, types.complex64) == types.Conversion.promote
    assert context.can_convert(types.complex32, types.complex128) == types.Conversion.promote
    assert context.can_convert(types.complex32, types.float16) is None


def _result_type(body, sig):
    from cumlir.typing.frontend import type_function
    from cumlir.typing.signatures import parse_signature

    scope = {}
    exec(f"def f(a, b):\n    return {body}\n", {"np": np}, scope)
    return type_function(scope["f"], parse_signature(sig)[0]).return_type


@pytest.mark.parametrize(
    "body, sig, expected",
    [
        ("a + b", "(complex32, complex32)", "complex32"),
        ("a * b", "(complex32, float16)", "complex32"),
        ("a / b", "(float16, complex32)", "complex32"),
        ("a - b", "(complex32, complex64)", "complex64"),
        ("a + b", "(complex32, float32)", "complex64"),
        ("a * b", "(complex32, complex128)", "complex128"),
        ("abs(a)", "(complex32, complex32)", "float16"),
        ("a.real", "(complex32, complex32)", "float16"),
        ("a.conjugate()", "(complex32, complex32)", "complex32"),
        ("-a", "(complex32, complex32)", "complex32"),
        ("a == b", "(complex32, float16)", "bool"),
    ],
)
def test_typing_as_numba_cuda_mlir(body, sig, expected):
    assert str(_result_type(body, sig)) == expected


def test_ordering_is_a_typing_error():
    with pytest.raises(TypingError, match="complex32"):
        _result_type("a < b", "(complex32, complex32)")


@pytest.mark.parametrize("cc", CCS)
@pytest.mark.parametrize("kernel", [everything, in_arrays, mixed, printed])
def test_ptx(kernel, cc, backend):
    sig = "void(complex64[::1], complex64[::1])" if kernel is not printed else "void(complex64[::1],)"
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_an_element_is_one_aligned_32_bit_word(backend):
    ptx, _ = cuda.compile_ptx(in_arrays, "void(complex64[::1], complex64[::1])", cc=(8, 0), backend=backend)
    assert re.search(r"st\.shared\.(b|u)32", ptx), ptx
    assert re.search(r"ld\.shared\.(b|u)32", ptx), ptx
    assert not re.search(r"(ld|st)\.shared\.(b|u)16", ptx), ptx


def test_print_format():
    ptx, _ = cuda.compile_ptx(printed, "void(complex64[::1],)", cc=(8, 0))
    assert _printf_text(ptx) == "(%f%+fj) (%f%+fj)\n"


def _printf_text(ptx):
    """The bytes of the module's one format string, as text."""
    found = re.search(r"\.global \.align 1 \.b8 \w+\[\d+\] = \{([\d, ]+)\}", ptx)
    assert found, ptx
    return bytes(int(b) for b in found.group(1).split(",")).rstrip(b"\0").decode()


@pytest.mark.parametrize(
    "value, parts",
    [
        (1.5 - 2j, (1.5, -2.0)),
        (1 + 2049j, (1.0, 2048.0)),  # halfway between 2048 and 2050: to even
        (1e6 + 0j, (np.inf, 0.0)),
        (complex(0.1, 65519.0), (np.float16(0.1), 65504.0)),
    ],
)
def test_scalar_argument_parts_rounded_as_float16(value, parts):
    parameter = arguments._parameter(types.complex32, 0)
    buffer = bytearray(2 * arguments.SLOT)
    parameter.pack(value, buffer, 0, None)
    got = [struct.unpack_from("e", buffer, k * arguments.SLOT)[0] for k in range(2)]
    assert got == [float(np.float16(p)) for p in parts]


def test_scalar_argument_not_a_number():
    parameter = arguments._parameter(types.complex32, 3)
    with pytest.raises(TypeError, match="argument 3: expected a complex number for complex32"):
        parameter.pack("x", bytearray(16), 0, None)


def widen(out, z):
    out[0] = z


def test_in_signatures(backend):
    """A complex32 argument is two 16-bit parameters, as a float16 one is."""
    ptx, _ = cuda.compile_ptx(widen, "void(complex64[::1], complex32)", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(re.findall(r"\.param (\.align 2 \.b8 \w+\[2\]|\.b16 \w+)", ptx)) == 2, ptx


# ---- arrays' parts, on the simulator and the GPU ------------------------------------------


@cuda.jit
def array_parts(parts, halves):
    """The parts of complex32 arrays in shared and local memory, read and written through
    their .real and .imag views."""
    i = cuda.threadIdx.x
    shared = cuda.shared.array(32, cuda.complex32)
    local = cuda.local.array(2, cuda.complex32)
    shared[i] = cuda.complex32(halves[0, i], halves[1, i])
    local[0] = shared[i]
    local.imag[1] = halves[0, i]
    local.real[1] = halves[1, i]
    cuda.syncthreads()
    parts[0, i] = shared.real[31 - i]
    parts[1, i] = shared.imag[31 - i]
    cuda.syncthreads()
    shared.imag[i] = -shared.real[i]  # a store through the view lands in the element's upper half
    parts[2, i] = shared[i].imag
    parts[3, i] = shared[i].real
    parts[4, i] = local.imag[0]
    parts[5, i] = local[1].real
    parts[6, i] = local[1].imag
    parts[7, i] = shared.imag[1:][i - 1] if i > 0 else local.real[::-1][1]


def test_parts_of_complex32_arrays_are_float16_views(simulator_or_gpu, rng):
    halves = (rng.standard_normal((2, 32)) * 100).astype(np.float16)
    parts = np.full((8, 32), np.nan, np.float16)
    array_parts[1, 32](parts, halves)
    real, imag = halves
    expected = [real[::-1], imag[::-1], -real, real, imag, imag, real, np.concatenate([real[:1], -real[1:]])]
    np.testing.assert_array_equal(parts, expected)


@pytest.mark.parametrize("cc", CCS)
def test_parts_of_complex32_arrays_ptx(cc, backend):
    ptx, _ = cuda.compile_ptx(array_parts.py_func, "void(float16[:, ::1], float16[:, ::1])", cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert re.search(r"st\.shared\.(b|u)16", ptx), ptx  # the store through .imag: its half alone


def test_parts_of_complex32_arrays_are_typed_float16_views():
    from cumlir.typing.frontend import type_function

    def parts(a):
        return a.real, a.imag[1:]

    typed = type_function(parts, (types.Array(types.complex32, 2, "C"),))
    assert typed.return_type == types.Tuple([types.Array(types.float16, 2, "A"), types.Array(types.float16, 2, "A")])


# ---- on the GPU ------------------------------------------------------------------------


def _rounded(values):
    """complex64 *values* with each part rounded to float16 (nearest, ties to even)."""
    values = np.asarray(values, np.complex64)
    with np.errstate(over="ignore"):
        real, imag = values.real.astype(np.float16), values.imag.astype(np.float16)
    return real.astype(np.float32) + 1j * imag.astype(np.float32)


def _reference(inp):
    z, w = _rounded(inp[:2])
    half = np.float32(np.float16(inp[2].real))
    both = [z + w, z - w, z * w, z / w, abs(z), np.conj(z), -z, z.real, z.imag]
    both += [float(z == w), float(z != w), z + half, half * w, z + w]
    return _rounded(np.array(both, np.complex64))


def _same_to_a_float16_ulp(got, expected):
    for part in ("real", "imag"):
        a = getattr(got, part).astype(np.float16).astype(np.float64)
        b = getattr(expected, part).astype(np.float16).astype(np.float64)
        ulp = np.spacing(np.abs(b).astype(np.float16)).astype(np.float64)
        assert np.all((a == b) | (np.abs(a - b) <= ulp)), (part, got, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(4))
def test_gpu_everything(seed, backend):
    rng = np.random.default_rng(seed)
    inp = (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64) * 8
    out = np.zeros(14, np.complex64)
    cuda.jit(backend=backend)(everything)[1, 1](out, inp)
    expected = _reference(inp)
    # sums, differences, negation and the exact ones: bit for bit
    for k in (0, 1, 5, 6, 7, 8, 9, 10, 11, 13):
        assert out[k] == expected[k], (k, out[k], expected[k])
    _same_to_a_float16_ulp(out[[2, 3, 4, 12]], expected[[2, 3, 4, 12]])


@pytest.mark.gpu
def test_gpu_arrays(backend):
    rng = np.random.default_rng(7)
    inp = (rng.standard_normal(32) + 1j * rng.standard_normal(32)).astype(np.complex64)
    out = np.zeros(32, np.complex64)
    cuda.jit(backend=backend)(in_arrays)[1, 32](out, inp)
    threads = np.arange(32)
    local = _rounded([[inp[(i + k) % 32] for k in range(4)] for i in threads])
    products = _rounded(local[threads, threads % 4] * local[threads, (threads + 1) % 4])
    _same_to_a_float16_ulp(out, products[31 - threads])


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # numba-cuda has no complex32: its replay of the launch reads another type
def test_gpu_scalar_argument(backend):
    out = np.zeros(1, np.complex64)
    cuda.jit("void(complex64[::1], complex32)", backend=backend)(widen)[1, 1](out, 0.1 + 65519j)
    assert out[0] == np.complex64(complex(float(np.float16(0.1)), 65504.0))
