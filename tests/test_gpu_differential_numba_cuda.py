"""Agreement with numba-cuda itself, where it is installed: the same kernels compiled by
both compilers must write the same bits, for the integer and float cases of the
differential test whose semantics are the subtle ones."""

import importlib.util

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import differential_cases

def _numba_cuda_problem():
    """Why numba-cuda cannot serve as a reference here, or None if it can."""
    if importlib.util.find_spec("numba_cuda") is None:
        return "numba-cuda is not installed"
    try:
        ncuda = _import_numba_cuda()

        @ncuda.jit
        def probe(out):
            out[0] = 1

        probe[1, 1](np.zeros(1))
    except Exception as e:  # an incompatible install (its NumPy, its driver) is not ours to test
        return f"numba-cuda does not work in this environment: {type(e).__name__}: {e}"
    return None


pytestmark = [pytest.mark.gpu]

SUBTLE = {"floordiv", "mod", "pow", "lshift", "rshift", "truediv", "divmod_q", "divmod_r", "max", "min", "neg", "invert", "abs", "round", "int", "bool", "chained"}
REAL = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"}

CASES = [
    c
    for c in differential_cases.cases()
    if c[0] in SUBTLE and c[1] in REAL and c[2] in REAL and (c[3] is None or not isinstance(c[3], complex))
]


def _import_numba_cuda():
    # numba-cuda 0.30 still calls np.row_stack, which NumPy 2.4 removed; vstack is the same function
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda as ncuda

    return ncuda


def _numba_cuda_kernel(expression):
    ncuda = _import_numba_cuda()

    source = f"def case(a, b, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = {expression}\n"
    namespace = {"cuda": ncuda}
    exec(compile(source, f"<{expression}>", "exec"), namespace)
    return ncuda.jit(namespace["case"])


@pytest.fixture(scope="module")
def numba_cuda_usable():
    problem = _numba_cuda_problem()
    if problem:
        pytest.skip(problem)


@pytest.mark.parametrize("case", CASES, ids=[differential_cases.case_id(c) for c in CASES])
def test_same_bits_as_numba_cuda(case, rng, numba_cuda_usable):
    name, left, right, literal, sig, result = case
    if name in differential_cases.UNARY:
        a = differential_cases.unary_operands(name, left, rng)
        b = a
        expression = differential_cases.UNARY[name].format(a="a[i]")
    else:
        a, b = differential_cases.operands(name, left, right, rng)
        if literal is not None:
            b = np.full(len(a), literal, dtype=support.dtype_of(support.numba_type(right)))
        expression = differential_cases.expression_for(name, right_literal=literal)
    ours = support.poisoned(len(a), support.dtype_of(result))
    theirs = support.poisoned(len(a), support.dtype_of(result))
    blocks = (len(a) + 127) // 128
    cuda.jit(differential_cases.make_kernel(expression))[blocks, 128](a, b, ours)
    _numba_cuda_kernel(expression)[blocks, 128](a, b, theirs)
    differential_cases.compare(ours, theirs, 0, f"{differential_cases.case_id(case)}: cumlir vs numba-cuda")
