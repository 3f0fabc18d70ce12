"""The CPU simulator's scheduler for one block: when none of its threads can run, release
what the waiting threads allow (CUDA's semantics on Volta and later).

Each thread keeps a ``THREAD_DTYPE`` record (cumlir/simulation.py). A thread that reaches a
block barrier or a warp-collective operation records it there and suspends; ``resolve``
completes the warp operations whose lanes have all arrived, else releases the block barrier
once every thread that has not exited waits at it, and raises a ``SimulatorError`` for what
would hang or be undefined on the GPU.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cumlir import simulation as sim

from .errors import DeadlockError, DivergentBarrierError, SimulatorError, WarpMaskError

WARP_SIZE = 32
WORD = 0xFFFFFFFF
_LANES = np.arange(WARP_SIZE, dtype=np.int64)
_BITS = np.int64(1) << _LANES
_PREDICATE = np.int64(1) << 32

# the names a kernel calls the operations by
OPERATION_NAMES = {
    sim.BARRIER: "syncthreads",
    sim.BARRIER_POPC: "syncthreads_count",
    sim.BARRIER_AND: "syncthreads_and",
    sim.BARRIER_OR: "syncthreads_or",
    sim.GRID_BARRIER: "grid.sync",
    sim.SYNCWARP: "syncwarp",
    sim.SHFL_IDX: "shfl_sync",
    sim.SHFL_UP: "shfl_up_sync",
    sim.SHFL_DOWN: "shfl_down_sync",
    sim.SHFL_BFLY: "shfl_xor_sync",
    sim.VOTE_ALL: "all_sync",
    sim.VOTE_ANY: "any_sync",
    sim.VOTE_UNI: "eq_sync",
    sim.BALLOT: "ballot_sync",
    sim.ACTIVEMASK: "activemask",
    sim.MATCH_ANY: "match_any_sync",
    sim.MATCH_ALL: "match_all_sync",
    sim.REDUX_ADD: "reduce_add_sync",
    sim.REDUX_MIN: "reduce_min_sync",
    sim.REDUX_MAX: "reduce_max_sync",
    sim.REDUX_UMIN: "reduce_min_sync (unsigned)",
    sim.REDUX_UMAX: "reduce_max_sync (unsigned)",
    sim.REDUX_AND: "reduce_and_sync",
    sim.REDUX_OR: "reduce_or_sync",
    sim.REDUX_XOR: "reduce_xor_sync",
}
PARKED = 2  # what resolve returns for a block waiting at the grid barrier
_BARRIERS = (sim.BARRIER, sim.BARRIER_POPC, sim.BARRIER_AND, sim.BARRIER_OR)
_SHUFFLES = (sim.SHFL_IDX, sim.SHFL_UP, sim.SHFL_DOWN, sim.SHFL_BFLY)


def resolve(threads: np.ndarray, sites: Sequence[str]) -> int:
    """Release what the suspended threads of one block allow, when none of them runs.

    ``threads`` is the block's array of ``THREAD_DTYPE`` records in linear order (warp ``w``
    is ``threads[32 * w : 32 * w + 32]``); ``sites[site]`` describes a call site. Warp
    operations whose lanes have all arrived complete first; when none does and every thread
    that has not exited waits at the block barrier, the barrier releases. Each released
    thread gets its ``result`` and ``wait = RUNNABLE``. Returns 1 when some thread was
    released, 0 when every thread has finished, ``PARKED`` when the block waits at the grid
    barrier (a thread there, the others at the block barrier after it); raises a ``SimulatorError`` (a
    ``WarpMaskError``, ``DivergentBarrierError`` or ``DeadlockError``) where the kernel would
    hang or its results would be undefined on the GPU.
    """
    if len(threads) == 0:
        return 0
    wait = threads["wait"]
    unexpected = (wait != sim.AT_BARRIER) & (wait != sim.AT_WARP) & (wait != sim.FINISHED)
    if unexpected.any():
        i = int(np.flatnonzero(unexpected)[0])
        raise SimulatorError(
            f"the scheduler resolves a block only when none of its threads can run, but {_thread(threads, i)} is in state {int(wait[i])}"
        )
    at_warp = wait == sim.AT_WARP
    if at_warp.any() and _complete_warp_operations(threads, sites, at_warp):
        return 1
    if at_warp.any():
        raise _deadlock(threads, sites)
    if ((wait == sim.AT_BARRIER) & (threads["op"] == sim.GRID_BARRIER)).any():
        return PARKED  # every thread of the block waits: its launch resumes it once the grid has arrived
    if (wait == sim.AT_BARRIER).any():
        _release_barrier(threads, sites)
        return 1
    return 0


class _Warps:
    """The fields of the warps where some lane waits in a warp operation, flat, 32 lanes to a
    warp; ``linear`` is each lane's index in the block, ``row`` its warp among these, and a
    lane past the block's last thread has ``wait`` -1 and is not among ``exists``."""

    def __init__(self, threads: np.ndarray, at_warp: np.ndarray) -> None:
        n = len(threads)
        count = -(-n // WARP_SIZE)
        waiting = np.zeros(count * WARP_SIZE, dtype=bool)
        waiting[:n] = at_warp
        rows = np.flatnonzero(waiting.reshape(count, WARP_SIZE).any(axis=1))
        self.n = n
        self.linear = (rows[:, None] * WARP_SIZE + _LANES).ravel()
        self.row = np.repeat(np.arange(len(rows), dtype=np.int64), WARP_SIZE)
        self.lane = np.tile(_LANES, len(rows))
        self.bit = np.tile(_BITS, len(rows))
        inside = self.linear < n
        gather = np.minimum(self.linear, n - 1)

        def field(name: str, fill: int) -> np.ndarray:
            return np.where(inside, threads[name][gather], fill).astype(np.int64, copy=False)

        self.wait = field("wait", -1)
        self.op = field("op", -1)
        self.site = field("site", -1)
        self.mask = field("mask", 0)
        self.value = field("value", 0)
        self.operand = field("operand", 0)
        # the lanes of each one's warp that exist, and those that have exited
        self.exists = self.per_warp(np.where(inside, self.bit, 0))
        self.finished = self.per_warp(np.where(self.wait == sim.FINISHED, self.bit, 0))

    def per_warp(self, bits: np.ndarray) -> np.ndarray:
        """For each lane, the sum of ``bits`` over its warp."""
        return np.repeat(bits.reshape(-1, WARP_SIZE).sum(axis=1), WARP_SIZE)


class _Groups:
    """The lanes grouped by equal keys: ``order`` sorts them, ``starts`` are where each group
    begins in that order and ``group`` is each lane's group."""

    def __init__(self, *keys: np.ndarray) -> None:
        self.order = np.argsort(keys[0], kind="stable") if len(keys) == 1 else np.lexsort(keys[::-1])
        begins = np.zeros(len(self.order), dtype=bool)
        begins[0] = True
        for key in keys:
            ordered = key[self.order]
            begins[1:] |= ordered[1:] != ordered[:-1]
        self.starts = np.flatnonzero(begins)
        self.group = np.empty(len(self.order), dtype=np.int64)
        self.group[self.order] = np.cumsum(begins) - 1

    def reduce(self, ufunc: np.ufunc, values: np.ndarray) -> np.ndarray:
        """For each lane, ``ufunc`` reduced over the values of its group."""
        return ufunc.reduceat(values[self.order], self.starts)[self.group]


_REDUCTIONS: dict[int, tuple[np.ufunc, bool]] = {
    # the operation, and whether it compares the words as signed
    sim.REDUX_ADD: (np.add, False),
    sim.REDUX_MIN: (np.minimum, True),
    sim.REDUX_MAX: (np.maximum, True),
    sim.REDUX_UMIN: (np.minimum, False),
    sim.REDUX_UMAX: (np.maximum, False),
    sim.REDUX_AND: (np.bitwise_and, False),
    sim.REDUX_OR: (np.bitwise_or, False),
    sim.REDUX_XOR: (np.bitwise_xor, False),
}


def _complete_warp_operations(threads: np.ndarray, sites: Sequence[str], at_warp_threads: np.ndarray) -> bool:
    """Completes every warp operation whose lanes have all arrived; whether any did."""
    warps = _Warps(threads, at_warp_threads)
    at_warp = warps.wait == sim.AT_WARP
    op, mask, lanes = warps.op, warps.mask, warps.lane
    known = (op >= sim.SYNCWARP) & (op < sim.WARP_OPS.stop)
    if (at_warp & ~known).any():
        i = int(warps.linear[np.flatnonzero(at_warp & ~known)[0]])
        raise SimulatorError(
            f"{_thread(threads, i)} waits in warp operation {int(threads['op'][i])}, which the scheduler does not know"
        )
    active = at_warp & (op == sim.ACTIVEMASK)
    masked = at_warp & ~active

    not_named = masked & (((mask >> lanes) & 1) == 0)
    if not_named.any():
        i = int(warps.linear[np.flatnonzero(not_named)[0]])
        raise WarpMaskError(
            f"the mask {_hex(threads['mask'][i])} of {_operation(threads, sites, i)} does not name the calling lane {i % WARP_SIZE} ({_thread(threads, i)})"
        )
    members = mask & warps.exists
    exited = masked & ((members & warps.finished) != 0)
    if exited.any():
        flat = int(np.flatnonzero(exited)[0])
        i = int(warps.linear[flat])
        lane = _lowest_lane(int(members[flat] & warps.finished[flat]))
        k = i - i % WARP_SIZE + lane
        raise WarpMaskError(
            f"the mask {_hex(threads['mask'][i])} of {_operation(threads, sites, i)} ({_thread(threads, i)}) names lane {lane} ({_thread(threads, k)}), which has exited"
        )

    # a lane's operation completes when every lane of its mask waits in the same one (same
    # operation, same mask); those lanes are then exactly the lanes of its group
    unique = -1 - np.arange(len(op), dtype=np.int64)
    same = _Groups(np.where(masked, warps.row << 38 | (op - sim.SYNCWARP) << 32 | mask, unique))
    arrived = same.reduce(np.add, warps.bit)
    complete = masked & ((members & ~arrived) == 0)
    if not (complete.any() or active.any()):
        return False

    result = np.zeros_like(warps.value)
    released = complete | active
    present = set(op[released].tolist())
    value = warps.value
    word = value & WORD

    if present & {sim.VOTE_ALL, sim.VOTE_ANY, sim.VOTE_UNI, sim.BALLOT}:
        ballot = same.reduce(np.add, np.where(value != 0, warps.bit, 0))
        _put(result, complete & (op == sim.BALLOT), ballot)
        _put(result, complete & (op == sim.VOTE_ALL), ballot == members)
        _put(result, complete & (op == sim.VOTE_ANY), ballot != 0)
        _put(result, complete & (op == sim.VOTE_UNI), (ballot == 0) | (ballot == members))

    if sim.ACTIVEMASK in present:
        together = _Groups(np.where(active, warps.row << 32 | (warps.site & WORD), unique))
        _put(result, active, together.reduce(np.add, warps.bit))

    if present & {sim.MATCH_ANY, sim.MATCH_ALL}:
        equal = _Groups(same.group, value).reduce(np.add, warps.bit)
        _put(result, complete & (op == sim.MATCH_ANY), equal)
        _put(result, complete & (op == sim.MATCH_ALL), np.where(equal == members, members | _PREDICATE, 0))

    for code, (ufunc, signed) in _REDUCTIONS.items():
        if code in present:
            words = (word ^ 0x80000000) - 0x80000000 if signed else word
            _put(result, complete & (op == code), same.reduce(ufunc, words) & WORD)

    if present & set(_SHUFFLES):
        # PTX's shfl.sync: b the source lane, delta or lane mask; c the clamp and segment mask
        b = warps.operand & 0x1F
        c = (warps.operand >> 32) & WORD
        segment = (c >> 8) & 0x1F
        clamp = c & 0x1F
        high = (lanes & segment) | (clamp & ~segment)
        low = lanes & segment
        source = np.where(
            op == sim.SHFL_UP,
            lanes - b,
            np.where(
                op == sim.SHFL_DOWN, lanes + b, np.where(op == sim.SHFL_BFLY, lanes ^ b, low | (b & ~segment & 0x1F))
            ),
        )
        within = np.where(op == sim.SHFL_UP, source >= high, source <= high)
        source = np.where(within, source, lanes)
        shuffled = complete & (op >= sim.SHFL_IDX) & (op <= sim.SHFL_BFLY)
        # a lane outside the mask: its value is undefined on the GPU (programs read it and
        # discard it); the reading lane gets its own
        absent = shuffled & (((members >> source) & 1) == 0)
        source = np.where(absent, lanes, source)
        read = word[warps.row * WARP_SIZE + source]
        _put(result, shuffled, read | (within.astype(np.int64) << 32))

    lanes_released = np.flatnonzero(released)
    index = warps.linear[lanes_released]
    threads["result"][index] = result[lanes_released]
    threads["wait"][index] = sim.RUNNABLE
    return True


def _put(result: np.ndarray, where: np.ndarray, values: np.ndarray) -> None:
    np.copyto(result, values, where=where, casting="unsafe")


def _release_barrier(threads: np.ndarray, sites: Sequence[str]) -> None:
    """Releases the block barrier every thread that has not exited waits at."""
    waiting = np.flatnonzero(threads["wait"] == sim.AT_BARRIER)
    site = threads["site"][waiting]
    differ = np.flatnonzero(site != site[0])
    if len(differ):
        i, k = int(waiting[0]), int(waiting[differ[0]])
        raise DivergentBarrierError(
            f"threads of one block wait at different barriers: {_thread(threads, i)} at {_operation(threads, sites, i)} and {_thread(threads, k)} at {_operation(threads, sites, k)}; every thread of the block that has not exited must reach the same one"
        )
    op = threads["op"][waiting]
    if (op != op[0]).any() or int(op[0]) not in _BARRIERS:
        i = int(waiting[np.flatnonzero((op != op[0]) | ~np.isin(op, _BARRIERS))[0]])
        raise SimulatorError(
            f"{_thread(threads, i)} waits at {_site(sites, int(threads['site'][i]))} in barrier operation {int(threads['op'][i])}, which the scheduler does not expect"
        )
    true = threads["value"][waiting] != 0
    code = int(op[0])
    if code == sim.BARRIER_POPC:
        result = int(true.sum())
    elif code == sim.BARRIER_AND:
        result = int(true.all())
    elif code == sim.BARRIER_OR:
        result = int(true.any())
    else:
        result = 0
    threads["result"][waiting] = result
    threads["wait"][waiting] = sim.RUNNABLE


def _deadlock(threads: np.ndarray, sites: Sequence[str]) -> DeadlockError:
    """The error for warp operations none of which can complete: one waiting lane and a lane
    of its mask that waits elsewhere (at the block barrier, where there is such a pair)."""
    n = len(threads)
    wait, op, mask = threads["wait"], threads["op"], threads["mask"]
    at_barrier: tuple[int, int] | None = None
    elsewhere: tuple[int, int] | None = None
    for i in np.flatnonzero(wait == sim.AT_WARP).tolist():
        base = i - i % WARP_SIZE
        for k in range(base, min(base + WARP_SIZE, n)):
            if not (int(mask[i]) >> (k - base)) & 1:
                continue
            if wait[k] == sim.AT_BARRIER:
                at_barrier = (i, k)
                break
            if elsewhere is None and (wait[k] != sim.AT_WARP or op[k] != op[i] or mask[k] != mask[i]):
                elsewhere = (i, k)
        if at_barrier:
            break
    pair = at_barrier or elsewhere
    if pair is None:
        return DeadlockError("deadlock: the threads of the block wait in warp operations none of which can complete")
    i, k = pair
    lane = k % WARP_SIZE
    waiting = f"{_thread(threads, i)} waits in {_operation(threads, sites, i)} with mask {_hex(mask[i])}, but lane {lane} of its mask, {_thread(threads, k)}, "
    if wait[k] == sim.AT_BARRIER:
        return DeadlockError(
            f"deadlock: {waiting}waits at the block barrier {_operation(threads, sites, k)}: the warp operation cannot complete before that lane arrives, nor the barrier release before the warp operation completes"
        )
    return DeadlockError(
        f"deadlock: {waiting}waits in {_operation(threads, sites, k)} with mask {_hex(mask[k])}: the lanes of a warp operation's mask must all reach the same operation with the same mask"
    )


def _lowest_lane(bits: int) -> int:
    return (bits & -bits).bit_length() - 1


def _hex(mask: int | np.integer) -> str:
    return f"0x{int(mask) & WORD:08x}"


def _thread(threads: np.ndarray, i: int) -> str:
    x, y, z = (int(t) for t in threads["tid"][i])
    return f"thread ({x}, {y}, {z})"


def _site(sites: Sequence[str], site: int) -> str:
    """The text of call site ``site`` (its number where ``sites`` does not have it)."""
    return sites[site] if 0 <= site < len(sites) else f"call site {site}"


def _operation(threads: np.ndarray, sites: Sequence[str], i: int) -> str:
    code = int(threads["op"][i])
    name = OPERATION_NAMES.get(code, f"operation {code}")
    return f"{name} at {_site(sites, int(threads['site'][i]))}"
