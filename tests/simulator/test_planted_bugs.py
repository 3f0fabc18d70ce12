"""Kernels with one planted bug each, run on the CPU simulator with its checks on: each must
fail with the right exception, naming the line of the bug (every line marked ``# planted``).
Then correct kernels using the same features, which must raise nothing and agree with
NumPy."""

import inspect
import os
import re

import numpy as np
import pytest
from numba import float32, int32

from cumlir import cuda
from cumlir.runtime.simulator.errors import (
    DeadlockError,
    DivergentBarrierError,
    SharedMemoryRace,
    SimulatorError,
    UninitializedSharedRead,
    WarpMaskError,
)

pytestmark = pytest.mark.usefixtures("simulated")

FULL = 0xFFFFFFFF
TILE = 8
PADDED = TILE + 1  # a tile's row with a column of padding
CONSTANT = np.arange(16, dtype=np.float32)
CONSTANT_2D = np.arange(24, dtype=np.float32).reshape(4, 6)
TAPS = np.array([0.25, -0.5, 1.0, -0.5, 0.25], dtype=np.float32)


def planted_lines(function):
    """The line numbers in its file of the lines of *function* marked ``# planted``."""
    lines, first = inspect.getsourcelines(function)
    found = [first + k for k, line in enumerate(lines) if "# planted" in line]
    assert found, f"{function.__name__} marks no line as planted"
    return found


def f32(n, fill=0.0):
    return np.full(n, fill, dtype=np.float32)


def distinct(n):
    """*n* different float32 values (threads storing the same value to one place do not race)."""
    return np.arange(1, n + 1, dtype=np.float32)


def i32(n, fill=0):
    return np.full(n, fill, dtype=np.int32)


# ---- the planted bugs: a kernel, and a launch of it (given the compiled kernel)

PLANTED = []


def planted(kernel, error, xfail=None):
    """Registers the decorated launch of *kernel*, which must raise *error* naming the
    kernel's planted lines (or, with *xfail*, a reason why the simulator does not)."""

    def register(launch):
        # the simulator raising nothing or another error; not a kernel that does not compile
        missed = (AssertionError, pytest.fail.Exception)
        marks = [pytest.mark.xfail(strict=True, raises=missed, reason=xfail)] if xfail else []
        PLANTED.append(pytest.param(kernel, launch, error, id=kernel.__name__, marks=marks))
        return launch

    return register


# -- out-of-bounds indices of global arrays


def global_read_off_by_one(x, out):
    i = cuda.grid(1)
    out[i] = x[i + 1]  # planted


@planted(global_read_off_by_one, IndexError)
def _(kernel):
    kernel[2, 32](f32(64), f32(64))


def global_write_off_by_one(out):
    i = cuda.grid(1)
    out[i + 1] = i  # planted


@planted(global_write_off_by_one, IndexError)
def _(kernel):
    kernel[2, 32](f32(64))


def global_write_without_guard(x, out):
    i = cuda.grid(1)
    out[i] = 2 * x[i]  # planted


@planted(global_write_without_guard, IndexError)
def _(kernel):
    kernel[4, 32](f32(100), f32(100))  # 128 threads, 100 elements, no `if i < n`


def global_read_2d(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j + 1]  # planted


@planted(global_read_2d, IndexError)
def _(kernel):
    kernel[(2, 2), (8, 8)](np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32))


def global_write_2d_transposed(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j]  # planted: out is a's transpose, (j, i)


@planted(global_write_2d_transposed, IndexError)
def _(kernel):
    kernel[(1, 2), (8, 8)](np.zeros((8, 12), np.float32), np.zeros((12, 8), np.float32))


def global_read_negative_after_wrap(x, out):
    i = cuda.grid(1)
    out[i] = x[i - x.shape[0] - 1]  # planted: below -len, negative even after wrapping


@planted(global_read_negative_after_wrap, IndexError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def global_write_before_barrier(out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    if i == 31:
        out[i + 1] = 1  # planted: the one bug; thread 31 then writes no s[31]
    s[i] = i
    cuda.syncthreads()
    out[i] = s[31 - i]


@planted(
    global_write_before_barrier,
    IndexError,
)
def _(kernel):
    kernel[1, 32](f32(32))


def global_read_before_shuffle(x, out):
    i = cuda.threadIdx.x
    v = x[i + 1]  # planted: the one bug; thread 31 then never reaches the shuffle
    out[i] = cuda.shfl_sync(FULL, v, 0)


@planted(
    global_read_before_shuffle,
    IndexError,
)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def global_read_slice_past_end(x, out):
    i = cuda.grid(1)
    half = x[: x.shape[0] // 2]
    out[i] = half[i]  # planted: inside x, past the end of its first half


@planted(global_read_slice_past_end, IndexError)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def global_read_3d(a, out):
    i, j, k = cuda.grid(3)
    out[i, j, k] = a[i, j, k + 1]  # planted


@planted(global_read_3d, IndexError)
def _(kernel):
    kernel[1, (4, 4, 4)](np.zeros((4, 4, 4), np.float32), np.zeros((4, 4, 4), np.float32))


def global_read_loop_off_by_one(x, out):
    i = cuda.grid(1)
    total = float32(0)
    for k in range(x.shape[0] + 1):
        total += x[k]  # planted
    out[i] = total


@planted(global_read_loop_off_by_one, IndexError)
def _(kernel):
    kernel[1, 4](f32(16), f32(4))


def global_write_stride_loop_off_by_one(out):
    k = cuda.grid(1)
    while k <= out.shape[0]:
        out[k] = k  # planted
        k += cuda.gridsize(1)


@planted(global_write_stride_loop_off_by_one, IndexError)
def _(kernel):
    kernel[2, 32](f32(200))


# -- out-of-bounds indices of shared, local and constant arrays


def shared_write_off_by_one(x, out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    if i == 0:
        s[0] = 0
    s[i + 1] = x[i]  # planted: shifts the last element out of the array
    cuda.syncthreads()
    out[i] = s[i]


@planted(shared_write_off_by_one, IndexError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def shared_read_off_by_one(x, out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    out[i] = s[i] + s[i + 1]  # planted


@planted(shared_read_off_by_one, IndexError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def shared_2d_halo(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[ty, tx + 1] - tile[ty, tx]  # planted: no halo column


@planted(shared_2d_halo, IndexError)
def _(kernel):
    kernel[1, (TILE, TILE)](np.zeros((TILE, TILE), np.float32), np.zeros((TILE, TILE), np.float32))


def dynamic_shared_too_small(x, out):
    s = cuda.shared.array(0, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]  # planted: the launch gives 16 floats to 32 threads
    cuda.syncthreads()
    out[i] = s[i]


@planted(dynamic_shared_too_small, IndexError)
def _(kernel):
    kernel[1, 32, 0, 16 * 4](f32(32), f32(32))


def dynamic_shared_read_past_end(x, out):
    s = cuda.shared.array(0, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    out[i] = s[cuda.blockDim.x - i]  # planted: thread 0 reads s[blockDim.x]


@planted(dynamic_shared_read_past_end, IndexError)
def _(kernel):
    kernel[1, 32, 0, 32 * 4](f32(32), f32(32))


def local_write_loop_off_by_one(out):
    scratch = cuda.local.array(4, float32)
    i = cuda.grid(1)
    for k in range(5):
        scratch[k] = i + k  # planted
    out[i] = scratch[0]


@planted(local_write_loop_off_by_one, IndexError)
def _(kernel):
    kernel[1, 32](f32(32))


def local_read_past_end(x, out):
    scratch = cuda.local.array(4, float32)
    i = cuda.grid(1)
    for k in range(4):
        scratch[k] = x[i] * k
    out[i] = scratch[i % 5]  # planted: % 5 where 4 was meant


@planted(local_read_past_end, IndexError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def const_read_past_end(out):
    c = cuda.const.array_like(CONSTANT)
    i = cuda.grid(1)
    out[i] = c[i]  # planted: 16 constants, 32 threads


@planted(const_read_past_end, IndexError)
def _(kernel):
    kernel[1, 32](f32(32))


def const_2d_read_past_end(out):
    c = cuda.const.array_like(CONSTANT_2D)
    i, j = cuda.threadIdx.x, cuda.threadIdx.y
    out[j, i] = c[j, i + 1]  # planted


@planted(const_2d_read_past_end, IndexError)
def _(kernel):
    kernel[1, (6, 4)](np.zeros((4, 6), np.float32))


# -- shared memory races


def race_read_without_barrier(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]  # planted
    if i > 0:
        out[i] = s[i - 1]  # planted: no syncthreads after the writes


@planted(race_read_without_barrier, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def race_one_thread_fills(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    if i == 0:
        for k in range(64):
            s[k] = x[k]  # planted
    out[i] = s[i]  # planted: no syncthreads after thread 0's writes


@planted(race_one_thread_fills, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def race_write_write(x, out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    s[i // 2] = x[i]  # planted: two threads to each element
    cuda.syncthreads()
    if i < 32:
        out[i] = s[i // 2]


@planted(race_write_write, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](distinct(64), f32(64))  # two different values to one element: a store of the same one is benign


def race_write_write_across_warps(x, out):
    s = cuda.shared.array(1, float32)
    i = cuda.threadIdx.x
    if i % 32 == 0:
        s[0] = x[i]  # planted: lane 0 of each warp
    cuda.syncthreads()
    out[i] = s[0]


@planted(race_write_write_across_warps, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](distinct(64), f32(64))


def race_rotate_in_place(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    v = s[(i + 1) % 64]  # planted
    s[i] = v  # planted: no syncthreads between the reads and the writes
    cuda.syncthreads()
    out[i] = s[i]


@planted(race_rotate_in_place, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def race_tree_reduction_registers(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    v = x[i]
    s[i] = v
    cuda.syncthreads()
    step = 32
    while step > 0:
        if i < step:
            v += s[i + step]  # planted
            s[i] = v  # planted: no syncthreads at the end of each step
        step //= 2
    if i == 0:
        out[0] = v


@planted(race_tree_reduction_registers, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](f32(64, 1.0), f32(1))


def race_tree_reduction(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    step = 32
    while step > 0:
        if i < step:
            s[i] += s[i + step]  # planted: no syncthreads at the end of each step
        step //= 2
    if i == 0:
        out[0] = s[0]


@planted(
    race_tree_reduction,
    SharedMemoryRace,
)
def _(kernel):
    kernel[1, 64](f32(64, 1.0), f32(1))


def race_matmul_missing_second_barrier(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0)
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[ty, t * TILE + tx]  # planted
        sb[ty, tx] = b[t * TILE + ty, tx]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]  # planted: the next tile overwrites what others still read
    c[ty, tx] = acc


@planted(race_matmul_missing_second_barrier, SharedMemoryRace)
def _(kernel):
    a = np.ones((TILE, 2 * TILE), np.float32)
    kernel[1, (TILE, TILE)](a, a.T.copy(), np.zeros((TILE, TILE), np.float32))


def race_syncwarp_across_warps(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]  # planted
    cuda.syncwarp(FULL)
    if i >= 32:
        out[i] = s[i - 32]  # planted: a syncwarp orders one warp's lanes, not two warps


@planted(race_syncwarp_across_warps, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def race_syncwarp_half_masks(x, out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]  # planted
    if i < 16:
        cuda.syncwarp(0x0000FFFF)
    else:
        cuda.syncwarp(0xFFFF0000)
    out[i] = s[i ^ 16]  # planted: each half synchronized only with itself


@planted(
    race_syncwarp_half_masks,
    SharedMemoryRace,
)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def race_lost_update(out):
    count = cuda.shared.array(1, int32)
    i = cuda.threadIdx.x
    if i == 0:
        count[0] = 0
    cuda.syncthreads()
    count[0] = count[0] + 1  # planted: not atomic
    cuda.syncthreads()
    out[i] = count[0]


@planted(race_lost_update, SharedMemoryRace)
def _(kernel):
    kernel[1, 64](i32(64))


def race_plain_read_of_atomic_counts(x, out):
    bins = cuda.shared.array(4, int32)
    i = cuda.threadIdx.x
    if i < 4:
        bins[i] = 0
    cuda.syncthreads()
    cuda.atomic.add(bins, x[i] % 4, 1)  # planted
    if i < 4:
        out[i] = bins[i]  # planted: no syncthreads after the other threads' atomic adds


@planted(
    race_plain_read_of_atomic_counts,
    SharedMemoryRace,
    xfail="by design (codegen/cpu/runtime.ll, __sim.access) an access racing with an atomic one is not "
    "reported, so that a compare-and-swap loop may read its guess plainly",
)
def _(kernel):
    kernel[1, 64](np.arange(64, dtype=np.int32), i32(4))


# -- missing barriers seen as reads of shared memory nobody wrote, and uninitialised reads


def uninitialised_missing_barrier(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    out[i] = s[63 - i]  # planted: no syncthreads; thread 0 reads before thread 63 writes


@planted(uninitialised_missing_barrier, UninitializedSharedRead)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def uninitialised_missing_first_barrier(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    step = 32
    while step > 0:
        if i < step:
            s[i] += s[i + step]  # planted: no syncthreads after loading s
        cuda.syncthreads()
        step //= 2
    if i == 0:
        out[0] = s[0]


@planted(uninitialised_missing_first_barrier, UninitializedSharedRead)
def _(kernel):
    kernel[1, 64](f32(64), f32(1))


def uninitialised_partial(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    if i < 32:
        s[i] = x[i]
    cuda.syncthreads()
    out[i] = s[i]  # planted: threads 32 to 63 read what nobody wrote


@planted(uninitialised_partial, UninitializedSharedRead)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def uninitialised_halo(x, out):
    s = cuda.shared.array(34, float32)
    i = cuda.threadIdx.x
    g = cuda.grid(1)
    s[i + 1] = x[g]
    if i == 0:
        s[0] = x[g - 1] if g > 0 else 0
    cuda.syncthreads()
    out[g] = s[i] + s[i + 2]  # planted: the right halo s[33] is never loaded


@planted(uninitialised_halo, UninitializedSharedRead)
def _(kernel):
    kernel[2, 32](f32(64), f32(64))


def uninitialised_dynamic(out):
    s = cuda.shared.array(0, float32)
    i = cuda.threadIdx.x
    out[i] = s[i]  # planted: the dynamic shared memory is never written


@planted(uninitialised_dynamic, UninitializedSharedRead)
def _(kernel):
    kernel[1, 32, 0, 32 * 4](f32(32))


def uninitialised_in_later_block(x, out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    if cuda.blockIdx.x == 0:
        s[i] = x[i]
    cuda.syncthreads()
    out[cuda.grid(1)] = s[i]  # planted: shared memory is the block's own, block 1 wrote none


@planted(uninitialised_in_later_block, UninitializedSharedRead)
def _(kernel):
    kernel[2, 32](f32(32), f32(64))


def uninitialised_complex_missing_barrier(x, out):
    s = cuda.shared.array(32, np.complex64)
    i = cuda.threadIdx.x
    s[i] = x[i]  # complex numbers stored whole: all of each element's bytes written
    out[i] = s[31 - i]  # planted: no syncthreads; thread 0 reads before thread 31 writes


@planted(uninitialised_complex_missing_barrier, UninitializedSharedRead)
def _(kernel):
    kernel[1, 32](np.ones(32, np.complex64), np.zeros(32, np.complex64))


# -- divergent barriers


def divergent_if_else(x, out):
    i = cuda.threadIdx.x
    if i < 16:
        cuda.syncthreads()  # planted
        out[i] = x[i]
    else:
        out[i] = -x[i]
        cuda.syncthreads()  # planted: another barrier than the if branch's


@planted(divergent_if_else, DivergentBarrierError)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def divergent_loop_trip_count(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    for _ in range(i % 3):
        cuda.syncthreads()  # planted: thread-dependent number of barriers
    cuda.syncthreads()  # planted
    out[i] = s[63 - i]


@planted(divergent_loop_trip_count, DivergentBarrierError)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


def divergent_second_warp(x, out):
    i = cuda.threadIdx.x
    if i // 32 == 0:
        cuda.syncthreads()  # planted
    out[i] = x[i]
    cuda.syncthreads()  # planted


@planted(divergent_second_warp, DivergentBarrierError)
def _(kernel):
    kernel[1, 64](f32(64), f32(64))


# -- warp masks


def mask_shfl_after_early_return(x, out):
    i = cuda.threadIdx.x
    if i >= 16:
        return
    out[i] = cuda.shfl_sync(FULL, x[i], 0)  # planted: lanes 16 to 31 have returned


@planted(mask_shfl_after_early_return, WarpMaskError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def mask_ballot_after_early_return(x, out):
    i = cuda.threadIdx.x
    if x[i] < 0:
        return
    out[i] = cuda.ballot_sync(FULL, x[i] > 1)  # planted: lanes with x < 0 have returned


@planted(mask_ballot_after_early_return, WarpMaskError)
def _(kernel):
    x = np.where(np.arange(32) % 4 == 3, -1, 2).astype(np.float32)
    kernel[1, 32](x, np.zeros(32, np.uint32))


def mask_all_after_early_return(x, out):
    i = cuda.threadIdx.x
    if i % 2 == 1:
        return
    out[i] = cuda.all_sync(FULL, x[i] > 0)  # planted: the odd lanes have returned


@planted(mask_all_after_early_return, WarpMaskError)
def _(kernel):
    kernel[1, 32](f32(32, 1.0), i32(32))


def mask_shfl_down_reduction_after_return(x, out):
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL, v, offset)  # planted: the last warp is partly gone
        offset //= 2
    if i % 32 == 0:
        out[i // 32] = v


@planted(mask_shfl_down_reduction_after_return, WarpMaskError)
def _(kernel):
    kernel[1, 64](f32(48, 1.0), f32(2))


def mask_without_calling_lane(x, out):
    i = cuda.threadIdx.x
    out[i] = cuda.shfl_sync(0x0000FFFF, x[i], 0)  # planted: lanes 16 to 31 call with the low half's mask


@planted(mask_without_calling_lane, WarpMaskError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def mask_syncwarp_after_early_return(x, out):
    s = cuda.shared.array(32, float32)
    i = cuda.threadIdx.x
    if i >= 24:
        return
    s[i] = x[i]
    cuda.syncwarp(FULL)  # planted: lanes 24 to 31 have returned
    out[i] = s[(i + 1) % 24]


@planted(mask_syncwarp_after_early_return, WarpMaskError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


# -- deadlocks


def deadlock_shfl_and_barrier(x, out):
    i = cuda.threadIdx.x
    if i == 0:
        cuda.syncthreads()  # planted
    else:
        out[i] = cuda.shfl_sync(FULL, x[i], 1)  # planted: waits for lane 0, held at the barrier


@planted(deadlock_shfl_and_barrier, DeadlockError)
def _(kernel):
    kernel[1, 32](f32(32), f32(32))


def deadlock_ballot_and_barrier(x, out):
    i = cuda.threadIdx.x
    if i < 16:
        out[i] = cuda.ballot_sync(FULL, x[i] > 0)  # planted: lanes 16 to 31 never take part
    cuda.syncthreads()  # planted


@planted(deadlock_ballot_and_barrier, DeadlockError)
def _(kernel):
    kernel[1, 32](f32(32), np.zeros(32, np.uint32))


def deadlock_different_warp_operations(x, out):
    i = cuda.threadIdx.x
    if i < 16:
        out[i] = cuda.ballot_sync(FULL, x[i] > 0)  # planted
    else:
        out[i] = cuda.shfl_sync(FULL, x[i], 0)  # planted: another operation with the same mask


@planted(deadlock_different_warp_operations, DeadlockError)
def _(kernel):
    kernel[1, 32](i32(32), np.zeros(32, np.uint32))


@pytest.mark.parametrize("kernel, launch, error", PLANTED)
def test_planted_bug(kernel, launch, error):
    compiled = cuda.jit(kernel)
    try:
        launch(compiled)
    except (IndexError, SimulatorError) as e:
        caught = e
    else:
        pytest.fail(f"{kernel.__name__}: the simulator raised nothing")
    assert type(caught) is error, f"{type(caught).__name__}: {caught}"
    message = str(caught)
    name = os.path.basename(inspect.getsourcefile(kernel))
    for line in planted_lines(kernel):
        assert re.search(rf"{re.escape(name)}:{line}(?!\d)", message), f"line {line} not named in: {message}"


def test_enough_planted_bugs():
    assert len(PLANTED) >= 30


# ---- no false positives: correct kernels using the same features raise nothing and agree
# with NumPy (outputs poisoned before the launch)


def matmul_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0)
    for t in range((a.shape[1] + TILE - 1) // TILE):
        k = t * TILE + tx
        sa[ty, tx] = a[row, k] if row < a.shape[0] and k < a.shape[1] else 0
        k = t * TILE + ty
        sb[ty, tx] = b[k, col] if k < b.shape[0] and col < b.shape[1] else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


def test_matmul_tiled(rng):
    a = rng.standard_normal((19, 21)).astype(np.float32)
    b = rng.standard_normal((21, 13)).astype(np.float32)
    c = np.full((19, 13), np.nan, np.float32)
    cuda.jit(matmul_tiled)[(2, 3), (TILE, TILE)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def block_sum(x, out):
    s = cuda.shared.array(128, float32)
    i = cuda.threadIdx.x
    g = cuda.grid(1)
    s[i] = x[g] if g < x.shape[0] else 0
    cuda.syncthreads()
    step = 64
    while step >= 32:
        if i < step:
            s[i] += s[i + step]
        cuda.syncthreads()
        step //= 2
    if i < 32:  # the last 32 partial sums: one warp, by shuffles
        v = s[i]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL, v, offset)
            offset //= 2
        if i == 0:
            out[cuda.blockIdx.x] = v


def test_reduction_barriers_then_shuffles(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    out = f32(8, np.nan)
    cuda.jit(block_sum)[8, 128](x, out)
    expected = np.add.reduceat(np.concatenate([x, np.zeros(24, np.float32)]), np.arange(0, 1024, 128))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def histogram(x, bins):
    local = cuda.shared.array(16, int32)
    i = cuda.threadIdx.x
    if i < 16:
        local[i] = 0
    cuda.syncthreads()
    k = cuda.grid(1)
    while k < x.shape[0]:
        cuda.atomic.add(local, x[k] % 16, 1)
        k += cuda.gridsize(1)
    cuda.syncthreads()
    if i < 16:
        cuda.atomic.add(bins, i, local[i])


def test_histogram_shared_atomics(rng):
    x = rng.integers(0, 1000, 5000).astype(np.int32)
    bins = i32(16)  # accumulated into: zero, not poisoned
    cuda.jit(histogram)[4, 64](x, bins)
    np.testing.assert_array_equal(bins, np.bincount(x % 16, minlength=16))


def inclusive_scan(x, out):
    s = cuda.shared.array(64, int32)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    offset = 1
    while offset < 64:
        v = s[i - offset] if i >= offset else 0
        cuda.syncthreads()
        s[i] += v
        cuda.syncthreads()
        offset *= 2
    out[i] = s[i]


def test_prefix_scan(rng):
    x = rng.integers(-100, 100, 64).astype(np.int32)
    out = i32(64, -(2**31))
    cuda.jit(inclusive_scan)[1, 64](x, out)
    np.testing.assert_array_equal(out, np.cumsum(x))


def early_return_tail(x, out):
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    v = x[i]
    for _ in range(3):
        v = v * v - 1
    out[i] = v


def test_early_return_before_barrier_free_tail(rng):
    x = rng.uniform(-1, 1, 70).astype(np.float32)
    out = f32(80, np.nan)
    cuda.jit(early_return_tail)[3, 32](x, out)
    expected = x.copy()
    for _ in range(3):
        expected = expected * expected - 1
    np.testing.assert_allclose(out[:70], expected, rtol=1e-5, atol=1e-6)
    assert np.isnan(out[70:]).all()


def warp_votes(x, ballots, alls, anys, uniform):
    i = cuda.grid(1)
    positive = x[i] > 0
    b = cuda.ballot_sync(FULL, positive)
    a = cuda.all_sync(FULL, positive)
    n = cuda.any_sync(FULL, positive)
    u = cuda.eq_sync(FULL, x[i] > -10)
    if i % 32 == 0:
        ballots[i // 32] = b
        alls[i // 32] = a
        anys[i // 32] = n
        uniform[i // 32] = u


def test_warp_votes_full_warps(rng):
    x = rng.standard_normal(128).astype(np.float32)
    x[32:64] = np.abs(x[32:64]) + 1  # a warp all positive
    x[64:96] = -np.abs(x[64:96]) - 1  # a warp none positive
    ballots = np.full(4, 0xDEADBEEF, np.uint32)
    alls, anys, uniform = i32(4, -1), i32(4, -1), i32(4, -1)
    cuda.jit(warp_votes)[2, 64](x, ballots, alls, anys, uniform)
    warps = (x > 0).reshape(4, 32)
    expected = (warps * (1 << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(ballots, expected)
    np.testing.assert_array_equal(alls != 0, warps.all(axis=1))
    np.testing.assert_array_equal(anys != 0, warps.any(axis=1))
    np.testing.assert_array_equal(uniform != 0, [True] * 4)


def warp_sum_syncwarp(x, out):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    lane = i % 32
    base = i - lane
    s[i] = x[cuda.grid(1)]
    cuda.syncwarp(FULL)
    offset = 16
    while offset > 0:
        v = float32(0)
        if lane < offset:
            v = s[i] + s[i + offset]
        cuda.syncwarp(FULL)
        if lane < offset:
            s[i] = v
        cuda.syncwarp(FULL)
        offset //= 2
    if lane == 0:
        out[cuda.grid(1) // 32] = s[base]


def test_syncwarp_ordered_warp_reduction(rng):
    x = rng.standard_normal(256).astype(np.float32)
    out = f32(8, np.nan)
    cuda.jit(warp_sum_syncwarp)[4, 64](x, out)
    np.testing.assert_allclose(out, x.reshape(8, 32).sum(axis=1), rtol=1e-5, atol=1e-5)


def butterfly_max(x, out):
    i = cuda.grid(1)
    v = x[i]
    mask = 16
    while mask > 0:
        v = max(v, cuda.shfl_xor_sync(FULL, v, mask))
        mask //= 2
    out[i] = v


def test_butterfly_all_reduce(rng):
    x = rng.standard_normal(96).astype(np.float32)
    out = f32(96, np.nan)
    cuda.jit(butterfly_max)[1, 96](x, out)
    np.testing.assert_array_equal(out, np.repeat(x.reshape(3, 32).max(axis=1), 32))


def reverse_dynamic(x, out):
    s = cuda.shared.array(0, float32)
    i = cuda.threadIdx.x
    g = cuda.grid(1)
    s[i] = x[g]
    cuda.syncthreads()
    out[g] = s[cuda.blockDim.x - 1 - i]


def test_dynamic_shared_memory(rng):
    x = rng.standard_normal(192).astype(np.float32)
    out = f32(192, np.nan)
    cuda.jit(reverse_dynamic)[3, 64, 0, 64 * 4](x, out)
    np.testing.assert_array_equal(out, x.reshape(3, 64)[:, ::-1].ravel())


def complex_parts_of_shared(x, parts):
    s = cuda.shared.array(64, np.complex128)
    i = cuda.threadIdx.x
    s[i] = x[i]  # written whole, read by part: the parts' bytes are the element's
    cuda.syncthreads()
    parts[0, i] = s.real[63 - i]
    parts[1, i] = s.imag[63 - i]
    parts[2, i] = s[i ^ 1].imag


def test_complex_elements_of_shared_memory_read_by_part(rng):
    x = rng.standard_normal(64) + 1j * rng.standard_normal(64)
    parts = np.full((3, 64), np.nan)
    cuda.jit(complex_parts_of_shared)[1, 64](x, parts)
    np.testing.assert_array_equal(parts, [x.real[::-1], x.imag[::-1], x.imag[np.arange(64) ^ 1]])


def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[tx, ty]


def test_transpose_2d_blocks(rng):
    a = rng.standard_normal((20, 13)).astype(np.float32)
    out = np.full((13, 20), np.nan, np.float32)
    cuda.jit(transpose_padded)[(2, 3), (TILE, TILE)](a, out)
    np.testing.assert_array_equal(out, a.T)


def transpose_block_3d(a, out):
    s = cuda.shared.array((4, 4, 4), float32)
    x, y, z = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    gz = cuda.blockIdx.z * 4
    gx = cuda.blockIdx.x * 4
    s[z, y, x] = a[gz + z, y, gx + x]
    cuda.syncthreads()
    out[gz + z, y, gx + x] = s[x, y, z] + z * 100 + y * 10 + x


def test_3d_blocks(rng):
    a = rng.standard_normal((8, 4, 8)).astype(np.float32)
    out = np.full_like(a, np.nan)
    cuda.jit(transpose_block_3d)[(2, 1, 2), (4, 4, 4)](a, out)
    z, y, x = np.meshgrid(np.arange(4), np.arange(4), np.arange(4), indexing="ij")
    expected = np.empty_like(a)
    for bz in range(2):
        for bx in range(2):
            block = a[4 * bz : 4 * bz + 4, :, 4 * bx : 4 * bx + 4]
            expected[4 * bz : 4 * bz + 4, :, 4 * bx : 4 * bx + 4] = block.transpose(2, 1, 0) + z * 100 + y * 10 + x
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def sort_rows_locally(x, out):
    row = cuda.grid(1)
    if row >= x.shape[0]:
        return
    values = cuda.local.array(6, float32)
    for k in range(6):
        values[k] = x[row, k]
    for k in range(1, 6):  # insertion sort
        v = values[k]
        j = k - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    for k in range(6):
        out[row, k] = values[k]


def test_local_arrays(rng):
    x = rng.standard_normal((50, 6)).astype(np.float32)
    out = np.full_like(x, np.nan)
    cuda.jit(sort_rows_locally)[2, 32](x, out)
    np.testing.assert_array_equal(out, np.sort(x, axis=1))


def convolve_const_halo(x, out):
    taps = cuda.const.array_like(TAPS)
    s = cuda.shared.array(36, float32)  # 32 and a halo of 2 each side
    i = cuda.threadIdx.x
    g = cuda.grid(1)
    n = x.shape[0]
    s[i + 2] = x[g] if g < n else 0
    if i < 2:
        left = g - 2
        s[i] = x[left] if left >= 0 else 0
        right = g + 32
        s[i + 34] = x[right] if right < n else 0
    cuda.syncthreads()
    if g < n:
        acc = float32(0)
        for k in range(5):
            acc += taps[k] * s[i + k]
        out[g] = acc


def test_constant_filter_with_shared_halo(rng):
    x = rng.standard_normal(100).astype(np.float32)
    out = f32(100, np.nan)
    cuda.jit(convolve_const_halo)[4, 32](x, out)
    np.testing.assert_allclose(out, np.convolve(x, TAPS[::-1], mode="same"), rtol=1e-5, atol=1e-6)


def block_counts(x, counts, any_negative, all_small):
    i = cuda.grid(1)
    v = x[i]
    c = cuda.syncthreads_count(v > 0)
    o = cuda.syncthreads_or(v < 0)
    a = cuda.syncthreads_and(abs(v) < 10)
    if cuda.threadIdx.x == 0:
        counts[cuda.blockIdx.x] = c
        any_negative[cuda.blockIdx.x] = o
        all_small[cuda.blockIdx.x] = a


def test_barrier_counts_several_blocks(rng):
    x = rng.standard_normal(6 * 48).astype(np.float32)
    x[:48] = np.abs(x[:48])  # a block with no negative value
    counts, any_negative, all_small = i32(6, -1), i32(6, -1), i32(6, -1)
    cuda.jit(block_counts)[6, 48](x, counts, any_negative, all_small)
    blocks = x.reshape(6, 48)
    np.testing.assert_array_equal(counts, (blocks > 0).sum(axis=1))
    np.testing.assert_array_equal(any_negative != 0, (blocks < 0).any(axis=1))
    np.testing.assert_array_equal(all_small != 0, [True] * 6)


def saxpy_grid_stride(a, x, y, out):
    k = cuda.grid(1)
    while k < x.shape[0]:
        out[k] = a * x[k] + y[k]
        k += cuda.gridsize(1)


def test_grid_stride_several_blocks(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    out = f32(1000, np.nan)
    cuda.jit(saxpy_grid_stride)[3, 64](np.float32(1.5), x, y, out)
    np.testing.assert_allclose(out, np.float32(1.5) * x + y, rtol=1e-6)


def partial_warp_shuffle(x, out):
    i = cuda.threadIdx.x
    mask = cuda.ballot_sync(FULL, True)  # the lanes of a partial last warp
    out[i] = cuda.shfl_sync(mask, x[i], 0) + cuda.popc(mask)


def test_partial_warp(rng):
    x = rng.standard_normal(48).astype(np.float32)
    out = f32(48, np.nan)
    cuda.jit(partial_warp_shuffle)[1, 48](x, out)
    np.testing.assert_array_equal(out, np.concatenate([np.full(32, x[0] + 32), np.full(16, x[32] + 16)]))
