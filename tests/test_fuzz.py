"""The fuzzer's CPU part (tests/fuzz): random well-typed kernels from a fixed seed, each
typed by numba for the host as the grammar says and compiled by every code generator, its
PTX assembled by ptxas; a program of each kernel shape run on the simulator (or the GPU)
and compared with the host. The GPU part runs many and compares every party:
``python -m tests.fuzz --gpu --programs N``; ``--simulator`` does it without a GPU."""

import time

import numpy as np
import pytest

from . import support
from .fuzz import grammar
from .fuzz.check import check, comparisons

# the programs launch on host arrays: numba's advice to copy them once is for real kernels
pytestmark = pytest.mark.filterwarnings("ignore:Host array used in CUDA kernel")

SEEDS = range(40)  # fixed: the same programs in every run
BUDGET = 90.0  # seconds for all of them: programs past it are skipped, not failed
_began = []


def test_programs_are_the_same_for_a_seed():
    assert grammar.program(7).source == grammar.program(7).source
    assert grammar.program(7).host_source == grammar.program(7).host_source
    assert grammar.program(7).source != grammar.program(8).source


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generated_program_compiles_on_every_code_generator(seed):
    if not _began:
        _began.append(time.perf_counter())
    if time.perf_counter() - _began[0] > BUDGET:
        pytest.skip("the fuzzer's time budget is spent")
    outcome = check(seed, ptxas=support.ptxas)
    assert outcome.typed, f"program {seed} for the host:\n{grammar.program(seed).host_source}\n{outcome.problems}"
    assert not outcome.problems, f"program {seed}:\n{grammar.program(seed).source}\n" + "\n".join(outcome.problems)


def test_the_grammar_draws_every_feature():
    seen = set()
    for seed in range(150):
        program = grammar.program(seed)
        seen |= program.features
    wanted = {"map", "shared", "warp", "tuple", "local array", "break", "continue", "float16", "bfloat16", "uint64"}
    wanted.add("float to int")
    wanted |= {f"reduction {r}" for r in ("sum", "prod", "min", "max", "mean")}
    wanted |= {"shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "ballot_sync"}
    assert wanted <= seen, wanted - seen


def _first_seed(shape):
    return next(seed for seed in range(1000) if grammar.program(seed).shape == shape)


@pytest.mark.parametrize("shape", ["map", "shared", "warp"])
def test_a_generated_program_agrees_with_the_host(shape, simulator_or_gpu):
    seed = _first_seed(shape)
    outcome = check(seed, "simulator" if simulator_or_gpu == "simulator" else "gpu")
    found = outcome.problems + [problem for _, problem in comparisons(outcome) if problem]
    assert len(outcome.outputs) >= 2 and not found, f"program {seed}:\n{grammar.program(seed).source}\n" + "\n".join(
        found
    )


def test_a_planted_difference_is_found(simulator_or_gpu, monkeypatch):
    # each thread of a shared-memory program made to read the next neighbour on the device
    # only: some of the first few programs must show it (others may not read the neighbour)
    from .fuzz import check as checking

    drawn = grammar.program
    for seed in [s for s in range(200) if drawn(s).shape == "shared"][:5]:
        program = drawn(seed)
        program.source = program.source.replace("values[(t * ", "values[(1 + t * ")
        monkeypatch.setattr(checking.grammar, "program", lambda _, program=program: program)
        outcome = check(seed, "simulator" if simulator_or_gpu == "simulator" else "gpu")
        if any(problem for _, problem in comparisons(outcome)):
            return
    pytest.fail("no program showed a neighbour read at the wrong place")


def test_the_host_rounds_to_float16_and_bfloat16_exactly():
    import ml_dtypes

    from .fuzz import halves

    to_half, to_bfloat16 = halves.compiled()
    rng = np.random.default_rng(5)
    values = rng.standard_normal(3000) * 10.0 ** rng.integers(-45, 40, 3000)
    edges = [
        65504.0,
        65519.99,
        65520.0,
        2.0**-24,
        2.0**-25,
        3 * 2.0**-26,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        3.3895e38,
        3.4e38,
    ]
    with np.errstate(over="ignore"):
        for x in [*values, *values.astype(np.float32), *edges]:
            for rounded, expected in ((to_half(x), np.float16(x)), (to_bfloat16(x), ml_dtypes.bfloat16(x))):
                expected = np.float32(expected)
                assert np.array_equal(np.float32(rounded), expected, equal_nan=True), (x, rounded, expected)
                assert np.signbit(rounded) == np.signbit(expected)


def test_the_comparison_finds_what_differs():
    from .fuzz.compare import disagreeing

    eps = np.finfo(np.float32).eps
    ints = np.array([1, 2, 3], np.int32)
    assert list(disagreeing(ints, np.array([1, 2, 4], np.int32), eps, 1)) == [False, False, True]
    floats = np.array([1.0, np.nan, 100.0, 0.0], np.float32)
    reference = np.array([1.0 + 2 * eps, 0.0, 100.0 * (1 + 8 * eps), np.nan], np.float32)
    assert list(disagreeing(floats, reference, eps, ulps=4)) == [False, True, True, True]
    assert not disagreeing(floats[:1], reference[:1], eps, ulps=2).any()
    both = np.array([1 + 1j], np.complex64)
    assert disagreeing(both, np.array([1 + 1.01j], np.complex64), eps, ulps=64).all()


def test_the_tolerance_is_of_the_least_precise_type_a_program_uses():
    from .fuzz.compare import HOST_ULPS, NARROW_ULPS, tolerance

    assert tolerance({"int32", "complex64", "float64"}) == np.finfo(np.float32).eps * HOST_ULPS
    assert tolerance({"int32", "int8", "bool"}) == np.finfo(np.float64).eps * HOST_ULPS
    assert tolerance({"float16", "float32"}) == 2.0**-10 * NARROW_ULPS
    assert tolerance({"bfloat16", "float16"}) == 2.0**-7 * NARROW_ULPS


def test_every_pair_of_parties_is_compared():
    from .fuzz.compare import pairs

    parties = ["host", "simulator", "numba-cuda", "cumlir nvptx", "cumlir nvptx fma=False"]
    made = {(a, b) for a, b, _ in pairs(parties)}
    assert made == {
        ("simulator", "host"),
        ("cumlir nvptx fma=False", "host"),
        ("cumlir nvptx fma=False", "simulator"),
        ("cumlir nvptx", "numba-cuda"),
        ("simulator", "numba-cuda"),
    }
