"""Kernels reading a variable that is not assigned on every path into the read (assigned
in a loop body, in one branch, in both a `break` branch and a `for ... else`), with host
references for the inputs where Python would define it."""

import numpy as np

SIG = "void(float32[:], float32[:])"


def last_in_loop(a, out):
    for i in range(a.size):
        x = a[i]
    out[0] = x


def one_branch(a, out):
    if a[0] > 0:
        y = a[0] * 2
    out[0] = y if a[0] > 0 else -1.0


def break_or_else(a, out):
    for i in range(a.size):
        if a[i] > 2:
            z = a[i]
            break
    else:
        z = -1.0
    out[0] = z


def tuple_in_loop(a, out):
    for i in range(a.size):
        pair = (a[i], i)
    out[0] = pair[0] + pair[1]


KERNELS = (last_in_loop, one_branch, break_or_else, tuple_in_loop)


def expected(kernel, a):
    if kernel is last_in_loop:
        return a[-1]
    if kernel is one_branch:
        return a[0] * 2 if a[0] > 0 else -1.0
    if kernel is break_or_else:
        above = a[a > 2]
        return above[0] if above.size else -1.0
    return np.float32(np.float64(a[-1]) + (a.size - 1))  # float32 + int64 computes in float64
