"""The fuzzer's CPU part (tests/fuzz): random well-typed kernels from a fixed seed, each
compiled by every code generator and its PTX assembled by ptxas. The GPU part runs them and
compares with the host and numba-cuda: ``python -m tests.fuzz --gpu --programs N``."""

import time

import numpy as np
import pytest

from . import support
from .fuzz import grammar
from .fuzz.check import check

SEEDS = range(40)  # fixed: the same programs in every run
BUDGET = 90.0  # seconds for all of them: programs past it are skipped, not failed
_began = []


def test_programs_are_the_same_for_a_seed():
    assert grammar.program(7).source == grammar.program(7).source
    assert grammar.program(7).source != grammar.program(8).source


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generated_program_compiles_on_every_code_generator(seed):
    if not _began:
        _began.append(time.perf_counter())
    if time.perf_counter() - _began[0] > BUDGET:
        pytest.skip("the fuzzer's time budget is spent")
    outcome = check(seed, ptxas=support.ptxas)
    assert outcome.typed, f"numba does not type program {seed} for the host:\n{grammar.program(seed).source}"
    assert not outcome.problems, f"program {seed}:\n{grammar.program(seed).source}\n" + "\n".join(outcome.problems)


def test_the_comparison_finds_what_differs():
    from .fuzz.check import disagreeing

    eps = np.finfo(np.float32).eps
    ints = np.array([1, 2, 3], np.int32)
    assert list(disagreeing(ints, np.array([1, 2, 4], np.int32), eps, 1)) == [False, False, True]
    floats = np.array([1.0, np.nan, 100.0, 0.0], np.float32)
    reference = np.array([1.0 + 2 * eps, 0.0, 100.0 * (1 + 8 * eps), np.nan], np.float32)
    assert list(disagreeing(floats, reference, eps, ulps=4)) == [False, True, True, True]
    assert not disagreeing(floats[:1], reference[:1], eps, ulps=2).any()
    both = np.array([1 + 1j], np.complex64)
    assert disagreeing(both, np.array([1 + 1.01j], np.complex64), eps, ulps=64).all()


def test_the_tolerance_is_of_the_least_precise_type_a_program_reads():
    from .fuzz.check import precision

    program = grammar.Program(0, "", ["int32", "complex64", "float64"])
    assert precision(program, np.dtype(np.float64)) == np.finfo(np.float32).eps
    program = grammar.Program(0, "", ["int32", "int8", "bool"])
    assert precision(program, np.dtype(np.int64)) == np.finfo(np.float64).eps
