"""math, cmath, NumPy scalar ufuncs and the rest of the scalar language, on the GPU."""

import numpy as np
import pytest

from cumlir import cuda

from . import language, mathcases

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", mathcases.math_cases(), ids=lambda c: c[0])
def test_math(case, rng):
    mathcases.run_math_case(case, rng)


@pytest.mark.parametrize("case", mathcases.cmath_cases(), ids=lambda c: c[0])
def test_cmath(case, rng):
    mathcases.run_cmath_case(case, rng)


@pytest.mark.parametrize("case", mathcases.ufunc_cases(), ids=lambda c: c[0])
def test_ufunc_on_scalars(case, rng):
    mathcases.run_ufunc_case(case, rng)


@pytest.mark.parametrize("name", sorted(language.CASES))
def test_language(name, rng):
    kernel, reference = language.CASES[name]
    a = rng.standard_normal(517)
    out = np.full(len(a), np.nan)
    cuda.jit(kernel)[(len(a) + 127) // 128, 128](a, out)
    np.testing.assert_allclose(out, reference(a), rtol=1e-12, atol=1e-12)
