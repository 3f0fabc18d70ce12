"""The scalar differential test on the GPU: every operator and builtin on every ordered
pair of numeric types, operands from arrays and as literals (see differential.py)."""

import pytest

from . import differential

pytestmark = pytest.mark.gpu

CASES = differential.cases()


@pytest.mark.parametrize("case", CASES, ids=[differential.case_id(c) for c in CASES])
def test_scalar_semantics(case, rng):
    differential.run_case(case, rng)
