"""Hopper's mbarrier intrinsics (operations/hopper/mbarrier.py, cuda.intrin, docs/hopper.md): the
PTX each gives on both code generators, checked by ptxas; the chips and PTX versions they need;
their bad arguments. The cluster's intrinsics are test_cluster.py's, cp.async's
tests/operations/cuda/test_cp_async.py's."""

import re

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.cuda import intrin

from ... import support
from ...cases import hopper_kernels as hk


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _ptx_version(ptx):
    return re.search(r"^\.version (\d+)\.(\d+)", ptx, re.M).groups()


def test_mbarriers(backend):
    ptx, _ = cuda.compile_ptx(hk.mbarrier_handoff, "void(float32[:], float32[:], int32)", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^mbarrier\.init\.b64 \[%rd\d+\], %r\d+;")) == 1
    assert _instructions(ptx, r"^fence\.mbarrier_init") == ["fence.mbarrier_init.release.cluster;"]
    assert len(_instructions(ptx, r"^mbarrier\.arrive\.b64 %rd\d+, \[%rd\d+\];")) >= 1
    assert len(_instructions(ptx, r"^mbarrier\.try_wait\.parity\.b64 done, \[%rd\d+\], %r\d+;")) >= 1
    tx, _ = cuda.compile_ptx(hk.expect_tx_zero, "void(int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(tx, "sm_90")
    assert len(_instructions(tx, r"^mbarrier\.arrive\.expect_tx\.b64 _, \[%rd\d+\], %r\d+;")) == 1
    # fence.mbarrier_init and expect_tx are PTX 8.0's: LLVM's NVPTX writes that version for them
    assert tuple(map(int, _ptx_version(ptx))) >= (8, 0)


def test_an_arrival_at_another_blocks_mbarrier(backend):
    ptx, _ = cuda.compile_ptx(hk.remote_arrivals, "void(int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    # the barrier's shared::cta address, mapped to the rank's block, and a release there
    assert len(_instructions(ptx, r"^cvta\.to\.shared\.u64 cta64, %rd\d+;")) == 2
    assert len(_instructions(ptx, r"^mapa\.shared::cluster\.u32 remote, cta, %r\d+;")) == 2
    assert len(_instructions(ptx, r"^mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _, \[remote\];")) == 2
    assert tuple(map(int, _ptx_version(ptx))) >= (8, 0)


def test_an_arrival_at_another_block_needs_sm_90(backend):
    def kernel(rank):
        bar = cuda.shared.array(1, np.uint64)
        intrin.mbarrier_arrive_cluster(bar, rank)

    with pytest.raises(ValueError, match=r"intrin\.mbarrier_arrive_cluster needs sm_90 or newer"):
        cuda.compile_ptx(kernel, "void(int32)", cc=(8, 0), backend=backend)


def test_a_wait_inlined_twice_keeps_its_labels_apart(backend):
    def two_waits(out):
        bar = cuda.shared.array(1, np.uint64)
        intrin.mbarrier_init(bar, 1)
        intrin.mbarrier_arrive(bar)
        intrin.mbarrier_try_wait(bar, 0)
        intrin.mbarrier_arrive(bar)
        intrin.mbarrier_try_wait(bar, 1)
        out[0] = 1

    ptx, _ = cuda.compile_ptx(two_waits, "void(int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^mbarrier\.try_wait\.parity")) == 2


def test_the_names_are_cuda_intrin_stubs():
    assert intrin.mapa is intrin.mapa and intrin.cluster_ctarank.__name__ == "cluster_ctarank"
    with pytest.raises(RuntimeError, match="cuda.mbarrier_init can only be used inside"):
        intrin.mbarrier_init(None, 1)
    assert intrin.cp_async_bulk_load.__name__ == "cp_async_bulk_load"
    with pytest.raises(NotImplementedError, match="tcgen05_alloc.*Blackwell"):
        intrin.tcgen05_alloc


def _arrive_expect_tx(out):
    bar = cuda.shared.array(1, np.uint64)
    intrin.mbarrier_arrive_expect_tx(bar, 16)
    out[0] = 1


def test_an_older_ptx_version_asked_for_is_a_clear_error():
    with pytest.raises(ValueError, match=r"intrin\.mbarrier_arrive_expect_tx needs PTX ISA 8\.0; .*'\+ptx78'"):
        cuda.compile_ptx(_arrive_expect_tx, "void(int32[:])", cc=(9, 0), backend="nvptx", features="+ptx78")
    ptx, _ = cuda.compile_ptx(_arrive_expect_tx, "void(int32[:])", cc=(9, 0), backend="nvptx", features="+ptx83")
    assert _ptx_version(ptx) == ("8", "3")


def _bad(body, signature="void(float32[:], int64[:])"):
    return support.compiling(body, signature, intrin=intrin)


@pytest.mark.parametrize(
    "body, message",
    [
        ("intrin.mbarrier_init(a, 1)", r"barrier must be an array of 64-bit integers"),
        ("intrin.mbarrier_init(b, 1.5)", r"mbarrier_init: the count must be an integer"),
        ("intrin.mbarrier_try_wait(b[0], 0)", r"barrier must be an array of 64-bit integers"),
        ("intrin.mbarrier_arrive_cluster(a, 1)", r"barrier must be an array of 64-bit integers"),
        ("intrin.mbarrier_arrive_cluster(b, 1.5)", r"mbarrier_arrive_cluster: the rank must be an integer"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()
