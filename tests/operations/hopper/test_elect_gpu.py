"""elect.sync on the GPU (sm_90), on both code generators: one lane elected per warp among those
running the call, within the mask given, the same lane each time for the same mask."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda import intrin

from ...cases import wgmma_kernels as wk
from ...support import poisoned

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.not_simulated("Hopper's warp election is inline PTX, which has no host form"),
]

WARPS = 4
ODD_LANES = 0xAAAAAAAA


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("elect.sync needs sm_90")


def test_elect_sync_elects_one_lane_per_warp(backend):
    kernel = cuda.jit(backend=backend)(wk.elected)
    flags = (np.arange(128) % 3 == 0).astype(np.int32)
    out = poisoned(128, np.int32)
    kernel[1, 128](flags, out)
    for warp in range(4):
        lanes = out[32 * warp : 32 * (warp + 1)]
        flagged = [lane for lane in range(32) if lanes[lane] & 1]
        assert len(flagged) == 1 and flags[32 * warp + flagged[0]], lanes
        assert int(np.count_nonzero(lanes & 2)) == 1, lanes


def _odd_lanes(out):
    """The odd lanes alone elect among the odd lanes, twice: out[t] has bit 0 set in the first
    lane elected, bit 1 in the second."""
    t = cuda.threadIdx.x
    out[t] = 0
    if cuda.laneid % 2 == 1:
        if intrin.elect_sync_mask(ODD_LANES):
            out[t] = 1
        cuda.syncwarp(ODD_LANES)
        if intrin.elect_sync_mask(ODD_LANES):
            out[t] += 2


def test_elect_sync_mask_elects_one_lane_of_the_mask_the_same_each_time(backend):
    kernel = cuda.jit(backend=backend)(_odd_lanes)
    out = poisoned(32 * WARPS, np.int32)
    kernel[1, 32 * WARPS](out)
    for warp in range(WARPS):
        lanes = out[32 * warp : 32 * (warp + 1)]
        first = np.flatnonzero(lanes & 1)
        second = np.flatnonzero(lanes & 2)
        # one lane, odd, and the same one again: the election is deterministic for a mask
        assert len(first) == 1 and first[0] % 2 == 1, lanes
        assert list(second) == list(first), lanes
        assert not lanes[::2].any(), lanes
