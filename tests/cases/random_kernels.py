"""cuda.random: kernels drawing from the xoroshiro128+ generators, and a host reference of
the generator written from its definition (Blackman and Vigna's xoroshiro128plus.c and
splitmix64.c, with Numba-CUDA's conversions to floats and Box-Muller).

The reference works on Python integers and on NumPy uint64 arrays alike (one generator per
element): every operation that can carry past 64 bits is masked.
"""

import math

import numpy as np

from cumlir import cuda
from cumlir.cuda import random as curand

MASK = (1 << 64) - 1
JUMP_POLYNOMIAL = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


# ---- host reference -------------------------------------------------------------------------


def splitmix64(seed):
    """The first output of SplitMix64 started at *seed* (both words of a fresh state)."""
    z = (seed + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _rotl(x, k):
    return ((x << k) & MASK) | (x >> (64 - k))


def step(s0, s1):
    """(output, next s0, next s1) of one xoroshiro128+ step."""
    output = (s0 + s1) & MASK
    s1 = s1 ^ s0
    return output, _rotl(s0, 55) ^ s1 ^ ((s1 << 14) & MASK), _rotl(s1, 36)


def jump(s0, s1):
    """The state 2**64 steps after (s0, s1)."""
    j0 = j1 = 0
    for word in JUMP_POLYNOMIAL:
        for bit in range(64):
            if (word >> bit) & 1:
                j0, j1 = j0 ^ s0, j1 ^ s1
            _, s0, s1 = step(s0, s1)
    return j0, j1


def states(n, seed, subsequence_start=0):
    """[(s0, s1)] of the n generators init_xoroshiro128p_states makes."""
    s0 = s1 = splitmix64(seed % (1 << 64))
    for _ in range(subsequence_start):
        s0, s1 = jump(s0, s1)
    result = []
    for i in range(n):
        if i:
            s0, s1 = jump(s0, s1)
        result.append((s0, s1))
    return result


def stream(state_array, draws):
    """The first *draws* uint64 outputs of each generator of a states array: shape (n, draws)."""
    s0 = state_array["s0"].astype(np.uint64)
    s1 = state_array["s1"].astype(np.uint64)
    out = np.empty((len(s0), draws), np.uint64)
    for k in range(draws):
        out[:, k], s0, s1 = step(s0, s1)
    return out


def unit_float64(x):
    """The top 53 bits as a float64 in [0, 1): exact, so the device must give these bits."""
    return (x >> np.uint64(11)).astype(np.float64) * 2.0**-53


def unit_float32(x):
    """unit_float64 rounded to the nearest float32 (IEEE, so bit for bit too)."""
    return unit_float64(x).astype(np.float32)


def normal_float32(outputs):
    """Box-Muller from pairs of float32 uniforms as Numba-CUDA's float32 normal computes it;
    the reference rounds only where the device rounds an argument (2*pi*u2 in float32) and
    evaluates the rest in float64."""
    u1, u2 = unit_float32(outputs[:, 0::2]), unit_float32(outputs[:, 1::2])
    angle = np.float32(2 * math.pi) * u2  # float32 product, as on the device
    with np.errstate(divide="ignore"):
        return np.sqrt(-2.0 * np.log(u1.astype(np.float64))) * np.cos(angle.astype(np.float64))


def normal_float64(outputs):
    """Numba-CUDA's float64 normal: float32 uniforms and a float32 logarithm, the rest float64."""
    u1, u2 = unit_float32(outputs[:, 0::2]), unit_float32(outputs[:, 1::2])
    with np.errstate(divide="ignore"):
        return np.sqrt(-2.0 * np.log(u1.astype(np.float64))) * np.cos(2 * math.pi * u2.astype(np.float64))


# ---- kernels ----------------------------------------------------------------------------------


def drawing(draw, namespace=cuda):
    """A kernel filling row i of out with successive draws of generator i (written for
    cumlir's cuda namespace, or another with the same names: numba-cuda's)."""
    grid = namespace.grid

    def kernel(states, out):
        i = grid(1)
        if i < out.shape[0]:
            for k in range(out.shape[1]):
                out[i, k] = draw(states, i)

    kernel.__name__ = f"draw_{draw.__name__}"
    return kernel


DRAWS = {
    "xoroshiro128p_next": ("uint64", drawing(curand.xoroshiro128p_next)),
    "xoroshiro128p_uniform_float32": ("float32", drawing(curand.xoroshiro128p_uniform_float32)),
    "xoroshiro128p_uniform_float64": ("float64", drawing(curand.xoroshiro128p_uniform_float64)),
    "xoroshiro128p_normal_float32": ("float32", drawing(curand.xoroshiro128p_normal_float32)),
    "xoroshiro128p_normal_float64": ("float64", drawing(curand.xoroshiro128p_normal_float64)),
}


def jump_each(states):
    """Every generator jumps 2**64 steps ahead."""
    i = cuda.grid(1)
    if i < states.shape[0]:
        curand.xoroshiro128p_jump(states, i)


def seed_each(states, seeds):
    """Generator i is seeded from seeds[i] by SplitMix64, on the device."""
    i = cuda.grid(1)
    if i < states.shape[0]:
        curand.init_xoroshiro128p_state(states, i, seeds[i])


def unit_floats(values, out64, out32, rotated):
    """The conversion helpers and rotl on given uint64 values."""
    i = cuda.grid(1)
    if i < values.shape[0]:
        out64[i] = curand.uint64_to_unit_float64(values[i])
        out32[i] = curand.uint64_to_unit_float32(values[i])
        rotated[i] = curand.rotl(values[i], 23)


def wrong_states(values, out):
    """A float64 array passed as the states (line checked by the tests)."""
    i = cuda.grid(1)
    out[i] = curand.xoroshiro128p_uniform_float32(values, i)


def state_array_type():
    """The numba type of the states as kernels receive them (a C-contiguous 1-D array)."""
    return curand.xoroshiro128p_type[::1]
