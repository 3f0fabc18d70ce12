"""Complex numbers Numba-CUDA code builds: ``.real`` and ``.imag`` of complex arrays are views
of their float parts, read and written in place on any layout; ``complex64(re, im)`` and
``complex128(re, im)`` construct from two real parts (CPU: PTX on both back ends; GPU:
against NumPy)."""

import numpy as np
import pytest
from numba import complex64, complex128

from cumlir import cuda

from . import support


def parts_1d(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a.real[i] * 10 + a.imag[i]


def swap_parts_2d(a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        real = a.real[i, j]
        a.real[i, j] = a.imag[i, j]
        a.imag[i, j] = real


def real_of_real(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a.real[i]


def from_parts(re, im, out64, out128):
    i = cuda.grid(1)
    if i < out64.size:
        out64[i] = complex64(re[i], im[i])
        out128[i] = complex128(re[i], 2)


CASES = [
    (from_parts, "void(float64[:], int32[:], complex64[:], complex128[:])"),
    (parts_1d, "void(complex64[:], float32[:])"),
    (parts_1d, "void(complex128[::1], float64[:])"),
    (swap_parts_2d, "void(complex128[:, :])"),
    (real_of_real, "void(float32[:], float32[:])"),
]


@pytest.mark.parametrize("kernel,sig", CASES, ids=[f"{k.__name__}-{s}" for k, s in CASES])
def test_complex_parts_assemble(kernel, sig, backend):
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_imaginary_part_of_a_real_array_is_refused():
    def k(a, out):
        out[0] = a.imag[0]

    with pytest.raises(Exception, match="imaginary part of a float32 array"):
        cuda.compile_ptx(k, "void(float32[:], float32[:])", cc=(9, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_parts_match_numpy(dtype, rng):
    n = 1001
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    for view in (a, a[::3], a[::-2]):  # contiguous, strided and reversed
        out = support.poisoned(view.size, view.real.dtype)
        cuda.jit(parts_1d)[(view.size + 127) // 128, 128](view, out)
        # float32 * an int computes in float64 (numba's typing), then rounds to the output
        tens, imag = view.real.astype(np.float64) * 10, view.imag.astype(np.float64)
        support.assert_contractible(out, (tens + imag).astype(out.dtype), tens, imag)
    b = (rng.standard_normal((37, 45)) + 1j * rng.standard_normal((37, 45))).astype(dtype)
    for view in (b.copy(), np.asfortranarray(b), b[::2, 1::3].copy()):
        expected = view.imag + 1j * view.real
        d = cuda.to_device(view)
        cuda.jit(swap_parts_2d)[(4, 4), (16, 16)](d)
        np.testing.assert_array_equal(d.copy_to_host(), expected)


def test_complex_constructors_type_their_class():
    from numba.core import types

    from cumlir import compiler

    typed = compiler.type_function(
        from_parts, (types.float64[:], types.int32[:], types.complex64[:], types.complex128[:])
    )
    made = {str(t) for t in typed.calltypes.values() if t is not None and "complex" in str(t.return_type)}
    assert "(float64, int32) -> complex64" in made
    assert any(t.startswith("(float64, ") and t.endswith("-> complex128") for t in made), made
    with pytest.raises(Exception, match="complex64"):
        cuda.compile_ptx(
            lambda a, out: out.__setitem__(0, complex64(a[0], a[0], a[0])), "void(float32[:], complex64[:])", cc=(9, 0)
        )


@pytest.mark.gpu
def test_complex_constructors_match_numpy(rng):
    n = 500
    re, im = rng.standard_normal(n), rng.integers(-50, 50, n).astype(np.int32)
    out64, out128 = support.poisoned(n, np.complex64), support.poisoned(n, np.complex128)
    cuda.jit(from_parts)[(n + 127) // 128, 128](re, im, out64, out128)
    np.testing.assert_array_equal(out64, (re + 1j * im).astype(np.complex64))
    np.testing.assert_array_equal(out128, re + 2j)
