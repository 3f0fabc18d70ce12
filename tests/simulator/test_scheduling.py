"""The CPU simulator's scheduler (cumlir/runtime/simulator/scheduling.py) on hand-built
thread records: each warp operation's results against a plain-Python reference of CUDA's
semantics, the block barriers, and the errors for what would hang or be undefined on the
GPU."""

import numpy as np
import pytest

from cumlir import simulation as sim
from cumlir.runtime.simulator.errors import (
    DeadlockError,
    DivergentBarrierError,
    SimulatorError,
    WarpMaskError,
)
from cumlir.runtime.simulator.scheduling import resolve

WORD = 0xFFFFFFFF
SITES = [
    "kernel.py:10 (cuda.syncthreads)",
    "kernel.py:11 (cuda.shfl_sync)",
    "kernel.py:12 (cuda.ballot_sync)",
    "kernel.py:13 (cuda.activemask)",
]


def block(bx, by=1, bz=1):
    """A block of finished threads, tid and linear filled in."""
    threads = np.zeros(bx * by * bz, dtype=sim.THREAD_DTYPE)
    linear = np.arange(len(threads))
    threads["linear"] = linear
    threads["tid"][:, 0] = linear % bx
    threads["tid"][:, 1] = linear // bx % by
    threads["tid"][:, 2] = linear // (bx * by)
    threads["wait"] = sim.FINISHED
    threads["result"] = -7
    return threads


def wait_warp(threads, lanes, op, mask, values=None, operand=0, site=1):
    for n, i in enumerate(lanes):
        threads[i]["wait"] = sim.AT_WARP
        threads[i]["op"] = op
        threads[i]["mask"] = mask
        threads[i]["site"] = site
        threads[i]["operand"] = operand
        threads[i]["value"] = 0 if values is None else values[n]


def wait_barrier(threads, lanes, op=sim.BARRIER, values=None, site=0):
    for n, i in enumerate(lanes):
        threads[i]["wait"] = sim.AT_BARRIER
        threads[i]["op"] = op
        threads[i]["site"] = site
        threads[i]["value"] = 0 if values is None else values[n]


def members(mask, warp, n):
    """The linear indices of the lanes of ``mask`` that exist in warp ``warp`` of ``n`` threads."""
    return [32 * warp + lane for lane in range(32) if mask >> lane & 1 and 32 * warp + lane < n]


def random_mask(rng):
    return int(rng.integers(1, 2**32)) | 1 << int(rng.integers(32))


def random_values(rng, count):
    return [int(v) for v in rng.integers(-(2**40), 2**40, size=count)]


def signed32(v):
    return ((v & WORD) ^ 0x80000000) - 0x80000000


def released(threads, lanes):
    assert all(threads["wait"][i] == sim.RUNNABLE for i in lanes)
    return [int(threads["result"][i]) for i in lanes]


# --- shuffles: CUDA's __shfl*_sync with a width, as the programming guide describes them


def shfl_reference(kind, lane, b, width):
    """The source lane and whether it was in range, by CUDA's description of each shuffle."""
    start = lane // width * width
    if kind == sim.SHFL_IDX:
        return start + b % width, True
    if kind == sim.SHFL_UP:
        return (lane - b, True) if lane - b >= start else (lane, False)
    if kind == sim.SHFL_DOWN:
        return (lane + b, True) if lane + b < start + width else (lane, False)
    source = lane ^ b
    return (source, True) if source < start + width else (lane, False)


def shfl_operand(kind, b, width):
    """b and c as CUDA's headers pass them to shfl.sync for a shuffle of ``width`` lanes."""
    c = (32 - width) << 8 | (0 if kind == sim.SHFL_UP else 0x1F)
    return b | c << 32


SHUFFLES = [sim.SHFL_IDX, sim.SHFL_UP, sim.SHFL_DOWN, sim.SHFL_BFLY]


@pytest.mark.parametrize("kind", SHUFFLES)
@pytest.mark.parametrize("width", [32, 16, 8, 4, 2, 1])
def test_shuffle_full_warps(kind, width, rng):
    for _ in range(20):
        threads = block(64)
        values = random_values(rng, 64)
        b = int(rng.integers(0, 32 if kind in (sim.SHFL_IDX, sim.SHFL_BFLY) else width))
        wait_warp(threads, range(64), kind, WORD, values, shfl_operand(kind, b, width))
        assert resolve(threads, SITES) == 1
        for i in range(64):
            source, within = shfl_reference(kind, i % 32, b, width)
            expected = values[i - i % 32 + source] & WORD | int(within) << 32
            assert threads["result"][i] == expected, (i, b)
        assert (threads["wait"] == sim.RUNNABLE).all()


@pytest.mark.parametrize("kind", SHUFFLES)
def test_shuffle_per_lane_operands(kind, rng):
    """Each lane passes its own source lane or delta (a shuffle reads b per lane)."""
    threads = block(32)
    values = random_values(rng, 32)
    wait_warp(threads, range(32), kind, WORD, values)
    bs = [int(b) for b in rng.integers(0, 32, size=32)]
    threads["operand"] = [shfl_operand(kind, b, 8) for b in bs]
    assert resolve(threads, SITES) == 1
    for lane in range(32):
        source, within = shfl_reference(kind, lane, bs[lane], 8)
        assert threads["result"][lane] == values[source] & WORD | int(within) << 32


@pytest.mark.parametrize("kind", SHUFFLES)
def test_shuffle_random_masks(kind, rng):
    """Lanes of a mask shuffle among themselves; a lane reading one outside it (undefined on
    the GPU) gets its own value, with the shuffle's in-range bit as usual."""
    outcomes = set()
    for _ in range(60):
        n = int(rng.choice([32, 48, 64, 70]))
        threads = block(n)
        values = random_values(rng, n)
        width = int(rng.choice([32, 16, 8]))
        b = int(rng.integers(0, 4))
        masks = [random_mask(rng) for _ in range(-(-n // 32))]
        for w, mask in enumerate(masks):
            lanes = members(mask, w, n)
            wait_warp(threads, lanes, kind, mask, [values[i] for i in lanes], shfl_operand(kind, b, width))
        expected, undefined = {}, False
        for w, mask in enumerate(masks):
            lanes = members(mask, w, n)
            for i in lanes:
                source, within = shfl_reference(kind, i % 32, b, width)
                if 32 * w + source not in lanes:
                    undefined = True
                    source = i % 32  # outside the mask: the lane's own value
                expected[i] = values[32 * w + source] & WORD | int(within) << 32
        outcomes.add(undefined)
        assert resolve(threads, SITES) == 1
        for i, result in expected.items():
            assert threads["wait"][i] == sim.RUNNABLE and threads["result"][i] == result
        idle = [i for i in range(n) if i not in expected]
        assert (threads["wait"][idle] == sim.FINISHED).all() and (threads["result"][idle] == -7).all()
    assert outcomes == {True, False}


def test_shuffle_partial_warp():
    """In a block of 48 threads the second warp has 16 lanes: a full mask names those, and a
    lane whose shuffle reads past them (a lane that does not take part) gets its own value."""
    threads = block(48)
    values = list(range(100, 148))
    wait_warp(threads, range(48), sim.SHFL_DOWN, WORD, values, shfl_operand(sim.SHFL_DOWN, 1, 16))
    assert resolve(threads, SITES) == 1
    assert [int(r) & WORD for r in threads["result"]] == [v + 1 for v in values[:15]] + [115] + [
        v + 1 for v in values[16:31]
    ] + [131] + [v + 1 for v in values[32:47]] + [147]
    assert [int(r) >> 32 for r in threads["result"][32:]] == [1] * 15 + [0]

    threads = block(48)
    wait_warp(threads, range(48), sim.SHFL_DOWN, WORD, values, shfl_operand(sim.SHFL_DOWN, 1, 32))
    assert resolve(threads, SITES) == 1
    assert (threads["wait"] == sim.RUNNABLE).all()
    # lane 31 of warp 0 is past the width (its own value, out of range); lane 15 of warp 1,
    # thread 47, reads lane 16, past the block's last thread: its own value, in range
    assert [int(r) & WORD for r in threads["result"]] == [v + 1 for v in values[:31]] + [131] + [
        v + 1 for v in values[32:47]
    ] + [147]
    assert [int(r) >> 32 for r in threads["result"]] == [1] * 31 + [0] + [1] * 16


def test_shuffle_value_is_low_word():
    threads = block(32)
    wait_warp(
        threads, range(32), sim.SHFL_IDX, WORD, [-1 - lane for lane in range(32)], shfl_operand(sim.SHFL_IDX, 3, 32)
    )
    resolve(threads, SITES)
    assert (threads["result"] == (-4 & WORD) | 1 << 32).all()


def test_shuffle_lane_operand_bits():
    """shfl.sync reads b's low 5 bits, so a source lane past the warp wraps (CUDA's srcLane %
    width)."""
    threads = block(32)
    wait_warp(threads, range(32), sim.SHFL_IDX, WORD, list(range(32)), shfl_operand(sim.SHFL_IDX, 37, 8))
    resolve(threads, SITES)
    assert [int(r) & WORD for r in threads["result"]] == [lane // 8 * 8 + 37 % 8 for lane in range(32)]


def test_unknown_operations():
    threads = block(32)
    wait_warp(threads, [0], 40, 1)
    with pytest.raises(SimulatorError, match="warp operation 40"):
        resolve(threads, SITES)
    threads = block(32)
    wait_barrier(threads, [0], 9, site=99)
    with pytest.raises(SimulatorError, match="call site 99 in barrier operation 9"):
        resolve(threads, SITES)


def test_shuffle_reading_a_lane_outside_the_mask():
    """Lanes 0 and 1 shuffle with mask 0b11 reading lane 2, which waits at the barrier:
    undefined on the GPU, no error here: each reading lane gets its own value (in range),
    and lane 2 and the rest still wait at the barrier."""
    threads = block(32)
    wait_warp(threads, [0, 1], sim.SHFL_IDX, 0b11, [5, 6], shfl_operand(sim.SHFL_IDX, 2, 32))
    wait_barrier(threads, range(2, 32))
    assert resolve(threads, SITES) == 1
    assert released(threads, [0, 1]) == [5 | 1 << 32, 6 | 1 << 32]
    assert (threads["wait"][2:] == sim.AT_BARRIER).all() and (threads["result"][2:] == -7).all()
    # the released lanes run on to the barrier, which then releases the whole block
    wait_barrier(threads, [0, 1])
    assert resolve(threads, SITES) == 1
    assert (threads["wait"] == sim.RUNNABLE).all() and (threads["result"] == 0).all()


# --- votes, ballots, matches, reductions


def reference(op, mask_values):
    """A warp operation's result for one lane, from the values of its mask's lanes (in lane
    order), by CUDA's description."""
    values = [v for _, v in mask_values]
    mask = sum(1 << lane for lane, _ in mask_values)
    words = [v & WORD for v in values]
    if op == sim.SYNCWARP:
        return 0
    if op == sim.VOTE_ALL:
        return int(all(values))
    if op == sim.VOTE_ANY:
        return int(any(values))
    if op == sim.VOTE_UNI:
        return int(all(values) or not any(values))
    if op == sim.BALLOT:
        return sum(1 << lane for lane, v in mask_values if v)
    if op == sim.MATCH_ALL:
        return mask | 1 << 32 if len(set(values)) == 1 else 0
    if op == sim.REDUX_ADD:
        return sum(words) & WORD
    if op == sim.REDUX_MIN:
        return min(signed32(v) for v in values) & WORD
    if op == sim.REDUX_MAX:
        return max(signed32(v) for v in values) & WORD
    if op == sim.REDUX_UMIN:
        return min(words)
    if op == sim.REDUX_UMAX:
        return max(words)
    result = {sim.REDUX_AND: WORD, sim.REDUX_OR: 0, sim.REDUX_XOR: 0}[op]
    for word in words:
        if op == sim.REDUX_AND:
            result &= word
        elif op == sim.REDUX_OR:
            result |= word
        else:
            result ^= word
    return result


UNIFORM = [sim.SYNCWARP, sim.VOTE_ALL, sim.VOTE_ANY, sim.VOTE_UNI, sim.BALLOT, sim.MATCH_ALL]
UNIFORM += list(range(sim.REDUX_ADD, sim.REDUX_XOR + 1))


def random_operation_values(rng, op, count):
    """Values that make each outcome of ``op`` likely: predicates mostly one way, matches
    mostly equal (some differing only in the high word), numbers of every sign and size."""
    if op in (sim.VOTE_ALL, sim.VOTE_ANY, sim.VOTE_UNI, sim.BALLOT):
        bias = rng.choice([0.0, 0.05, 0.5, 0.95, 1.0])
        return [int(rng.random() < bias) * int(rng.choice([1, -1, 2**33, 7])) for _ in range(count)]
    if op in (sim.MATCH_ALL, sim.MATCH_ANY):
        base = int(rng.integers(-(2**40), 2**40))
        spread = int(rng.choice([1, 1, 2, 3]))
        return [base + int(rng.integers(spread)) * 2**32 for _ in range(count)]
    return random_values(rng, count)


@pytest.mark.parametrize("op", UNIFORM, ids=lambda op: str(op))
def test_uniform_results(op, rng):
    """Operations whose result is the same for every lane of the mask, on random masks over
    blocks with a partial last warp."""
    for _ in range(40):
        n = int(rng.choice([32, 48, 64, 90]))
        threads = block(n)
        expected = {}
        for w in range(-(-n // 32)):
            mask = random_mask(rng) if rng.random() < 0.7 else WORD
            lanes = members(mask, w, n)
            if not lanes:
                continue
            values = random_operation_values(rng, op, len(lanes))
            wait_warp(threads, lanes, op, mask, values)
            result = reference(op, [(i % 32, v) for i, v in zip(lanes, values)])
            expected.update(dict.fromkeys(lanes, result))
        assert resolve(threads, SITES) == 1
        assert released(threads, expected) == list(expected.values())
        assert (threads["wait"][[i for i in range(n) if i not in expected]] == sim.FINISHED).all()


def test_match_any(rng):
    for _ in range(40):
        n = int(rng.choice([32, 48, 64]))
        threads = block(n)
        expected = {}
        for w in range(-(-n // 32)):
            mask = random_mask(rng)
            lanes = members(mask, w, n)
            if not lanes:
                continue
            values = random_operation_values(rng, sim.MATCH_ANY, len(lanes))
            wait_warp(threads, lanes, sim.MATCH_ANY, mask, values)
            for i, v in zip(lanes, values):
                expected[i] = sum(1 << k % 32 for k, u in zip(lanes, values) if u == v)
        assert resolve(threads, SITES) == 1
        assert released(threads, expected) == list(expected.values())


def test_groups_of_one_warp():
    """Two halves of a warp with their own masks complete each; a lane whose mask names lanes
    waiting with another mask waits on."""
    threads = block(32)
    wait_warp(threads, range(16), sim.REDUX_ADD, 0xFFFF, [1] * 16)
    wait_warp(threads, range(16, 32), sim.REDUX_ADD, 0xFFFF0000, [2] * 16)
    assert resolve(threads, SITES) == 1
    assert released(threads, range(32)) == [16] * 16 + [32] * 16

    threads = block(32)
    wait_warp(threads, [0, 1], sim.BALLOT, 0b011, [1, 1])
    wait_warp(threads, [2], sim.BALLOT, 0b111, [1])
    assert resolve(threads, SITES) == 1
    assert released(threads, [0, 1]) == [0b11, 0b11]
    assert threads["wait"][2] == sim.AT_WARP and threads["result"][2] == -7

    # the same operation at different call sites completes together (as __syncwarp does)
    threads = block(32)
    wait_warp(threads, range(0, 32, 2), sim.SYNCWARP, WORD, site=1)
    wait_warp(threads, range(1, 32, 2), sim.SYNCWARP, WORD, site=2)
    assert resolve(threads, SITES) == 1
    assert released(threads, range(32)) == [0] * 32


def test_warp_operations_before_the_barrier():
    """A warp operation completes while other warps wait at the barrier, which waits for the
    next round."""
    threads = block(64)
    wait_barrier(threads, range(32))
    wait_warp(threads, range(32, 64), sim.VOTE_ANY, WORD, [0] * 31 + [5])
    assert resolve(threads, SITES) == 1
    assert released(threads, range(32, 64)) == [1] * 32
    assert (threads["wait"][:32] == sim.AT_BARRIER).all()
    threads["wait"][32:] = sim.AT_BARRIER
    threads["op"][32:] = sim.BARRIER
    threads["site"][32:] = 0
    assert resolve(threads, SITES) == 1
    assert released(threads, range(64)) == [0] * 64


# --- activemask


def test_activemask_groups():
    """Lanes waiting in activemask at one call site are converged: each gets the mask of the
    lanes there; lanes elsewhere (at another site, the barrier, another warp operation or
    exited) are not in it."""
    threads = block(64)
    first, second = [0, 3, 4, 9, 31], [1, 2, 30]
    wait_warp(threads, first, sim.ACTIVEMASK, 0, site=3)
    wait_warp(threads, second, sim.ACTIVEMASK, 0, site=2)
    wait_barrier(threads, [5, 6])
    wait_warp(threads, [7, 8], sim.BALLOT, 0b110000000, [1, 0])
    wait_warp(threads, range(32, 48), sim.ACTIVEMASK, 0xDEAD, site=3)
    assert resolve(threads, SITES) == 1
    assert released(threads, first) == [sum(1 << k for k in first)] * len(first)
    assert released(threads, second) == [sum(1 << k for k in second)] * len(second)
    assert released(threads, [7, 8]) == [0b10000000] * 2
    assert released(threads, range(32, 48)) == [0xFFFF] * 16
    assert (threads["wait"][[5, 6]] == sim.AT_BARRIER).all()


# --- block barriers


@pytest.mark.parametrize("op", [sim.BARRIER, sim.BARRIER_POPC, sim.BARRIER_AND, sim.BARRIER_OR])
def test_barriers(op, rng):
    for _ in range(30):
        threads = block(int(rng.choice([8, 48, 64])), 2, 2)
        n = len(threads)
        waiting = [i for i in range(n) if rng.random() < 0.8] or [0]
        bias = rng.choice([0.0, 0.5, 1.0])
        values = [int(rng.random() < bias) * int(rng.choice([1, -3, 2**35])) for _ in waiting]
        wait_barrier(threads, waiting, op, values, site=4)
        expected = {
            sim.BARRIER: 0,
            sim.BARRIER_POPC: sum(v != 0 for v in values),
            sim.BARRIER_AND: int(all(values)),
            sim.BARRIER_OR: int(any(values)),
        }[op]
        assert resolve(threads, SITES) == 1
        assert released(threads, waiting) == [expected] * len(waiting)
        assert resolve(threads[[i for i in range(n) if i not in waiting]], SITES) == 0


def test_all_finished():
    assert resolve(block(48), SITES) == 0
    assert resolve(block(0), SITES) == 0


def test_divergent_barrier():
    threads = block(8, 4, 2)
    wait_barrier(threads, range(64), site=0)
    wait_barrier(threads, [11], site=2)
    message = r"thread \(0, 0, 0\) at syncthreads at kernel.py:10 \(cuda.syncthreads\) and thread \(3, 1, 0\) at syncthreads at kernel.py:12"
    with pytest.raises(DivergentBarrierError, match=message):
        resolve(threads, SITES)


# --- errors of warp operations


def test_mask_leaving_out_the_calling_lane():
    threads = block(8, 8)
    wait_warp(threads, range(40, 48), sim.SHFL_IDX, 0xFF, site=1)
    with pytest.raises(
        WarpMaskError,
        match=r"the mask 0x000000ff of shfl_sync at kernel.py:11 \(cuda.shfl_sync\) does not name the calling lane 8 \(thread \(0, 5, 0\)\)",
    ):
        resolve(threads, SITES)


def test_mask_naming_an_exited_lane():
    threads = block(32, 2)
    wait_warp(threads, [32, 33, 35], sim.BALLOT, 0b1111, site=2)
    with pytest.raises(
        WarpMaskError,
        match=r"the mask 0x0000000f of ballot_sync at kernel.py:12 \(cuda.ballot_sync\) \(thread \(0, 1, 0\)\) names lane 2 \(thread \(2, 1, 0\)\), which has exited",
    ):
        resolve(threads, SITES)


def test_mask_past_a_partial_warp():
    """Lanes of a mask past the block's last thread are not lanes that exited."""
    threads = block(40)
    wait_warp(threads, range(32, 40), sim.SYNCWARP, WORD)
    assert resolve(threads, SITES) == 1
    assert released(threads, range(32, 40)) == [0] * 8


def test_deadlock_warp_operation_and_barrier():
    threads = block(32)
    wait_warp(threads, range(16), sim.SHFL_IDX, WORD, site=1)
    wait_barrier(threads, range(16, 32), site=0)
    message = r"thread \(0, 0, 0\) waits in shfl_sync at kernel.py:11 \(cuda.shfl_sync\) with mask 0xffffffff, but lane 16 of its mask, thread \(16, 0, 0\), waits at the block barrier syncthreads at kernel.py:10"
    with pytest.raises(DeadlockError, match=message):
        resolve(threads, SITES)


def test_deadlock_different_warp_operations():
    threads = block(32)
    wait_warp(threads, range(16), sim.BALLOT, WORD, site=2)
    wait_warp(threads, range(16, 32), sim.VOTE_ANY, WORD, site=1)
    with pytest.raises(
        DeadlockError,
        match=r"thread \(0, 0, 0\) waits in ballot_sync .* lane 16 of its mask, thread \(16, 0, 0\), waits in any_sync at kernel.py:11",
    ):
        resolve(threads, SITES)
    threads = block(32)
    wait_warp(threads, range(16), sim.BALLOT, WORD)
    wait_warp(threads, range(16, 32), sim.BALLOT, 0xFFFF0000 | 1)
    with pytest.raises(DeadlockError, match="with mask 0xffff0001"):
        resolve(threads, SITES)


def test_threads_that_can_run():
    threads = block(32)
    threads["wait"][3] = sim.RUNNABLE
    with pytest.raises(SimulatorError, match=r"thread \(3, 0, 0\)"):
        resolve(threads, SITES)


def test_error_classes():
    for error in (DeadlockError, DivergentBarrierError, WarpMaskError):
        assert issubclass(error, SimulatorError)
    assert issubclass(SimulatorError, RuntimeError)
