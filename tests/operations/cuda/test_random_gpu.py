"""cuda.random on the GPU, against the host reference of tests/cases/random_kernels.py.

Exact: the states made by create_xoroshiro128p_states, the uint64 streams, both uniform
conversions (a shift, an exact int-to-float conversion, a multiplication by 2**-53 and an
IEEE rounding to float32), the device's jumps and SplitMix64 seeding.

Within a bound: the normals, whose logarithm and cosine come from libdevice while the
reference evaluates them in float64 from the same uniforms (and the same float32 angle):
- float64 normal: Numba-CUDA takes a float32 logarithm of a float32 uniform (libdevice
  logf, at most 1 ulp, plus its rounding: below 2**-22 relative); the square root halves
  that, and the float64 cosine and products add ~1e-16: rtol 1e-6 bounds it with room.
- float32 normal: logf (1 ulp, halved by sqrt), sqrtf (0.5 ulp), cosf (2 ulp, CUDA's
  table) and the product's rounding (0.5 ulp) stay under 4 ulp of the result, relative
  2**-21; rtol 2**-20 (8 ulp).
Statistics: moments and a histogram of the normals within 5 standard errors.
"""

import math

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda import random as curand

from ...cases import random_kernels as rk
from ...support import assert_matches, poisoned

pytestmark = pytest.mark.gpu

THREADS = 128
NORMAL_RTOL = {"xoroshiro128p_normal_float32": 2.0**-20, "xoroshiro128p_normal_float64": 1e-6}


def _blocks(n):
    return (n + THREADS - 1) // THREADS


def _seed(rng):
    return int(rng.integers(0, 2**64, dtype=np.uint64))


@pytest.mark.parametrize("subsequence_start", [0, 2])
def test_device_states_are_the_host_states(rng, subsequence_start):
    seed = _seed(rng)
    states = curand.create_xoroshiro128p_states(1000, seed, subsequence_start)
    got = states.copy_to_host()
    assert got.dtype == curand.xoroshiro128p_dtype
    assert [(int(a), int(b)) for a, b in got[:4]] == rk.states(4, seed, subsequence_start)
    assert np.array_equal(got, curand.host_states(1000, seed, subsequence_start))


def test_init_states_on_a_stream(rng):
    seed = _seed(rng)
    stream = cuda.stream()
    states = cuda.device_array(300, dtype=curand.xoroshiro128p_dtype)
    curand.init_xoroshiro128p_states(states, seed, stream=stream)
    stream.synchronize()
    assert np.array_equal(states.copy_to_host(), curand.host_states(300, seed))


@pytest.mark.parametrize("n", [1, 1000, 4099])
@pytest.mark.parametrize("name", list(rk.DRAWS))
def test_draws_match_the_host_generator(rng, name, n):
    dtype, kernel = rk.DRAWS[name]
    draws = 16
    seed = _seed(rng)
    states = curand.create_xoroshiro128p_states(n, seed)
    initial = states.copy_to_host()
    out = poisoned(n * draws, dtype).reshape(n, draws)
    cuda.jit(kernel)[_blocks(n), THREADS](states, out)
    consumed = draws * (2 if "normal" in name else 1)
    outputs = rk.stream(initial, consumed)
    expected = {
        "xoroshiro128p_next": lambda: outputs,
        "xoroshiro128p_uniform_float32": lambda: rk.unit_float32(outputs),
        "xoroshiro128p_uniform_float64": lambda: rk.unit_float64(outputs),
        "xoroshiro128p_normal_float32": lambda: rk.normal_float32(outputs),
        "xoroshiro128p_normal_float64": lambda: rk.normal_float64(outputs),
    }[name]()
    if name in NORMAL_RTOL:
        np.testing.assert_allclose(out, expected, rtol=NORMAL_RTOL[name], atol=0, err_msg=name)
    else:
        assert_matches(out.ravel(), expected.astype(dtype).ravel(), name)
    # the states moved by exactly the numbers drawn
    after = rk.stream(initial, consumed + 1)[:, -1]
    assert_matches(rk.stream(states.copy_to_host(), 1)[:, 0], after, f"{name}: the states after")


def test_a_device_jump_gives_the_next_generator(rng):
    n = 257
    seed = _seed(rng)
    states = curand.create_xoroshiro128p_states(n, seed)
    cuda.jit(rk.jump_each)[_blocks(n), THREADS](states)
    jumped = states.copy_to_host()
    following = curand.host_states(n + 1, seed)[1:]
    assert np.array_equal(jumped, following)


def test_device_seeding_is_splitmix64(rng):
    n = 500
    seeds = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    states = cuda.to_device(np.zeros(n, curand.xoroshiro128p_dtype))
    cuda.jit(rk.seed_each)[_blocks(n), THREADS](states, seeds)
    expected = [rk.splitmix64(int(s) % 2**64) for s in seeds]
    got = states.copy_to_host()
    assert [int(v) for v in got["s0"]] == expected and [int(v) for v in got["s1"]] == expected


def test_conversions_and_rotation(rng):
    n = 2000
    values = rng.integers(0, 2**64, n, dtype=np.uint64)
    values[:4] = [0, 2**64 - 1, 2**11 - 1, 2**64 - 2**10]  # zero, the largest, rounding to 1.0f
    out64, out32, rotated = poisoned(n, np.float64), poisoned(n, np.float32), poisoned(n, np.uint64)
    cuda.jit(rk.unit_floats)[_blocks(n), THREADS](values, out64, out32, rotated)
    assert_matches(out64, rk.unit_float64(values), "uint64_to_unit_float64")
    assert_matches(out32, rk.unit_float32(values), "uint64_to_unit_float32")
    assert_matches(rotated, np.array([rk._rotl(int(v), 23) for v in values], np.uint64), "rotl")


def _sample(name, seed, n_threads=4096, draws=256):
    dtype, kernel = rk.DRAWS[name]
    states = curand.create_xoroshiro128p_states(n_threads, seed)
    out = cuda.device_array((n_threads, draws), dtype=dtype)
    cuda.jit(kernel)[_blocks(n_threads), THREADS](states, out)
    return out.copy_to_host().astype(np.float64).ravel()


@pytest.mark.parametrize("name", ["xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64"])
def test_normals_have_the_standard_moments(rng, name):
    x = _sample(name, _seed(rng))
    x = x[np.isfinite(x)]  # a uniform of exactly 0 (probability 2**-53 a draw) gives inf
    n = x.size
    assert n > 0.999 * 4096 * 256
    # standard errors of the sample mean, variance, third and fourth moments of N(0, 1)
    assert abs(x.mean()) < 5 / math.sqrt(n)
    assert abs(x.var() - 1) < 5 * math.sqrt(2 / n)
    assert abs(np.mean(x**3)) < 5 * math.sqrt(15 / n)
    assert abs(np.mean(x**4) - 3) < 5 * math.sqrt(96 / n)


@pytest.mark.parametrize("name", ["xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64"])
def test_normals_fill_the_bins_of_the_normal_distribution(rng, name):
    x = _sample(name, _seed(rng))
    edges = np.array([-np.inf, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, np.inf])
    counts, _ = np.histogram(x, edges)
    cdf = np.array([0.5 * math.erfc(-e / math.sqrt(2)) for e in edges])
    p = np.diff(cdf)
    expected = p * x.size
    sigma = np.sqrt(x.size * p * (1 - p))
    assert np.all(np.abs(counts - expected) < 5 * sigma), (counts, expected)


def test_uniforms_lie_in_the_unit_interval(rng):
    for name in ("xoroshiro128p_uniform_float64", "xoroshiro128p_uniform_float32"):
        x = _sample(name, _seed(rng), n_threads=1024, draws=64)
        n = x.size
        assert x.min() >= 0 and x.max() <= 1  # float32 rounds values within 2**-25 of 1 up to 1.0
        assert abs(x.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)


def test_same_states_and_numbers_as_numba_cuda(rng, numba_cuda_usable):
    from ...support import import_numba_cuda

    ncuda = import_numba_cuda()
    from numba.cuda import random as nrandom

    n, draws = 1000, 16
    # numba-cuda's host seeding overflows on seeds of 2**63 and above (its njit function is
    # typed for int64 on the first call): the comparison draws seeds below
    for seed, start in ((_seed(rng) >> 1, 0), (int(rng.integers(0, 2**31)), 3), (-7, 1)):
        theirs = nrandom.create_xoroshiro128p_states(n, seed, start)
        ours = curand.create_xoroshiro128p_states(n, seed, start)
        assert np.array_equal(ours.copy_to_host(), theirs.copy_to_host()), (seed, start)
    for name, (dtype, kernel) in rk.DRAWS.items():
        seed = _seed(rng) >> 1
        ours_out = poisoned(n * draws, dtype).reshape(n, draws)
        theirs_out = poisoned(n * draws, dtype).reshape(n, draws)
        cuda.jit(kernel)[_blocks(n), THREADS](curand.create_xoroshiro128p_states(n, seed), ours_out)
        theirs_kernel = ncuda.jit(rk.drawing(getattr(nrandom, name), ncuda))
        theirs_kernel[_blocks(n), THREADS](nrandom.create_xoroshiro128p_states(n, seed), theirs_out)
        if name in NORMAL_RTOL:  # libdevice's routines, compiled by NVVM there and LLVM here
            np.testing.assert_allclose(ours_out, theirs_out, rtol=NORMAL_RTOL[name], atol=0, err_msg=name)
        else:
            assert_matches(ours_out.ravel(), theirs_out.ravel(), f"{name}: cumlir vs numba-cuda")
