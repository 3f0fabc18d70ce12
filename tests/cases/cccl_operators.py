"""Python operators handed to CCCL's cuda.compute algorithms (CPU and GPU tests)."""

import numpy as np

PAIR = np.dtype([("key", np.int32), ("value", np.float64)], align=True)


def add(a, b):
    return a + b


def unsigned_max(a, b):
    # an unsigned compare: the bug class a signless IR invites
    return a if a > b else b


def negate_half(a):
    return -a * np.float32(0.5)


def pair_combine(a, b):
    """Keys summed, the larger value kept: a record result returned as a tuple of its fields."""
    return (a.key + b.key, max(a.value, b.value))


def pair_pick(a, b):
    """The operand with the larger value: a record result returned as a record."""
    return a if a.value >= b.value else b


# (operator, operand types, result type or None): each compiled for the CPU tests
OPERATORS = [
    (add, ["int32", "int32"], None),
    (add, ["float32", "float32"], None),
    (unsigned_max, ["uint64", "uint64"], None),
    (negate_half, ["float32"], None),
    (pair_combine, [PAIR, PAIR], PAIR),
    (pair_pick, [PAIR, PAIR], None),
]
