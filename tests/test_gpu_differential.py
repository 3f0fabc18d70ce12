"""The scalar differential test on the GPU: every operator and builtin on every ordered
pair of numeric types, operands from arrays and as literals (see cases/differential_cases.py)."""

import pytest

from .cases import differential_cases

# every input, including those where numba-cuda's answer is undefined or differs on purpose;
# test_gpu_differential_numba_cuda.py compares with numba-cuda where it is defined
pytestmark = [pytest.mark.gpu, pytest.mark.numba_cuda_differs]

CASES = differential_cases.cases()


@pytest.mark.parametrize("case", CASES, ids=[differential_cases.case_id(c) for c in CASES])
def test_scalar_semantics(case, rng):
    differential_cases.run_case(case, rng)
