"""Warp intrinsics: kernels and their host references, lane by lane.

Every kernel runs one thread per element; ``masks[i]`` is the member mask of thread i's
warp (the same for all its lanes) and a thread whose lane is not in it does nothing, so a
partial mask is "only these lanes take part". The references follow the PTX definitions
of shfl.sync, vote.sync and match.sync for 32-lane warps of 1-D blocks.
"""

import numpy as np

from cumlir import cuda

WARP = 32
DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
]
SUM_DTYPES = ["int32", "int64", "uint32", "uint64", "float32", "float64"]


def shuffles(values, masks, lanes, idx, up, down, xor):
    i = cuda.grid(1)
    m = masks[i]
    if (m >> cuda.laneid) & 1:  # this lane takes part
        v, b = values[i], lanes[i]
        idx[i] = cuda.shfl_sync(m, v, b)
        up[i] = cuda.shfl_up_sync(m, v, b)
        down[i] = cuda.shfl_down_sync(m, v, b)
        xor[i] = cuda.shfl_xor_sync(m, v, b)


def votes(preds, masks, all_, any_, eq, ballot):
    i = cuda.grid(1)
    m = masks[i]
    if (m >> cuda.laneid) & 1:  # this lane takes part
        p = preds[i]
        all_[i] = cuda.all_sync(m, p)
        any_[i] = cuda.any_sync(m, p)
        eq[i] = cuda.eq_sync(m, p)
        ballot[i] = cuda.ballot_sync(m, p)


def matches(values, masks, any_, all_mask, all_pred):
    i = cuda.grid(1)
    m = masks[i]
    if (m >> cuda.laneid) & 1:  # this lane takes part
        any_[i] = cuda.match_any_sync(m, values[i])
        all_mask[i], all_pred[i] = cuda.match_all_sync(m, values[i])


def registers(k, lane, size, below, active, active_first_k):
    i = cuda.grid(1)
    lane[i] = cuda.laneid
    size[i] = cuda.warpsize
    below[i] = cuda.lanemask_lt()
    active[i] = cuda.activemask()
    if cuda.laneid < k:
        active_first_k[i] = cuda.activemask()


def divergent_activemask(out):
    # textually identical arms: each must stay in its branch, so even lanes see the even
    # lanes' mask and odd lanes the odd lanes' (Numba-CUDA's own test of activemask)
    i = cuda.grid(1)
    if i % 2 == 0:
        out[i] = cuda.activemask()
    else:
        out[i] = cuda.activemask()


def divergent_ballot(out):
    i = cuda.grid(1)
    if i % 2 == 0:
        out[i] = cuda.ballot_sync(cuda.activemask(), True)
    else:
        out[i] = cuda.ballot_sync(cuda.activemask(), True)


def divergent_masks(n):
    """What the divergent kernels write for a launch of n threads in whole warps."""
    return np.array([0x55555555 if i % 2 == 0 else 0xAAAAAAAA for i in range(n)], np.uint32)


def warp_sum(values, out):
    i = cuda.grid(1)
    v = values[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    out[i] = v


def warp_inclusive_scan(values, out):
    i = cuda.grid(1)
    v = values[i]
    delta = 1
    while delta < 32:
        before = cuda.shfl_up_sync(0xFFFFFFFF, v, delta)
        if cuda.laneid >= delta:
            v += before
        delta *= 2
    out[i] = v


# ---- host references ----------------------------------------------------------------------


def lanes_of(n, block):
    """Each thread's lane and the index of its warp's first thread, for 1-D blocks of *block*."""
    t = np.arange(n) % block
    return t % WARP, np.arange(n) - t % WARP


def existing_lanes(n, block):
    """Per thread, the mask of the lanes its warp has (a block's last warp may be partial)."""
    t = np.arange(n) % block
    count = np.minimum(WARP, block - (t - t % WARP))
    return ((1 << count) - 1).astype(np.uint32)


def shuffle_source(kind, lane, b):
    """The lane a shuffle reads from (its own lane where PTX says the source is out of
    range): b counts modulo 32; up and down stay inside the warp."""
    b = b & 31
    j = {"idx": b, "up": lane - b, "down": lane + b, "xor": lane ^ b}[kind]
    return np.where((j >= 0) & (j < WARP), j, lane)


def bits(values):
    """Values as unsigned integers of their width, so floats compare bit for bit."""
    values = np.asarray(values)
    return values.view(f"u{values.itemsize}") if values.dtype != np.bool_ else values.astype(np.uint8)


def in_mask(masks, lanes):
    return ((masks.astype(np.uint64) >> lanes.astype(np.uint64)) & 1).astype(bool)
