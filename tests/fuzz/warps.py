"""The host's answers of a warp's votes: what every lane of the warp whose first thread is
``base`` gets from ``all_sync``, ``any_sync`` and ``ballot_sync`` with the full mask, given
each thread's predicate."""

import numpy as np


def warp_all(predicates, base):
    for lane in range(32):
        if not predicates[base + lane]:
            return False
    return True


def warp_any(predicates, base):
    for lane in range(32):
        if predicates[base + lane]:
            return True
    return False


def warp_ballot(predicates, base):
    """The mask of the lanes whose predicate holds, as the int32 numba-cuda types it."""
    mask = 0
    for lane in range(32):
        if predicates[base + lane]:
            mask |= 1 << lane
    return np.int32(np.uint32(mask))
