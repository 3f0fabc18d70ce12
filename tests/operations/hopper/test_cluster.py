"""Thread-block clusters (operations/hopper/cluster.py, docs/hopper.md) on the CPU: each cluster
register read from its own PTX special register as an int32, the cluster barrier's arrive, relaxed
arrive and wait ordering the memory accesses around them, mapa of a shared array, of a view of it
and of a pointer, on both code generators and checked by ptxas; the chip and PTX version each
needs; bad arguments as typing errors. Their values on an H200 are test_cluster_gpu.py's."""

import pickle
import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.cuda import intrin

from ... import support
from ...cases import hopper_kernels as hk

# (the call, the PTX special register it reads)
REGISTERS = [
    ("cluster_ctarank()", "%cluster_ctarank"),
    ("cluster_nctarank()", "%cluster_nctarank"),
    ("block_idx_in_cluster()", "%cluster_ctaid.x"),
] + [
    (f"{name}({axis})", f"%{name}.{'xyz'[axis]}")
    for name in ("cluster_ctaid", "cluster_nctaid", "clusterid", "nclusterid")
    for axis in range(3)
]


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _ptx_version(ptx):
    return re.search(r"^\.version (\d+)\.(\d+)", ptx, re.M).groups()


def _kernel(body, params="out"):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np}
    exec(f"def kernel({params}):\n    " + "\n    ".join(body.splitlines()) + "\n", namespace)
    return namespace["kernel"]


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


@pytest.mark.parametrize("call, register", REGISTERS, ids=[call for call, _ in REGISTERS])
def test_each_register_reads_its_own_special_register(backend, call, register):
    ptx, _ = cuda.compile_ptx(_kernel(f"out[0] = intrin.{call}"), "void(int32[::1])", cc=(9, 0), backend=backend)
    # one read, of that register and no other of the cluster's
    assert _instructions(ptx, r"^mov\.u32\s+%r\d+,\s*%\w*cluster") == [
        re.search(r"mov\.u32\s+%r\d+,\s*" + re.escape(register) + ";", ptx).group()
    ]


def test_every_register_is_an_int32():
    for call, _ in REGISTERS:
        device = _kernel(f"return intrin.{call}", params="")
        _, restype = cuda.compile_ptx(device, (), device=True, cc=(9, 0))
        assert restype == types.int32, call


def _barriers(out):
    box = cuda.shared.array(1, np.int32)
    box[0] = out[1]
    intrin.cluster_arrive()
    intrin.cluster_wait()
    out[0] = intrin.mapa(box, 0)[0]
    intrin.cluster_arrive_relaxed()
    intrin.cluster_wait()
    intrin.cluster_sync()


def test_the_barrier_orders_the_accesses_around_it(backend):
    ptx, _ = cuda.compile_ptx(_barriers, "void(int32[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    # cluster_sync() is arrive then wait
    assert _instructions(ptx, r"barrier\.cluster") == [
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
        "barrier.cluster.arrive.relaxed;",
        "barrier.cluster.wait;",
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
    ]
    lines = [line.strip() for line in ptx.splitlines()]

    def first(pattern):
        return next(k for k, line in enumerate(lines) if re.search(pattern, line))

    # the store released by the arrival comes before it, the read of what the cluster wrote
    # after the wait: neither crosses the barrier
    assert first(r"^st\.shared") < first(r"^barrier\.cluster\.arrive;") < first(r"^barrier\.cluster\.wait;")
    assert first(r"^barrier\.cluster\.wait;") < first(r"^mapa\.u64") < first(r"^ld\.[bus]32\s+%r\d+, \[%rd\d+\]")


def _ptx_78_calls(out):
    box = cuda.shared.array(4, np.int32)
    box[0] = intrin.cluster_ctarank() + intrin.cluster_nctaid(1) + intrin.block_idx_in_cluster()
    intrin.cluster_sync()
    out[0] = intrin.mapa(box, 0)[0]
    intrin.cluster_arrive()
    intrin.cluster_wait()


def test_a_relaxed_arrival_needs_ptx_8_0_the_others_7_8():
    relaxed = _kernel("intrin.cluster_arrive_relaxed()\nintrin.cluster_wait()")
    with pytest.raises(ValueError, match=r"intrin\.cluster_arrive_relaxed needs PTX ISA 8\.0; .*'\+ptx78'"):
        cuda.compile_ptx(relaxed, "void(int32[:])", cc=(9, 0), backend="nvptx", features="+ptx78")
    # the rest of the module is PTX 7.8's
    ptx, _ = cuda.compile_ptx(_ptx_78_calls, "void(int32[::1])", cc=(9, 0), backend="nvptx", features="+ptx78")
    assert _ptx_version(ptx) == ("7", "8")
    support.ptxas(ptx, "sm_90")


def _cluster_rank(out):
    out[0] = intrin.cluster_ctarank()


def test_a_cluster_register_on_an_older_chip_is_a_clear_error(backend):
    with pytest.raises(ValueError, match=r"intrin\.cluster_ctarank needs sm_90 or newer; .* compiled for sm_80"):
        cuda.compile_ptx(_cluster_rank, "void(int32[:])", cc=(8, 0), backend=backend)


@pytest.mark.parametrize(
    "body, name",
    [
        ("out[0] = intrin.nclusterid(2)", "nclusterid"),
        ("intrin.cluster_arrive()", "cluster_arrive"),
        ("intrin.cluster_arrive_relaxed()", "cluster_arrive_relaxed"),
        ("intrin.cluster_wait()", "cluster_wait"),
        ("intrin.cluster_sync()", "cluster_sync"),
        ("sm = cuda.shared.array(4, np.int32)\nout[0] = intrin.mapa(sm, 1)[0]", "mapa"),
    ],
)
def test_every_cluster_intrinsic_needs_sm_90(backend, body, name):
    with pytest.raises(ValueError, match=rf"intrin\.{name} needs sm_90 or newer; .* compiled for sm_80"):
        cuda.compile_ptx(_kernel(body), "void(int32[:])", cc=(8, 0), backend=backend)


def _view_of_a_neighbour(out):
    mine = cuda.shared.array((4, 8), np.int32)
    mine[1, 2] = out[0]
    intrin.cluster_sync()
    theirs = intrin.mapa(mine[1:, 2:], 1)
    out[0] = theirs[0, 0] + theirs[2, 5]
    intrin.cluster_sync()


def test_mapa_of_a_view_maps_its_first_element(backend):
    ptx, _ = cuda.compile_ptx(_view_of_a_neighbour, "void(int32[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    (mapa,) = _instructions(ptx, r"^mapa\.u64")
    remote, local = re.match(r"mapa\.u64 (%rd\d+), (%rd\d+), %r\d+;", mapa).groups()
    # the view's first element, mine[1, 2], is 4 * (8 + 2) bytes into the array: that address
    # moves to the other block ...
    assert re.search(rf"add\.s64\s+{local}, %rd\d+, 40;", ptx)
    # ... and the view's elements are counted from it: theirs[2, 5] 4 * (2 * 8 + 5) bytes on
    loads = re.findall(rf"ld\.[bus]32\s+%r\d+, \[{remote}(\+\d+)?\];", ptx)
    assert sorted(loads) == ["", "+84"]


@pytest.mark.parametrize("rank", ["int64", "uint8", "uint64", "int32"])
def test_the_rank_may_be_any_integer(backend, rank):
    sig = f"void(int32[::1], {rank})"
    kernel = _kernel("sm = cuda.shared.array(4, np.int32)\nout[0] = intrin.mapa(sm, r)[1]", params="out, r")
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    # the rank goes to mapa as a 32-bit register
    assert len(_instructions(ptx, r"^mapa\.u64 %rd\d+, %rd\d+, %r\d+;")) == 1


def test_mapa_of_a_pointer_is_a_pointer(backend):
    from numba.core import types

    def through_pointer(p, out):
        out[0] = intrin.mapa(p, 1)[0]

    signature = (types.CPointer(types.int32), types.int32[:])
    ptx, _ = cuda.compile_ptx(through_pointer, signature, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^mapa\.u64 %rd\d+, %rd\d+, %r\d+;")) == 1


def test_mapa_gives_the_type_it_is_given():
    def mapped(p, rank):
        return intrin.mapa(p, rank)

    pointer = types.CPointer(types.float64)
    _, restype = cuda.compile_ptx(mapped, (pointer, types.int64), device=True, cc=(9, 0))
    assert restype == pointer


def _bad(body, signature="void(float32[:], int64[:])"):
    return support.compiling(body, signature, intrin=intrin)


@pytest.mark.parametrize(
    "body, message",
    [
        ("b[0] = intrin.cluster_ctaid(3)", r"the axis must be the literal 0, 1 or 2"),
        ("b[0] = intrin.mapa(a, 1.0)[0]", r"mapa\(array, rank\): the rank must be an integer"),
        ("b[0] = intrin.mapa(b[0], 1)", r"the array \(a cuda.shared.array\) or a pointer must be an array"),
        ("b[0] = intrin.cluster_ctaid(-1)", r"cluster_ctaid\(axis\): the axis must be the literal 0, 1 or 2"),
        ("b[0] = intrin.clusterid(b[0])", r"clusterid\(axis\): the axis must be the literal 0, 1 or 2, got int64"),
        ("b[0] = intrin.nclusterid(1.0)", r"nclusterid\(axis\): the axis must be the literal 0, 1 or 2"),
        ("b[0] = intrin.cluster_nctaid()", r"missing a required argument: 'axis'"),
        ("b[0] = intrin.cluster_ctarank(1)", r"cluster_ctarank"),
        ("intrin.cluster_sync(1)", r"cluster_sync"),
        ("b[0] = intrin.mapa(a)[0]", r"missing a required argument: 'rank'"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()


def test_the_stubs_refuse_the_host_and_pickle_by_name():
    for stub in (intrin.cluster_sync, intrin.mapa, intrin.clusterid):
        with pytest.raises(RuntimeError, match=rf"cuda\.{stub.__name__} can only be used inside"):
            stub()
        assert pickle.loads(pickle.dumps(stub)) is stub
