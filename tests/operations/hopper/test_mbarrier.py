"""Hopper's cluster, mbarrier and cp.async intrinsics (cuda.intrin, docs/hopper.md): the PTX
each gives on both code generators, checked by ptxas; the chips and PTX versions they need;
their bad arguments."""

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


def test_cluster_registers_barriers_and_mapa(backend):
    ptx, _ = cuda.compile_ptx(hk.cluster_exchange, "void(int32[:], int32[:, :])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    registers = re.findall(r"mov\.u32\s+%r\d+,\s*(%\w+(?:\.[xyz])?);", ptx)
    assert {
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%cluster_ctaid.x",
        "%cluster_nctaid.x",
        "%clusterid.x",
        "%nclusterid.x",
        "%cluster_ctaid.y",
        "%cluster_nctaid.z",
        "%clusterid.y",
    } <= set(registers)
    barriers = _instructions(ptx, r"barrier\.cluster")
    assert barriers == [
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
        "barrier.cluster.arrive.relaxed;",
        "barrier.cluster.wait;",
    ]
    # the neighbour's shared array is read through the address mapa gives
    (mapa,) = _instructions(ptx, r"^mapa\.u64")
    remote = re.match(r"mapa\.u64 (%rd\d+),", mapa).group(1)
    after = ptx.split(mapa, 1)[1]
    # a generic load: the address is another block's shared memory, not this block's
    assert re.search(rf"{remote}(?!\d)", after) and re.search(r"\tld\.[bus]32\s", after)


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


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def test_async_copies(backend, cc):
    ptx, _ = cuda.compile_ptx(hk.async_copies, "void(float32[:], float32[:])", cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert _instructions(ptx, r"^cp\.async") == [
        "cp.async.cg.shared.global [dst], [src], 16;",
        "cp.async.commit_group;",
        "cp.async.ca.shared.global [dst], [src], 8;",
        "cp.async.ca.shared.global [dst], [src], 4;",
        "cp.async.commit_group;",
        "cp.async.wait_group 1;",
        "cp.async.wait_all;",
    ]
    # shared and global addresses, from the arrays' generic ones
    assert len(_instructions(ptx, r"^cvta\.to\.shared\.u64 dst")) == 3


def test_the_names_are_cuda_intrin_stubs():
    assert intrin.mapa is intrin.mapa and intrin.cluster_ctarank.__name__ == "cluster_ctarank"
    with pytest.raises(RuntimeError, match="cuda.mbarrier_init can only be used inside"):
        intrin.mbarrier_init(None, 1)
    assert intrin.cp_async_bulk_load.__name__ == "cp_async_bulk_load"
    with pytest.raises(NotImplementedError, match="tcgen05_alloc.*Blackwell"):
        intrin.tcgen05_alloc


def _cluster_rank(out):
    out[0] = intrin.cluster_ctarank()


def _arrive_expect_tx(out):
    bar = cuda.shared.array(1, np.uint64)
    intrin.mbarrier_arrive_expect_tx(bar, 16)
    out[0] = 1


def test_an_intrinsic_on_an_older_chip_is_a_clear_error(backend):
    with pytest.raises(ValueError, match=r"intrin\.cluster_ctarank needs sm_90 or newer; .* compiled for sm_80"):
        cuda.compile_ptx(_cluster_rank, "void(int32[:])", cc=(8, 0), backend=backend)
    with pytest.raises(ValueError, match=r"intrin\.cp_async needs sm_80 or newer; .* compiled for sm_75"):
        cuda.compile_ptx(hk.async_copies, "void(float32[:], float32[:])", cc=(7, 5), backend=backend)


def test_an_older_ptx_version_asked_for_is_a_clear_error():
    with pytest.raises(ValueError, match=r"intrin\.mbarrier_arrive_expect_tx needs PTX ISA 8\.0; .*'\+ptx78'"):
        cuda.compile_ptx(_arrive_expect_tx, "void(int32[:])", cc=(9, 0), backend="nvptx", features="+ptx78")
    ptx, _ = cuda.compile_ptx(_arrive_expect_tx, "void(int32[:])", cc=(9, 0), backend="nvptx", features="+ptx83")
    assert _ptx_version(ptx) == ("8", "3")


def _bad(body, signature="void(float32[:], int64[:])"):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np}
    exec(f"def kernel(a, b):\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], signature, cc=(9, 0))


@pytest.mark.parametrize(
    "body, message",
    [
        ("intrin.mbarrier_init(a, 1)", r"barrier must be an array of 64-bit integers"),
        ("intrin.mbarrier_init(b, 1.5)", r"mbarrier_init: the count must be an integer"),
        ("intrin.mbarrier_try_wait(b[0], 0)", r"barrier must be an array of 64-bit integers"),
        ("intrin.mbarrier_arrive_cluster(a, 1)", r"barrier must be an array of 64-bit integers"),
        ("intrin.mbarrier_arrive_cluster(b, 1.5)", r"mbarrier_arrive_cluster: the rank must be an integer"),
        ("intrin.cp_async(a, a, 3)", r"nbytes must be the literal 4, 8 or 16"),
        ("intrin.cp_async(a, a, b[0])", r"nbytes must be the literal 4, 8 or 16"),
        ("intrin.cp_async(a[0], a, 4)", r"dst \(a cuda.shared.array\) must be an array of numbers"),
        ("intrin.cp_async_wait_group(8)", r"n must be a literal from 0 to 7"),
        ("b[0] = intrin.cluster_ctaid(3)", r"the axis must be the literal 0, 1 or 2"),
        ("b[0] = intrin.mapa(a, 1.0)[0]", r"mapa\(array, rank\): the rank must be an integer"),
        ("b[0] = intrin.mapa(b[0], 1)", r"the array \(a cuda.shared.array\) or a pointer must be an array"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()


def test_mapa_of_a_pointer_is_a_pointer(backend):
    from numba.core import types

    def through_pointer(p, out):
        out[0] = intrin.mapa(p, 1)[0]

    signature = (types.CPointer(types.int32), types.int32[:])
    ptx, _ = cuda.compile_ptx(through_pointer, signature, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^mapa\.u64 %rd\d+, %rd\d+, %r\d+;")) == 1
