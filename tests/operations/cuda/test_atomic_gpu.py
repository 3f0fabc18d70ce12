"""cuda.atomic on the GPU, against answers computed on the host: every thread hits one of a
few elements (heavy contention); results that do not depend on the order are compared with
NumPy's sequential reductions, the others (exch, inc/dec, cas) with invariants."""

import numpy as np
import pytest

from cumlir import cuda

from ...support import poisoned

pytestmark = pytest.mark.gpu

INTS = ["int32", "int64", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
BINS = 5  # few addresses, so thousands of threads contend for each
N = 4096
THREADS = 128

# op -> (the dtypes it takes, the NumPy ufunc whose .at gives the sequential answer)
REDUCTIONS = {
    "add": (INTS + FLOATS, np.add),
    "sub": (INTS + FLOATS, np.subtract),
    "max": (INTS + FLOATS, np.maximum),
    "min": (INTS + FLOATS, np.minimum),
    "nanmax": (INTS + FLOATS, np.fmax),
    "nanmin": (INTS + FLOATS, np.fmin),
    "and_": (INTS, np.bitwise_and),
    "or_": (INTS, np.bitwise_or),
    "xor": (INTS, np.bitwise_xor),
}
# a block's partial result in shared memory starts at 0 for these ops and merges into global
# memory with the op named; for the idempotent others (max, and_, ...) it starts at the global
# element's value and merges with the op itself
COMBINE = {"add": "add", "sub": "add", "xor": "xor"}


def _values(dtype, n, rng):
    """Ints over their whole range (sums wrap, as NumPy's do); integer-valued floats, so that
    sums are exact in any order; a few exact ties."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.integers(-50, 51, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _scatter(op, ndim):
    fn = getattr(cuda.atomic, op)
    if ndim == 1:

        def kernel(target, keys, vals, old):
            i = cuda.grid(1)
            if i < keys.size:
                old[i] = fn(target, keys[i], vals[i])

    else:

        def kernel(target, keys, vals, old):
            i = cuda.grid(1)
            if i < keys.size:
                old[i] = fn(target, (keys[i], i % 2), vals[i])

    return cuda.jit(kernel)


def _block_scatter(op, dtype):
    """Block-local results in a shared array (1-D int index), then merged into the global one."""
    fn, merge = getattr(cuda.atomic, op), getattr(cuda.atomic, COMBINE.get(op, op))
    zero_start = op in COMBINE
    nb = getattr(np, dtype)

    def kernel(target, keys, vals, old):
        part = cuda.shared.array(BINS, nb)
        t = cuda.threadIdx.x
        if t < BINS:
            part[t] = 0 if zero_start else target[t]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < keys.size:
            old[i] = fn(part, keys[i], vals[i])
        cuda.syncthreads()
        if t < BINS:
            merge(target, t, part[t])

    return cuda.jit(kernel)


def _launch(kernel, *args):
    kernel[(N + THREADS - 1) // THREADS, THREADS](*args)


def _expected(op, target, keys, vals):
    expected = target.copy()
    with np.errstate(over="ignore"):
        REDUCTIONS[op][1].at(expected, keys, vals)
    return expected


CASES = [(op, dtype) for op, (dtypes, _) in REDUCTIONS.items() for dtype in dtypes]


@pytest.mark.parametrize("op,dtype", CASES)
@pytest.mark.parametrize("ndim", [1, 2])
def test_global_reductions(op, dtype, ndim, rng):
    keys = rng.integers(0, BINS, N)
    vals = _values(dtype, N, rng)
    shape = (BINS,) if ndim == 1 else (BINS, 2)
    target = _values(dtype, int(np.prod(shape)), rng).reshape(shape)
    start = target.copy()
    old = poisoned(N, dtype)
    _launch(_scatter(op, ndim), target, keys, vals, old)
    index = keys if ndim == 1 else (keys, np.arange(N) % 2)
    expected = start.copy()
    with np.errstate(over="ignore"):
        REDUCTIONS[op][1].at(expected, index, vals)
    np.testing.assert_array_equal(target, expected, err_msg=f"cuda.atomic.{op} on {dtype}")
    if op in ("max", "nanmax", "min", "nanmin"):
        # each old value is one the element held: between its start and its final value
        lo, hi = (start[index], expected[index]) if "max" in op else (expected[index], start[index])
        assert ((old >= lo) & (old <= hi)).all(), f"cuda.atomic.{op}: old values outside what the element held"


@pytest.mark.parametrize("op,dtype", CASES)
def test_shared_block_reductions(op, dtype, rng):
    keys = rng.integers(0, BINS, N)
    vals = _values(dtype, N, rng)
    target = _values(dtype, BINS, rng)
    start = target.copy()
    old = poisoned(N, dtype)
    _launch(_block_scatter(op, dtype), target, keys, vals, old)
    np.testing.assert_array_equal(
        target, _expected(op, start, keys, vals), err_msg=f"shared cuda.atomic.{op} on {dtype}"
    )
    if np.dtype(dtype).kind == "f":
        assert not np.isnan(old).any(), "old values left unwritten"


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("shared", [False, True])
def test_add_histogram_old_values(dtype, shared, rng):
    # adding 1: the old values of each bin are exactly start, start + 1, ... in some order
    # (per block for the block-local shared histogram, whose old values are its own)
    keys = rng.integers(0, BINS, N)
    ones = np.ones(N, dtype)
    target = np.zeros(BINS, dtype)
    old = poisoned(N, dtype)
    kernel = _block_scatter("add", dtype) if shared else _scatter("add", 1)
    _launch(kernel, target, keys, ones, old)
    counts = np.bincount(keys, minlength=BINS)
    np.testing.assert_array_equal(target, counts.astype(dtype))
    groups = [slice(s, s + THREADS) for s in range(0, N, THREADS)] if shared else [slice(0, N)]
    for group in groups:
        for b in range(BINS):
            mine = old[group][keys[group] == b]
            np.testing.assert_array_equal(np.sort(mine), np.arange(len(mine), dtype=dtype), err_msg=f"bin {b}")


# ---- NaN rules of the float max/min ---------------------------------------------------------


def _nan_reference(op, start, vals):
    """Numba-CUDA's rules, which do not depend on the order: max/min leave a NaN element NaN
    and ignore NaN values; nanmax/nanmin treat NaN as missing on both sides."""
    present = vals[~np.isnan(vals)]
    if op in ("max", "min"):
        if np.isnan(start) or present.size == 0:
            return start
        return (np.max if op == "max" else np.min)(np.append(present, start))
    candidates = np.append(present, [] if np.isnan(start) else [start])
    if candidates.size == 0:
        return start
    return (np.max if op == "nanmax" else np.min)(candidates)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["max", "min", "nanmax", "nanmin"])
def test_nan_rules(op, dtype, rng):
    # element starts: NaN, a number, NaN with only NaN values, a number with only NaN values,
    # infinities
    start = np.array([np.nan, 0.5, np.nan, 0.25, np.inf, -np.inf], dtype)
    keys = rng.integers(0, start.size, N)
    vals = rng.standard_normal(N).astype(dtype)
    vals[rng.random(N) < 0.3] = np.nan
    vals[np.isin(keys, (2, 3))] = np.nan
    target = start.copy()
    old = poisoned(N, dtype)
    _launch(_scatter(op, 1), target, keys, vals, old)
    expected = np.array([_nan_reference(op, start[k], vals[keys == k]) for k in range(start.size)], dtype)
    np.testing.assert_array_equal(target, expected, err_msg=f"cuda.atomic.{op} on {dtype}")
    # an old value is one the element held: its start or a value stored into it
    for k in range(start.size):
        held = np.append(vals[keys == k], start[k])
        seen = old[keys == k]
        assert np.isin(seen[~np.isnan(seen)], held).all()
        assert not np.isnan(seen).any() or np.isnan(held).any()


# ---- exch, inc/dec, compare-and-swap: invariants --------------------------------------------


@pytest.mark.nondeterministic
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_exch_permutation(dtype, shape, rng):
    vals = _values(dtype, N, rng)
    keys = np.zeros(N, np.int64)
    target = np.full(shape, 7, dtype)
    old = poisoned(N, dtype)
    if len(shape) == 1:
        _launch(_scatter("exch", 1), target, keys, vals, old)
    else:
        _launch(_exch_2d_kernel(), target, keys, vals, old)
    # every value stored is returned to exactly one thread, except the last, which stays
    returned = np.append(old, target.ravel())
    np.testing.assert_array_equal(np.sort(returned), np.sort(np.append(vals, np.array([7], dtype))))


def _exch_2d_kernel():
    def kernel(target, keys, vals, old):
        i = cuda.grid(1)
        if i < keys.size:
            old[i] = cuda.atomic.exch(target, (keys[i], -1), vals[i])  # a negative index wraps

    return cuda.jit(kernel)


def _wrap_sequence(op, modulus, n):
    """The first n values a counter starting at 0 takes under inc/dec with val = modulus - 1."""
    states, value = [], 0
    for _ in range(n):
        states.append(value)
        if op == "inc":
            value = 0 if value >= modulus - 1 else value + 1
        else:
            value = modulus - 1 if value == 0 or value > modulus - 1 else value - 1
    return np.array(states), value


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
@pytest.mark.parametrize("op", ["inc", "dec"])
@pytest.mark.parametrize("shared", [False, True])
def test_inc_dec_modulus(op, dtype, shared, rng):
    modulus = 7
    keys = np.zeros(N, np.int64)
    vals = np.full(N, modulus - 1, dtype)
    old = poisoned(N, dtype)
    if shared:
        # one counter per block, counted in shared memory
        counters = np.zeros(1, dtype)
        _launch(_block_wrap(op, dtype), counters, keys, vals, old)
        per_block = THREADS
        states, final = _wrap_sequence(op, modulus, per_block)
        for b in range(N // THREADS):
            np.testing.assert_array_equal(np.sort(old[b * THREADS : (b + 1) * THREADS]), np.sort(states))
        assert counters[0] == (N // THREADS) * final
        return
    target = np.zeros(1, dtype)
    _launch(_scatter(op, 1), target, keys, vals, old)
    states, final = _wrap_sequence(op, modulus, N)
    assert target[0] == final
    np.testing.assert_array_equal(np.sort(old), np.sort(states).astype(dtype))


def _block_wrap(op, dtype):
    fn = getattr(cuda.atomic, op)
    nb = getattr(np, dtype)

    def kernel(total, keys, vals, old):
        counter = cuda.shared.array(1, nb)
        if cuda.threadIdx.x == 0:
            counter[0] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        old[i] = fn(counter, keys[i], vals[i])
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(total, 0, counter[0])

    return cuda.jit(kernel)


def test_inc_dec_large_limits():
    # val at the top of the range: inc counts plainly, dec from 0 jumps to val
    target = np.array([5, 0], np.uint64)
    limits = np.array([2**64 - 1, 2**63], np.uint64)
    old = poisoned(2, np.uint64)

    @cuda.jit
    def kernel(t, v, o):
        o[0] = cuda.atomic.inc(t, 0, v[0])
        o[1] = cuda.atomic.dec(t, 1, v[1])

    kernel[1, 1](target, limits, old)
    assert target.tolist() == [6, 2**63] and old.tolist() == [5, 0]


@pytest.mark.nondeterministic
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("form", ["cas", "compare_and_swap", "cas2d", "shared"])
def test_cas_counter(dtype, form):
    # each thread adds 1 with a compare-and-swap retry loop: the counter ends at the thread count
    nb = getattr(np, dtype)

    def bump(counter):
        old = counter[0]
        while True:
            seen = cuda.atomic.cas(counter, 0, old, old + nb(1))
            if seen == old:
                return old
            old = seen

    def bump_first(counter):
        old = counter[0]
        while True:
            seen = cuda.atomic.compare_and_swap(counter, old, old + nb(1))
            if seen == old:
                return old
            old = seen

    def bump_2d(counter):
        old = counter[1, 0]
        while True:
            seen = cuda.atomic.cas(counter, (1, 0), old, old + nb(1))
            if seen == old:
                return old
            old = seen

    step = {"cas": bump, "compare_and_swap": bump_first, "cas2d": bump_2d}
    if form == "shared":

        def kernel(counter, old):
            local = cuda.shared.array(1, nb)
            if cuda.threadIdx.x == 0:
                local[0] = 0
            cuda.syncthreads()
            old[cuda.grid(1)] = device(local)
            cuda.syncthreads()
            if cuda.threadIdx.x == 0:
                cuda.atomic.add(counter, 0, local[0])

        device = cuda.jit(device=True)(bump_first)
    else:
        device = cuda.jit(device=True)(step[form])

        def kernel(counter, old):
            old[cuda.grid(1)] = device(counter)

    counter = np.zeros((2, 1) if form == "cas2d" else 1, dtype)
    old = poisoned(N, dtype)
    _launch(cuda.jit(kernel), counter, old)
    assert counter.ravel()[-1 if form == "cas2d" else 0] == N
    if form == "shared":
        for b in range(N // THREADS):
            np.testing.assert_array_equal(
                np.sort(old[b * THREADS : (b + 1) * THREADS]), np.arange(THREADS, dtype=dtype)
            )
    else:
        np.testing.assert_array_equal(np.sort(old), np.arange(N, dtype=dtype))


def test_cas_returns_the_old_value_without_swapping():
    a = np.array([3, 9], np.int64)
    old = poisoned(2, np.int64)

    @cuda.jit
    def kernel(a, o):
        o[0] = cuda.atomic.cas(a, 0, 4, 100)  # 3 != 4: no swap
        o[1] = cuda.atomic.cas(a, -1, 9, 100)  # a negative index wraps; swaps

    kernel[1, 1](a, old)
    assert a.tolist() == [3, 100] and old.tolist() == [3, 9]


@pytest.mark.skipif(not hasattr(cuda, "threadfence"), reason="needs cuda.threadfence")
def test_spin_lock_protects_a_plain_counter():
    # a lock taken with cas and released with exch; the counter is read and written plainly,
    # so a broken lock loses increments. The threads of a warp take turns inside one loop
    # (no thread waits on a lock its own warp holds outside the loop).
    @cuda.jit
    def kernel(lock, counter):
        done = False
        while not done:
            if cuda.atomic.cas(lock, 0, 0, 1) == 0:
                cuda.threadfence()
                counter[0] = counter[0] + 1
                cuda.threadfence()
                cuda.atomic.exch(lock, 0, 0)
                done = True

    lock = np.zeros(1, np.int32)
    counter = np.zeros(1, np.int64)
    kernel[N // THREADS, THREADS](lock, counter)
    assert counter[0] == N and lock[0] == 0
