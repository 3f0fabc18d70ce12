"""Two-lane vectors and complex numbers: complex(v), np.complex64(v) and np.complex128(v) of
every 2-lane vector type, the 2-lane constructors given a complex number (a kernel argument or
a value), complex numbers stored into arrays of vectors and vectors into complex arrays (local
and shared), run on the simulator (the GPU in the GPU tier) against NumPy; the types chosen;
what is refused for vectors of 1, 3 or 4 lanes; PTX on both code generators."""

import numpy as np
import pytest
from numba.core import errors, types

from cumlir import cuda
from cumlir.types import BASE_TYPES

from ... import support
from ...cases.vector_kernels import constructor


def _complex_of(base):
    """complex(v)'s type: complex64 where a float32 holds the lanes exactly."""
    dtype = np.dtype(base)
    narrow = dtype.itemsize <= 4 if dtype.kind == "f" else dtype.itemsize <= 2
    return np.dtype(np.complex64 if narrow else np.complex128)


def complex_kernel(base):
    V2 = constructor(base, 2)

    def kernel(a, z64, z128, by_complex, as64, as128, lanes):
        v = V2(a[0], a[1])
        by_complex[0] = complex(v)
        as64[0] = np.complex64(v)
        as128[0] = np.complex128(v)
        from64, from128 = V2(z64[0]), V2(z128[0])
        lanes[0], lanes[1] = from64.x, from64.y
        lanes[2], lanes[3] = from128.x, from128.y
        held = cuda.local.array(2, V2)
        held[0] = z128[1]  # a complex number stored into a vector
        held[1] = v
        lanes[4], lanes[5] = held[0].x, held[0].y
        as128[1] = held[1]  # a vector stored into a complex number
        shared = cuda.shared.array(3, dtype=V2)
        shared[0] = z64[1]
        shared[1:] = z128[0]  # into every element of a slice
        lanes[6], lanes[7] = shared[0].x, shared[0].y
        lanes[8], lanes[9] = shared[2].x, shared[2].y
        as64[1] = shared[1]

    kernel.__name__ = f"complex_{base}"
    return kernel


def _parts(base, n, rng):
    """n values the base type holds (integers: in range, so that converting a part is defined)."""
    dtype = np.dtype(base)
    if dtype.kind == "f":
        return rng.standard_normal(n) * 100
    info = np.iinfo(dtype)
    return np.trunc(rng.uniform(float(info.min) / 2, float(info.max) / 2, n))


def _as_lanes(values, base):
    """Parts converted to the lane type as a vector's constructor converts them (floats rounded,
    truncated toward zero to integers)."""
    dtype = np.dtype(base)
    return (values if dtype.kind == "f" else np.trunc(values)).astype(dtype)


@pytest.mark.parametrize("base", BASE_TYPES)
def test_vectors_and_complex_numbers_convert_both_ways(base, simulator_or_gpu, rng):
    dtype = np.dtype(base)
    a = _parts(base, 2, rng).astype(dtype)
    z64 = (_parts(base, 2, rng) + 1j * _parts(base, 2, rng)).astype(np.complex64)
    z128 = _parts(base, 2, rng) + 1j * _parts(base, 2, rng)
    by_complex = support.poisoned(1, _complex_of(base))
    as64, as128 = support.poisoned(2, np.complex64), support.poisoned(2, np.complex128)
    lanes = support.poisoned(10, dtype)
    cuda.jit(complex_kernel(base))[1, 1](a, z64, z128, by_complex, as64, as128, lanes)

    def split(z):
        return [_as_lanes(np.array([z.real]), base)[0], _as_lanes(np.array([z.imag]), base)[0]]

    def complex64_of(x, y):
        return np.complex64(complex(np.float32(x), np.float32(y)))

    vector = complex(a[0].item(), a[1].item())  # the lanes, exactly (Python floats of the values)
    np.testing.assert_array_equal(by_complex, np.array([vector], _complex_of(base)))
    np.testing.assert_array_equal(as64, [complex64_of(*a), complex64_of(*split(z128[0]))])
    np.testing.assert_array_equal(as128, [vector, vector])
    expected = split(z64[0]) + split(z128[0]) + split(z128[1]) + split(z64[1]) + split(z128[0])
    np.testing.assert_array_equal(lanes, np.array(expected, dtype))


def _complex_arguments(c64, c128, out32, out64):
    v = cuda.float2(c64)
    w = cuda.double2(c128)
    out32[0], out32[1] = v.x, v.y
    out64[0], out64[1] = w.x, w.y


def test_complex_kernel_arguments_become_vectors(simulator_or_gpu, rng):
    c64 = np.complex64(complex(*rng.standard_normal(2)))
    c128 = complex(*rng.standard_normal(2))
    out32, out64 = support.poisoned(2, np.float32), support.poisoned(2, np.float64)
    cuda.jit(_complex_arguments)[1, 1](c64, np.complex128(c128), out32, out64)
    np.testing.assert_array_equal(out32, [c64.real, c64.imag])
    np.testing.assert_array_equal(out64, [c128.real, c128.imag])


def _float16_widened(a, out):
    v = cuda.float16x2(a[0], a[1])
    out[0] = np.complex64(v) / 4.0
    out[1] = complex(v)


def test_float16_lanes_widen_exactly(simulator_or_gpu, rng):
    a = (rng.standard_normal(2) * 10).astype(np.float16)
    out = support.poisoned(2, np.complex64)
    cuda.jit(_float16_widened)[1, 1](a, out)
    z = np.complex64(complex(np.float32(a[0]), np.float32(a[1])))
    np.testing.assert_array_equal(out, [z / np.float32(4.0), z])


@pytest.mark.parametrize("base", BASE_TYPES)
def test_the_complex_type_of_each_vector(base):
    from cumlir import compiler

    V2 = constructor(base, 2)

    def kernel(a):
        z = complex(V2(a[0], a[1]))
        a[0] = z.real

    ty = getattr(types, base)
    typed = compiler.type_function(kernel, (ty[::1],))
    assert str(typed.typemap["z"]) == str(_complex_of(base))


@pytest.mark.parametrize("base", BASE_TYPES)
def test_complex_conversions_assemble(base, backend):
    ty = getattr(types, base)
    by_complex = getattr(types, str(_complex_of(base)))
    argtypes = (ty[::1], types.complex64[::1], types.complex128[::1], by_complex[::1])
    argtypes += (types.complex64[::1], types.complex128[::1], ty[::1])
    support.checked_ptx(complex_kernel(base), argtypes, backend, (8, 0))


# ---- what is refused ------------------------------------------------------------------------------

TWO_LANES = r"a complex number is made of a vector of 2 lanes \(x real, y imaginary\)"


REFUSED = [
    (
        "b[0] = complex(cuda.float32x4(a[0], a[1], a[2], a[3])).real",
        rf"complex\(float32x4\): {TWO_LANES}; float32x4 has 4",
    ),
    ("b[0] = complex(cuda.int8x1(a[0])).real", rf"complex\(int8x1\): {TWO_LANES}; int8x1 has 1"),
    ("b[0] = np.complex64(cuda.half3(a[0], a[1], a[2])).real", rf"np.complex64\(float16x3\): {TWO_LANES}"),
    (
        "b[0] = np.float32(cuda.float2(a[0], a[1]))",
        r"np.float32\(float32x2\): a vector converts to a complex type only",
    ),
    (
        "b[0] = cuda.float32x4(1j).x",
        r"cuda.float32x4: a complex number gives 2 lanes \(real, imaginary\), float32x4 has 4",
    ),
    (
        "b[0] = cuda.float32x3(1j, a[0]).x",
        r"cuda.float32x3: argument 1 is a complex128; a complex number makes a 2-lane",
    ),
    (
        "s = cuda.local.array(2, cuda.float4); s[0] = 1j; b[0] = s[0].x",
        rf"storing a complex128 into an array of float32x4: {TWO_LANES}",
    ),
    (
        "s = cuda.local.array(2, np.complex64); s[0] = cuda.float3(1, 2, 3); b[0] = s[0].real",
        rf"storing a float32x3 into an array of complex64: {TWO_LANES}",
    ),
]


@pytest.mark.parametrize("body, message", REFUSED)
def test_vectors_of_other_lane_counts_have_no_complex_counterpart(body, message):
    with pytest.raises(errors.TypingError, match=message):
        support.compiling(body, "void(float32[::1], float32[::1])")()


def _complex_of_four_lanes(out):
    out[0] = complex(cuda.float4(1.0, 2.0, 3.0, 4.0)).real


def test_the_refusal_names_the_line():
    with pytest.raises(errors.TypingError, match=rf"complex\(float32x4\): {TWO_LANES}") as info:
        cuda.compile_ptx(_complex_of_four_lanes, "void(float32[::1])", cc=(9, 0))
    assert "test_vector_complex.py" in str(info.value)
    assert "out[0] = complex(cuda.float4(1.0, 2.0, 3.0, 4.0)).real" in str(info.value)
