"""elect.sync (operations/hopper/elect.py, cuda.intrin.elect_sync and elect_sync_mask,
docs/hopper.md) on the CPU: a boolean, the warp's whole mask or the one given (any integer type),
a convergent call on both code generators that stays where the kernel puts it (neither hoisted
above a branch, merged nor copied into the branches before it), checked by ptxas; the chip and
PTX version it needs; bad arguments. The lanes it elects on an H200 are test_elect_gpu.py's."""

import pickle
import re

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.cuda import intrin

from ... import support
from ...cases import wgmma_kernels as wk


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _mask_operand(ptx):
    """The membermask of the one elect.sync of *ptx*: a literal, or the constant moved into its register."""
    (election,) = _instructions(ptx, r"^elect\.sync")
    mask = re.fullmatch(r"elect\.sync\s+%r\d+\|%p\d+, (\S+);", election).group(1)
    if mask.startswith("%r"):
        mask = re.search(rf"mov\.[bu]32\s+{re.escape(mask)}, (\S+);", ptx).group(1)
    return int(mask, 0) & 0xFFFFFFFF


def _whole_warp(out):
    out[cuda.threadIdx.x] = intrin.elect_sync()


def test_elect_sync_elects_among_the_whole_warp(backend):
    ptx, _ = cuda.compile_ptx(_whole_warp, "void(int32[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert _mask_operand(ptx) == 0xFFFFFFFF


def _constant_mask(out):
    out[cuda.threadIdx.x] = intrin.elect_sync_mask(0x0000FF0F)


def test_elect_sync_mask_elects_among_the_lanes_given(backend):
    ptx, _ = cuda.compile_ptx(_constant_mask, "void(int32[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert _mask_operand(ptx) == 0x0000FF0F


@pytest.mark.parametrize("mask", ["int64", "uint32", "uint64", "int8"])
def test_the_mask_may_be_any_integer(backend, mask):
    def elect(out, m):
        out[cuda.threadIdx.x] = intrin.elect_sync_mask(m)

    ptx, _ = cuda.compile_ptx(elect, f"void(int32[::1], {mask})", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    # the 32-bit register of the mask
    assert len(_instructions(ptx, r"^elect\.sync\s+%r\d+\|%p\d+, %r\d+;")) == 1


def test_an_election_is_a_boolean():
    def whole():
        return intrin.elect_sync()

    def masked(m):
        return intrin.elect_sync_mask(m)

    assert cuda.compile_ptx(whole, (), device=True, cc=(9, 0))[1] == types.boolean
    assert cuda.compile_ptx(masked, (types.uint32,), device=True, cc=(9, 0))[1] == types.boolean


def test_the_call_is_convergent_on_both_code_generators():
    ir, _ = cuda.compile(_whole_warp, "void(int32[::1])", cc=(9, 0), backend="nvptx", output="llvm")
    # LLVM's own intrinsic, whose declaration is convergent
    assert re.search(r"call \{ i32, i1 \} @llvm\.nvvm\.elect\.sync\(i32 -1\)", ir)
    declaration = re.search(r"declare \{ i32, i1 \} @llvm\.nvvm\.elect\.sync\(i32\) #(\d+)", ir).group(1)
    assert "convergent" in re.search(rf"attributes #{declaration} = \{{([^}}]*)\}}", ir).group(1)
    # libNVVM's LLVM 7 lacks it: inline PTX, itself marked convergent
    ir, _ = cuda.compile(_whole_warp, "void(int32[::1])", cc=(9, 0), backend="nvvm", output="llvm")
    assert re.search(r'asm sideeffect "elect\.sync \$0\|\$1, \$2;", "=r,=b,r"\(i32 -1\) convergent', ir)


def _branches(out, flags):
    t = cuda.threadIdx.x
    if flags[t] > 0:
        if intrin.elect_sync():
            out[t] = 1
    elif intrin.elect_sync_mask(0xFFFF):
        out[t] = 2


def test_elect_sync_stays_in_its_branch(backend):
    ptx, _ = cuda.compile_ptx(_branches, "void(int32[:], int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    # one election per branch: neither merged into one above the branch nor copied
    elections = _instructions(ptx, r"^elect\.sync")
    assert len(elections) == 2
    body = ptx.split(".entry", 1)[1]
    first_branch = re.search(r"@%p\d+ bra", body).start()
    assert all(body.index(e) > first_branch for e in elections)


def _after_a_branch(out, flags):
    t = cuda.threadIdx.x
    if flags[t] > 0:
        out[t] = 5
    else:
        out[t] = flags[t + 32]
    # every lane reaches this one election: copying it into both branches would elect twice
    if intrin.elect_sync():
        out[t + 32] = 1


def test_an_election_after_a_branch_is_not_copied_into_it(backend):
    ptx, _ = cuda.compile_ptx(_after_a_branch, "void(int32[:], int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^elect\.sync")) == 1


def test_elect_sync_in_ptx(backend):
    ptx, _ = cuda.compile_ptx(wk.elected, "void(int32[:], int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^elect\.sync")) == 2


def test_elect_sync_on_an_older_chip_is_a_clear_error(backend):
    with pytest.raises(ValueError, match=r"intrin\.elect_sync(_mask)? needs sm_90 or newer; .* compiled for sm_80"):
        cuda.compile_ptx(wk.elected, "void(int32[:], int32[:])", cc=(8, 0), backend=backend)


@pytest.mark.parametrize("kernel, name", [(_whole_warp, "elect_sync"), (_constant_mask, "elect_sync_mask")])
def test_elect_sync_needs_ptx_8_0(kernel, name):
    with pytest.raises(ValueError, match=rf"intrin\.{name} needs PTX ISA 8\.0; .*'\+ptx78'"):
        cuda.compile_ptx(kernel, "void(int32[::1])", cc=(9, 0), backend="nvptx", features="+ptx78")
    ptx, _ = cuda.compile_ptx(kernel, "void(int32[::1])", cc=(9, 0), backend="nvptx", features="+ptx80")
    assert re.search(r"^\.version 8\.0$", ptx, re.M)


def _bad(body):
    namespace = {"intrin": intrin}
    exec(f"def kernel(i, f):\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], "void(int32[:], float32[:])", cc=(9, 0))


@pytest.mark.parametrize(
    "body, message",
    [
        ("i[0] = intrin.elect_sync_mask(1.5)", r"elect_sync_mask\(mask\): the mask must be an integer"),
        ("i[0] = intrin.elect_sync_mask(f[0])", r"elect_sync_mask\(mask\): the mask must be an integer"),
        ("i[0] = intrin.elect_sync_mask()", r"missing a required argument: 'mask'"),
        ("i[0] = intrin.elect_sync(i[0])", r"elect_sync"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()


def test_the_stubs_refuse_the_host_and_pickle_by_name():
    for stub in (intrin.elect_sync, intrin.elect_sync_mask):
        with pytest.raises(RuntimeError, match=rf"cuda\.{stub.__name__} can only be used inside"):
            stub()
        assert pickle.loads(pickle.dumps(stub)) is stub
