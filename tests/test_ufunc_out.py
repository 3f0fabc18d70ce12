"""NumPy ufuncs on arrays inside kernels, with their output array (``np.sin(x, out)``): one
loop nest over ``out``, inputs broadcast as NumPy does, the call returning ``out`` (CPU: PTX
on both back ends and the missing-output error; GPU: against NumPy)."""

import numpy as np
import pytest

from cumlir import cuda

from . import support


def sine(x, out):
    np.sin(x, out)


def add_rows(x, row, out):
    result = np.add(x, row, out)
    result[0, 0] += 0.0  # the call returns out itself


def clamp_below(x, out):
    np.maximum(x, 0.5, out)


def nan_mask(x, out):
    np.isnan(x, out)


def sine_without_output(x):
    np.sin(x)


CASES = [
    (sine, "void(float32[:], float32[:])"),
    (sine, "void(float64[:, :], float64[:, :])"),
    (add_rows, "void(float64[:, :], float64[:], float64[:, :])"),
    (clamp_below, "void(int32[:, :], float32[:, :])"),
    (nan_mask, "void(float64[:], boolean[:])"),
]


@pytest.mark.parametrize("kernel,sig", CASES, ids=[f"{k.__name__}-{s}" for k, s in CASES])
def test_ufunc_with_output_assembles(kernel, sig, backend):
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")


def test_ufunc_on_arrays_without_output_names_the_line():
    # without an output array the result is a new array: refused where nrt=False turns NRT off
    with pytest.raises(Exception, match=r"np\.sin in device code needs NRT, which nrt=False(.|\n)*np\.sin\(x\)"):
        cuda.compile_ptx(sine_without_output, "void(float32[:])", cc=(9, 0), nrt=False)


@pytest.mark.gpu
def test_ufuncs_with_output_match_numpy(rng):
    x = rng.standard_normal((6, 7))
    out = support.poisoned(x.size, np.float64).reshape(x.shape)
    cuda.jit(sine)[1, 1](x[:, ::2], out[:, ::2])  # strided views, one thread does the loop
    np.testing.assert_allclose(out[:, ::2], np.sin(x[:, ::2]), rtol=1e-15, atol=0)

    row = rng.standard_normal(7)
    total = support.poisoned(x.size, np.float64).reshape(x.shape)
    cuda.jit(add_rows)[1, 1](x, row, total)
    np.testing.assert_array_equal(total, x + row)

    ints = rng.integers(-3, 3, (5, 4)).astype(np.int32)
    clamped = support.poisoned(ints.size, np.float32).reshape(ints.shape)
    cuda.jit(clamp_below)[1, 1](ints, clamped)
    np.testing.assert_array_equal(clamped, np.maximum(ints, np.float32(0.5)))

    values = np.where(rng.random(50) < 0.3, np.nan, rng.standard_normal(50))
    mask = np.ones(50, dtype=np.bool_) ^ np.isnan(values)  # every entry wrong before the kernel
    cuda.jit(nan_mask)[1, 1](values, mask)
    np.testing.assert_array_equal(mask, np.isnan(values))
