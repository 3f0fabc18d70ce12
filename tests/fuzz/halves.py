"""The host reference's float16 and bfloat16: numba's CPU target has no arithmetic of
either, so the host holds their values in float32 (every one is exact there) and rounds
each result of a narrow type to it with these functions, exactly: round to nearest, ties to
even, subnormals kept, overflow to infinity, NaN kept (from float64, where the argument
is exact: a float32, a float64, or an integer of at most 32 bits; the grammar converts no
wider integer to a narrow float)."""

import math

import numpy as np

# significant bits (with the implicit one), smallest normal exponent, largest finite value
FLOAT16 = (11, -14, 65504.0)
BFLOAT16 = (8, -126, float(np.float32(3.3895313892515355e38)))


def _round(x, bits, min_exponent, largest):
    x = np.float64(x)
    if x != x or x == 0.0 or abs(x) == np.inf:
        return np.float32(x)
    magnitude = abs(x)
    _, exponent = math.frexp(magnitude)  # magnitude in [2**(exponent-1), 2**exponent)
    quantum = max(exponent - bits, min_exponent - bits + 1)  # the exponent of one unit in the last place
    rounded = math.ldexp(np.rint(math.ldexp(magnitude, -quantum)), quantum)
    if rounded > largest:
        rounded = np.inf
    return np.float32(rounded if x > 0 else -rounded)


def compiled():
    """``float16`` and ``bfloat16`` for the host's namespace: numba functions of one number
    giving the float32 that holds it rounded to the narrow type."""
    import numba

    round_ = numba.njit(_round)

    def float16(x):
        return round_(x, 11, -14, 65504.0)

    def bfloat16(x):
        return round_(x, 8, -126, BFLOAT16[2])

    return numba.njit(float16), numba.njit(bfloat16)
