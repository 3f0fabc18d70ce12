"""Warp intrinsics on the GPU, against lane arithmetic on the host (tests/cases/warp_kernels.py).

Each launch covers whole blocks; block sizes that are not multiples of 32 leave a partial
last warp in every block. Member masks: every lane the warp has ("full"), its even lanes,
or its first k lanes (k random per warp). Results a lane reads from a lane outside the
mask are undefined in PTX and not compared; lanes outside the mask must write nothing.
"""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import warp_kernels as wk
from ...support import poisoned, random_values

pytestmark = pytest.mark.gpu

BLOCKS = 3
BLOCK_SIZES = [32, 48, 100, 256]
MASKS = ["full", "even", "first_k"]


def _every_mask_and_block(test):
    return pytest.mark.parametrize("mask_kind", MASKS)(pytest.mark.parametrize("block", BLOCK_SIZES)(test))


def _masks(kind, block, rng):
    n = BLOCKS * block
    existing = wk.existing_lanes(n, block)
    if kind == "full":
        return existing
    if kind == "even":
        return existing & np.uint32(0x55555555)
    _, base = wk.lanes_of(n, block)
    k = rng.integers(1, wk.WARP + 1, n)[base]  # one k per warp, drawn at its first thread
    return existing & ((np.uint64(1) << k.astype(np.uint64)) - np.uint64(1)).astype(np.uint32)


def _warps(masks, block):
    """Per thread: its lane, its warp's first thread, whether it takes part."""
    lane, base = wk.lanes_of(masks.size, block)
    return lane, base, wk.in_mask(masks, lane)


@_every_mask_and_block
@pytest.mark.parametrize("dtype", wk.DTYPES)
def test_shuffles(dtype, block, mask_kind, rng):
    masks = _masks(mask_kind, block, rng)
    n = masks.size
    values = random_values(dtype, n, rng)
    lanes = rng.integers(0, 40, n).astype(np.int32)  # deltas and lanes past the warp included
    lanes[wk.lanes_of(n, block)[0] == 0] = 0  # lane 0 of every warp reads itself: always defined
    outs = [poisoned(n, dtype) for _ in range(4)]
    cuda.jit(wk.shuffles)[BLOCKS, block](values, masks, lanes, *outs)
    lane, base, part = _warps(masks, block)
    untouched = wk.bits(poisoned(n, dtype))
    for kind, out in zip(("idx", "up", "down", "xor"), outs):
        source = wk.shuffle_source(kind, lane, lanes)
        defined = part & wk.in_mask(masks, source)
        assert defined.any()
        expected = values[np.minimum(base + source, n - 1)]
        got, want = wk.bits(out), wk.bits(expected)
        bad = np.nonzero(defined & (got != want))[0]
        assert not bad.size, (
            f"{kind}: lanes {lane[bad[:5]]} of threads {bad[:5]} got {out[bad[:5]]}, expected {expected[bad[:5]]}"
        )
        assert (got[~part] == untouched[~part]).all(), f"{kind}: a lane outside the mask wrote"


def _per_warp(masks, block):
    """(threads taking part in each warp's mask) for each warp of the launch."""
    lane, base, part = _warps(masks, block)
    for first in np.unique(base):
        members = np.nonzero((base == first) & part)[0]
        if members.size:
            yield members


@_every_mask_and_block
@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
def test_votes_and_ballot(dtype, block, mask_kind, rng):
    masks = _masks(mask_kind, block, rng)
    n = masks.size
    lane, base, part = _warps(masks, block)
    chance = rng.choice([0.0, 0.5, 1.0], n)[base]  # warps all false, mixed, all true
    truth = rng.random(n) < chance
    preds = truth.astype(dtype) if dtype == "bool" else np.where(truth, random_values(dtype, n, rng), 0).astype(dtype)
    truth = preds != 0  # a number is true where it is nonzero
    outs = [poisoned(n, "bool"), poisoned(n, "bool"), poisoned(n, "bool"), poisoned(n, "int32")]
    cuda.jit(wk.votes)[BLOCKS, block](preds, masks, *outs)
    all_, any_, eq, ballot = outs
    for members in _per_warp(masks, block):
        votes = truth[members]
        bits = int(sum(1 << int(lane[t]) for t in members if truth[t]))
        assert (all_[members] == votes.all()).all()
        assert (any_[members] == votes.any()).all()
        assert (eq[members] == (votes.all() or not votes.any())).all()
        assert (ballot[members] == np.array(bits, np.uint32).view(np.int32)).all(), (members, ballot[members], bits)
    assert (ballot[~part] == poisoned(1, "int32")[0]).all()


@_every_mask_and_block
@pytest.mark.parametrize("dtype", wk.DTYPES)
def test_match_any_and_all(dtype, block, mask_kind, rng):
    masks = _masks(mask_kind, block, rng)
    n = masks.size
    lane, base, part = _warps(masks, block)
    pool = random_values(dtype, 3, rng)
    choice = rng.integers(0, 3, n)
    choice[rng.random(n)[base] < 0.4] = 0  # some warps hold one value only
    values = pool[choice]
    any_, all_mask, all_pred = poisoned(n, "int32"), poisoned(n, "int32"), poisoned(n, "bool")
    cuda.jit(wk.matches)[BLOCKS, block](values, masks, any_, all_mask, all_pred)
    keys = wk.bits(values)
    for members in _per_warp(masks, block):
        member_mask = int(sum(1 << int(lane[t]) for t in members))
        for t in members:
            same = int(sum(1 << int(lane[u]) for u in members if keys[u] == keys[t]))
            assert any_[t] == np.array(same, np.uint32).view(np.int32), (t, any_[t], same)
        uniform = (keys[members] == keys[members[0]]).all()
        assert (all_pred[members] == uniform).all()
        assert (all_mask[members] == np.array(member_mask if uniform else 0, np.uint32).view(np.int32)).all()
    assert (any_[~part] == poisoned(1, "int32")[0]).all()


@pytest.mark.parametrize("block", BLOCK_SIZES)
@pytest.mark.parametrize("k", [1, 13, 32])
def test_lane_registers_and_masks(block, k):
    n = BLOCKS * block
    lane_out, size, below = poisoned(n, "int32"), poisoned(n, "int32"), poisoned(n, "uint32")
    active, active_k = poisoned(n, "uint32"), poisoned(n, "uint32")
    cuda.jit(wk.registers)[BLOCKS, block](k, lane_out, size, below, active, active_k)
    lane, _ = wk.lanes_of(n, block)
    existing = wk.existing_lanes(n, block)
    own = (np.uint64(1) << lane.astype(np.uint64)).astype(np.uint32)
    assert (lane_out == lane).all()
    assert (size == 32).all()
    assert (below == own - np.uint32(1)).all()
    # activemask(): the lanes executing the call with this one; never a lane the warp lacks
    assert ((active & ~existing) == 0).all() and ((active & own) == own).all()
    first_k = existing & np.uint32((1 << k) - 1)
    inside = lane < k
    assert ((active_k[inside] & ~first_k[inside]) == 0).all() and (
        (active_k[inside] & own[inside]) == own[inside]
    ).all()
    assert (active_k[~inside] == poisoned(1, "uint32")[0]).all()


def _warp_rows(values):
    return values.reshape(-1, wk.WARP)


def _wide(rows, dtype):
    kind = np.dtype(dtype).kind
    return rows.astype({"i": np.int64, "u": np.uint64, "f": np.float64}[kind])


def _compare(got, expected, scale, dtype, what):
    if np.dtype(dtype).kind == "f":
        tolerance = {"float32": 1e-5, "float64": 1e-12}[dtype]
        assert not np.isnan(got).any(), f"{what}: elements left unwritten"
        bad = np.abs(got.astype(np.float64) - expected) > tolerance * scale + np.finfo(np.float64).tiny
        assert not bad.any(), f"{what}: {bad.sum()} elements off, first at {np.argwhere(bad)[:3].tolist()}"
    else:  # integers wrap as the kernel's do
        np.testing.assert_array_equal(got, expected.astype(dtype), err_msg=what)


# kernel -> the per-warp reference, applied along each row of 32 lanes
PER_WARP = {
    "sum": (wk.warp_sum, lambda rows: np.repeat(rows.sum(axis=1), wk.WARP)),
    "inclusive scan": (wk.warp_inclusive_scan, lambda rows: np.cumsum(rows, axis=1).ravel()),
}


@pytest.mark.parametrize("what", list(PER_WARP))
@pytest.mark.parametrize("block", [32, 64, 256])
@pytest.mark.parametrize("dtype", wk.SUM_DTYPES)
def test_warp_shuffle_reduction_and_scan(dtype, block, what, rng):
    kernel, reference = PER_WARP[what]
    n = BLOCKS * block
    values = random_values(dtype, n, rng)
    out = poisoned(n, dtype)
    cuda.jit(kernel)[BLOCKS, block](values, out)
    rows = _wide(_warp_rows(values), dtype)
    _compare(out, reference(rows), reference(np.abs(rows)), dtype, f"warp {what}")


@pytest.mark.parametrize("kernel", [wk.divergent_activemask, wk.divergent_ballot], ids=lambda k: k.__name__)
def test_divergent_arms_see_their_own_lanes(kernel, backend):
    # identical arms taken by even and odd lanes: each arm's mask is its lanes' alone
    out = np.zeros(BLOCKS * 64, np.uint32)
    cuda.jit(backend=backend)(kernel)[BLOCKS, 64](out)
    np.testing.assert_array_equal(out, wk.divergent_masks(len(out)))
