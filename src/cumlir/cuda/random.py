"""``cuda.random``: Numba-CUDA's xoroshiro128+ random number generator.

Each thread owns one generator state, a record of two uint64 words (``xoroshiro128p_dtype``)
in a device array made by ``create_xoroshiro128p_states``. State ``i`` is the first state
moved ``i`` jumps of 2**64 steps along one sequence, so the threads' streams do not overlap
while no thread draws more than 2**64 numbers. The first state comes from the seed through
SplitMix64, so that small seeds still give well-mixed states.

The device functions below are Numba-CUDA's, operation for operation (the same uint64
arithmetic, the same conversion to floats, Box-Muller with the same float widths), so a
kernel draws the same numbers as under Numba-CUDA for the same seed. The states are made
on the host, as Numba-CUDA does, by a numba ``njit`` function compiled on first use.

Importing this module loads neither numba, MLIR nor the driver.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import cuda
from ..operations.cuda.random import require_states
from .decorators import jit

__all__ = [
    "xoroshiro128p_dtype",
    "xoroshiro128p_type",  # noqa: F822 (made by the module's __getattr__: it needs numba)
    "init_xoroshiro128p_state",
    "rotl",
    "xoroshiro128p_next",
    "xoroshiro128p_jump",
    "uint64_to_unit_float64",
    "uint64_to_unit_float32",
    "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64",
    "init_xoroshiro128p_states",
    "create_xoroshiro128p_states",
]

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK64 = (1 << 64) - 1
# the bits of the jump polynomial (xoroshiro128+'s reference): 2**64 steps ahead
JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
SPLITMIX64_GAMMA = 0x9E3779B97F4A7C15
SPLITMIX64_MULTIPLIERS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)

TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


def __getattr__(name):
    # numba's type of the records, loaded on first use (it imports numba)
    if name == "xoroshiro128p_type":
        from numba import from_dtype

        value = globals()[name] = from_dtype(xoroshiro128p_dtype)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- device functions ------------------------------------------------------------------------
# The casts are Numba-CUDA's: every value stays uint64 where NumPy's promotion rules would
# otherwise turn uint64 [op] signed integer into float64.


@jit(device=True)
def init_xoroshiro128p_state(states, index, seed):
    """Set ``states[index]`` from the 64-bit *seed* through SplitMix64 (both words alike)."""
    require_states(states)
    index = cuda.int64(index)
    z = cuda.uint64(seed) + cuda.uint64(SPLITMIX64_GAMMA)
    z = (z ^ (z >> cuda.uint32(30))) * cuda.uint64(SPLITMIX64_MULTIPLIERS[0])
    z = (z ^ (z >> cuda.uint32(27))) * cuda.uint64(SPLITMIX64_MULTIPLIERS[1])
    z = z ^ (z >> cuda.uint32(31))
    states[index]["s0"] = z
    states[index]["s1"] = z


@jit(device=True)
def rotl(x, k):
    """*x* as a uint64 rotated left by *k* bits (0 < k < 64)."""
    x = cuda.uint64(x)
    k = cuda.uint32(k)
    return (x << k) | (x >> cuda.uint32(64 - k))


@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of the generator ``states[index]``, which moves one step."""
    require_states(states)
    index = cuda.int64(index)
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = cuda.uint64(rotl(s0, cuda.uint32(55))) ^ s1 ^ (s1 << cuda.uint32(14))
    states[index]["s1"] = cuda.uint64(rotl(s1, cuda.uint32(36)))
    return result


@jit(device=True)
def xoroshiro128p_jump(states, index):
    """Move the generator ``states[index]`` 2**64 steps ahead."""
    require_states(states)
    index = cuda.int64(index)
    polynomial = (cuda.uint64(JUMP[0]), cuda.uint64(JUMP[1]))
    s0 = cuda.uint64(0)
    s1 = cuda.uint64(0)
    for word in range(2):
        for bit in range(64):
            if polynomial[word] & (cuda.uint64(1) << cuda.uint32(bit)):
                s0 ^= states[index]["s0"]
                s1 ^= states[index]["s1"]
            xoroshiro128p_next(states, index)
    states[index]["s0"] = s0
    states[index]["s1"] = s1


@jit(device=True)
def uint64_to_unit_float64(x):
    """The top 53 bits of the uint64 *x* as a float64 in [0, 1)."""
    x = cuda.uint64(x)
    return (x >> cuda.uint32(11)) * (cuda.float64(1) / (cuda.uint64(1) << cuda.uint32(53)))


@jit(device=True)
def uint64_to_unit_float32(x):
    """``uint64_to_unit_float64(x)`` rounded to float32 (so 1.0 is possible, as in Numba-CUDA)."""
    x = cuda.uint64(x)
    return cuda.float32(uint64_to_unit_float64(x))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform in [0, 1) from ``states[index]``, which moves one step."""
    require_states(states)
    index = cuda.int64(index)
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform in [0, 1) from ``states[index]``, which moves one step."""
    require_states(states)
    index = cuda.int64(index)
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 of the standard normal distribution (Box-Muller's cosine branch, from two
    float32 uniforms); ``states[index]`` moves two steps."""
    require_states(states)
    index = cuda.int64(index)
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-cuda.float32(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 of the standard normal distribution; as Numba-CUDA, from two float32
    uniforms and a float32 logarithm, the rest in float64. ``states[index]`` moves two steps."""
    require_states(states)
    index = cuda.int64(index)
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-cuda.float64(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


# ---- the states, made on the host -------------------------------------------------------------


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Fill the device array *states* (1-D, ``xoroshiro128p_dtype``) with generators
    2**64 steps apart, the first one *subsequence_start* jumps along the sequence of *seed*.
    The states are computed on the host and copied on *stream*."""
    if not hasattr(states, "copy_to_device"):
        raise TypeError(f"init_xoroshiro128p_states needs a device array of states, got {type(states).__name__}")
    if np.dtype(states.dtype) != xoroshiro128p_dtype or len(states.shape) != 1:
        raise TypeError(
            "init_xoroshiro128p_states needs a 1-D array of cuda.random.xoroshiro128p_dtype, "
            f"got shape {tuple(states.shape)} of {states.dtype}"
        )
    host = host_states(states.shape[0], seed, subsequence_start)
    states.copy_to_device(host, stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of *n* generator states (see ``init_xoroshiro128p_states``)."""
    states = cuda.device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


def host_states(n, seed, subsequence_start=0):
    """The NumPy array of the *n* states ``init_xoroshiro128p_states`` gives."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"the number of random states must be a non-negative integer, got {n!r}")
    seed = _seed_bits(seed)
    if isinstance(subsequence_start, bool) or not isinstance(subsequence_start, (int, np.integer)):
        raise TypeError(f"subsequence_start must be an integer, got {subsequence_start!r}")
    if not 0 <= subsequence_start <= _MASK64:
        raise ValueError(f"subsequence_start must be in [0, 2**64), got {subsequence_start}")
    states = np.empty(int(n), dtype=xoroshiro128p_dtype)
    _host_filler()(states["s0"], states["s1"], np.uint64(seed), np.uint64(subsequence_start))
    return states


def _seed_bits(seed):
    # Numba-CUDA converts the seed with uint64(seed): integers wrap modulo 2**64, floats
    # truncate (negative ones have no defined conversion and are refused)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if not -(1 << 63) <= seed <= _MASK64:
            raise OverflowError(f"the seed must fit in 64 bits, got {seed}")
        return int(seed) & _MASK64
    if isinstance(seed, (float, np.floating)) and math.isfinite(seed) and 0 <= seed < 2.0**64:
        return int(seed)
    raise TypeError(f"the seed must be an integer (or a float in [0, 2**64)), got {seed!r}")


_FILLER: list[Callable[..., None]] = []  # the njit function, once compiled


def _host_filler():
    """The njit function filling the words s0[i], s1[i] of each state (compiled once)."""
    if _FILLER:
        return _FILLER[0]
    import numba
    from numba import uint64

    jump_words = tuple(uint64(word) for word in JUMP)
    gamma = uint64(SPLITMIX64_GAMMA)
    mul1, mul2 = (uint64(m) for m in SPLITMIX64_MULTIPLIERS)

    @numba.njit(cache=False)
    def step(s0, s1):
        s1 ^= s0
        rot55 = (s0 << uint64(55)) | (s0 >> uint64(9))
        rot36 = (s1 << uint64(36)) | (s1 >> uint64(28))
        return rot55 ^ s1 ^ (s1 << uint64(14)), rot36

    @numba.njit(cache=False)
    def jump(s0, s1):
        j0 = uint64(0)
        j1 = uint64(0)
        for word in jump_words:
            for bit in range(64):
                if (word >> uint64(bit)) & uint64(1):
                    j0 ^= s0
                    j1 ^= s1
                s0, s1 = step(s0, s1)
        return j0, j1

    @numba.njit(cache=False)
    def fill(out0, out1, seed, subsequence_start):
        z = seed + gamma
        z = (z ^ (z >> uint64(30))) * mul1
        z = (z ^ (z >> uint64(27))) * mul2
        z = z ^ (z >> uint64(31))
        s0 = z
        s1 = z
        for _ in range(subsequence_start):
            s0, s1 = jump(s0, s1)
        for i in range(out0.shape[0]):
            if i > 0:
                s0, s1 = jump(s0, s1)
            out0[i] = s0
            out1[i] = s1

    _FILLER.append(fill)
    return fill
