"""The scalar steps of the NumPy reductions (reductions.py), stated in Python and compiled
as device functions, inlined into the one loop nest of ``_fold``.

Each step takes the accumulators and one element (already converted to the reduction's
working type) and gives the new accumulators. NaN is told by ``x != x``, which is False
for integers and, for complex numbers, True where either part is NaN (NumPy's isnan).
Complex numbers are ordered as NumPy orders them: by the real part, then the imaginary.
"""

from .._support.api import implementation


def add(total, x):
    return total + x


def multiply(product, x):
    return product * x


def all_true(acc, x):
    return acc and x != 0


def any_true(acc, x):
    return acc or x != 0


def nan_add(total, x):
    return total + x if x == x else total


def nan_multiply(product, x):
    return product * x if x == x else product


# ---- orders: NaN first found wins (NumPy's minimum and maximum propagate it) --------------------


@implementation
def _complex_less(x, y):
    return x.real < y.real or (x.real == y.real and x.imag < y.imag)


def real_min(acc, x):
    if acc != acc:
        return acc
    return x if x < acc or x != x else acc


def real_max(acc, x):
    if acc != acc:
        return acc
    return x if x > acc or x != x else acc


def complex_min(acc, x):
    if acc != acc:
        return acc
    return x if x != x or _complex_less(x, acc) else acc


def complex_max(acc, x):
    if acc != acc:
        return acc
    return x if x != x or _complex_less(acc, x) else acc


# argmin and argmax: whether x (at a later place) replaces the best so far


def real_argmin(best, x):
    return best == best and (x < best or x != x)


def real_argmax(best, x):
    return best == best and (x > best or x != x)


def complex_argmin(best, x):
    return best == best and (x != x or _complex_less(x, best))


def complex_argmax(best, x):
    return best == best and (x != x or _complex_less(best, x))


# ---- orders skipping NaN: the first number found starts the accumulator (*seen* tells whether one
# was), so that no NaN stands in for "none yet": the steps hold under fastmath's nnan too -----------


def real_nanmin(acc, x, seen):
    if x != x:
        return acc
    return x if not seen or x < acc else acc


def real_nanmax(acc, x, seen):
    if x != x:
        return acc
    return x if not seen or x > acc else acc


def complex_nanmin(acc, x, seen):
    if x != x:
        return acc
    return x if not seen or _complex_less(x, acc) else acc


def complex_nanmax(acc, x, seen):
    if x != x:
        return acc
    return x if not seen or _complex_less(acc, x) else acc


def is_number(x):
    return x == x


def real_squared_deviation(total, x, mean):
    d = x - mean
    return total + d * d


def complex_squared_deviation(total, x, mean):
    d = x - mean
    return total + (d.real * d.real + d.imag * d.imag)
