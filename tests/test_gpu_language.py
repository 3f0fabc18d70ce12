"""math, cmath, NumPy scalar ufuncs and the rest of the scalar language, on the GPU."""

import numpy as np
import pytest

from cumlir import cuda

from .cases import language_kernels, math_cases

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", math_cases.math_cases(), ids=lambda c: c[0])
def test_math(case, rng):
    math_cases.run_math_case(case, rng)


@pytest.mark.parametrize("case", math_cases.cmath_cases(), ids=lambda c: c[0])
def test_cmath(case, rng):
    math_cases.run_cmath_case(case, rng)


@pytest.mark.parametrize("case", math_cases.ufunc_cases(), ids=lambda c: c[0])
def test_ufunc_on_scalars(case, rng):
    math_cases.run_ufunc_case(case, rng)


@pytest.mark.parametrize("name", sorted(language_kernels.CASES))
def test_language(name, rng):
    kernel, reference = language_kernels.CASES[name]
    a = rng.standard_normal(517)
    out = np.full(len(a), np.nan)
    cuda.jit(kernel)[(len(a) + 127) // 128, 128](a, out)
    np.testing.assert_allclose(out, reference(a), rtol=1e-12, atol=1e-12)


@cuda.jit
def printer(a):
    i = cuda.grid(1)
    if i < a.size:
        print("item", i, a[i], a[i] > 0.5, (i, 2.5))


@pytest.mark.numba_cuda_differs  # a second launch would print the lines again
def test_print(capfd):
    values = np.array([0.25, 0.75])
    printer[1, 2](values)
    cuda.synchronize()
    lines = sorted(capfd.readouterr().out.strip().splitlines())
    assert lines == ["item 0 0.250000 False (0, 2.500000)", "item 1 0.750000 True (1, 2.500000)"]


@cuda.jit
def where_am_i():
    print(cuda.threadIdx, cuda.blockIdx)


@pytest.mark.numba_cuda_differs  # a second launch would print the lines again
def test_print_of_thread_indexing_registers(capfd):
    where_am_i[(1, 2, 1), (2, 1, 2)]()
    cuda.synchronize()
    lines = sorted(capfd.readouterr().out.strip().splitlines())
    expected = [f"{tuple(map(int, t))} {tuple(map(int, b))}" for t in np.ndindex(2, 1, 2) for b in np.ndindex(1, 2, 1)]
    assert lines == sorted(expected)


def test_assert_raises_in_debug_mode():
    kernel = cuda.jit(debug=True)(language_kernels.checked)
    good = np.arange(100.0)
    out = np.zeros(100)
    kernel[1, 128](good, out)
    np.testing.assert_array_equal(out, good * 2)
    bad = good.copy()
    bad[37] = -1.0
    with pytest.raises(AssertionError, match=r"negative input \(raised on the device by thread 37"):
        kernel[1, 128](bad, out)
    kernel[1, 128](good, out)  # the record was cleared: a later launch reports nothing


def test_assert_is_quiet_without_debug():
    kernel = cuda.jit(language_kernels.checked)
    bad = np.arange(10.0)
    bad[3] = -1.0
    out = np.full(10, np.nan)
    kernel[1, 32](bad, out)
    assert np.isnan(out[3])  # the raising thread ended before its store
    np.testing.assert_array_equal(np.delete(out, 3), np.delete(bad, 3) * 2)
