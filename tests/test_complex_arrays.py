"""Complex arrays Numba-CUDA code builds: ``.real`` and ``.imag`` of complex arrays are views
of their float parts, read and written in place on any layout (CPU: PTX on both back ends;
GPU: against NumPy). ``complex64(re, im)`` and ``complex128(re, im)`` are
tests/operations/python/test_complexes.py's."""

import numpy as np
import pytest

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


CASES = [
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
