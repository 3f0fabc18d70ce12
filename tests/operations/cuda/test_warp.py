"""Warp intrinsics on the CPU: result types as Numba-CUDA gives them, bad arguments as
typing errors naming the intrinsic, and PTX from both back ends assembled by ptxas."""

import pickle
import re

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support
from ...cases import warp_kernels as wk

CHIPS = [((8, 0), "sm_80"), ((9, 0), "sm_90")]


def _type_of(pyfunc, *argtypes):
    _, resty = cuda.compile_ptx(pyfunc, tuple(argtypes), device=True, cc=(9, 0))
    return resty


def _calling(stub, arity):
    """A device function calling *stub* on its arguments (the stub is a closure variable)."""
    if arity == 2:
        return lambda a, b: stub(a, b)
    return lambda a, b, c: stub(a, b, c)


_shfl, _shfl_up, _shfl_down, _shfl_xor = (
    _calling(getattr(cuda, n), 3) for n in ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync")
)
_all, _any, _eq, _ballot, _match_any, _match_all = (
    _calling(getattr(cuda, n), 2)
    for n in ("all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync")
)
SHUFFLES = {"shfl_sync": _shfl, "shfl_up_sync": _shfl_up, "shfl_down_sync": _shfl_down, "shfl_xor_sync": _shfl_xor}


@pytest.mark.parametrize("dtype", wk.DTYPES)
@pytest.mark.parametrize("name", list(SHUFFLES))
def test_a_shuffle_returns_its_values_type(name, dtype):
    value = support.numba_type(dtype)
    assert _type_of(SHUFFLES[name], types.uint32, value, types.int32) == value
    assert _type_of(SHUFFLES[name], types.int64, value, types.uint8) == value


def _lane():
    return cuda.laneid


def _size():
    return cuda.warpsize


def _active():
    return cuda.activemask()


def _below():
    return cuda.lanemask_lt()


@pytest.mark.parametrize("predicate", [types.boolean, types.int32, types.uint64, types.float64])
def test_votes_return_booleans_and_ballot_an_int32(predicate):
    for fn in (_all, _any, _eq):
        assert _type_of(fn, types.uint32, predicate) == types.boolean
    assert _type_of(_ballot, types.int64, predicate) == types.int32


@pytest.mark.parametrize("dtype", wk.DTYPES)
def test_match_results(dtype):
    value = support.numba_type(dtype)
    assert _type_of(_match_any, types.uint32, value) == types.int32
    assert _type_of(_match_all, types.uint32, value) == types.Tuple((types.int32, types.boolean))


def test_registers_and_lane_masks():
    assert _type_of(_lane) == types.int32
    assert _type_of(_size) == types.int32
    assert _type_of(_active) == types.uint32
    assert _type_of(_below) == types.uint32


def test_registers_read_by_name_and_stubs_on_the_host():
    from cumlir.cuda import laneid

    def by_name():
        return laneid

    assert _type_of(by_name) == types.int32
    for stub in (cuda.laneid, cuda.shfl_sync, cuda.match_all_sync):
        assert pickle.loads(pickle.dumps(stub)) is stub
    with pytest.raises(RuntimeError, match="cuda.activemask"):
        cuda.activemask()


BAD = [
    (_shfl, (types.float32, types.int32, types.int32), "cuda.shfl_sync: the mask must be an integer"),
    (_shfl_up, (types.boolean, types.int32, types.int32), "cuda.shfl_up_sync: the mask must be an integer"),
    (_shfl_down, (types.uint32, types.int32, types.float64), "cuda.shfl_down_sync: the delta must be an integer"),
    (_shfl_xor, (types.uint32, types.complex64, types.int32), "cuda.shfl_xor_sync: the value must be"),
    (_shfl, (types.uint32, types.int32[:], types.int32), "cuda.shfl_sync: the value must be"),
    (_all, (types.float64, types.boolean), "cuda.all_sync: the mask must be an integer"),
    (_ballot, (types.uint32, types.complex128), "cuda.ballot_sync: the predicate must be"),
    (_eq, (types.uint32, types.UniTuple(types.int32, 2)), "cuda.eq_sync: the predicate must be"),
    (_match_any, (types.float32, types.int32), "cuda.match_any_sync: the mask must be an integer"),
    (_match_all, (types.uint32, types.complex64), "cuda.match_all_sync: the value must be"),
]


@pytest.mark.parametrize("fn,argtypes,message", BAD, ids=[m.split(":")[0] + str(i) for i, (_, _, m) in enumerate(BAD)])
def test_bad_arguments_are_typing_errors_naming_the_intrinsic(fn, argtypes, message):
    with pytest.raises(TypingError, match=message) as info:
        _type_of(fn, *argtypes)
    assert "test_warp.py" in str(info.value)  # reported at the kernel's source line


def _ptx(kernel, sig, cc, backend):
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, dict(CHIPS)[cc])
    return ptx


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
@pytest.mark.parametrize("dtype", wk.DTYPES)
def test_shuffles_and_matches_in_ptx(dtype, cc, backend):
    halves = 2 if dtype.endswith("64") else 1  # 64-bit values move as two 32-bit words
    sig = f"void({dtype}[:], uint32[:], int32[:], {dtype}[:], {dtype}[:], {dtype}[:], {dtype}[:])"
    ptx = _ptx(wk.shuffles, sig, cc, backend)
    for kind in ("idx", "up", "down", "bfly"):
        assert ptx.count(f"shfl.sync.{kind}.b32") == halves, kind
    ptx = _ptx(wk.matches, f"void({dtype}[:], uint32[:], int32[:], int32[:], boolean[:])", cc, backend)
    width = 64 if halves == 2 else 32
    assert f"match.any.sync.b{width}" in ptx and f"match.all.sync.b{width}" in ptx


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
@pytest.mark.parametrize("predicate", ["bool", "int32", "float64"])
def test_votes_in_ptx(predicate, cc, backend):
    ptx = _ptx(wk.votes, f"void({predicate}[:], uint32[:], boolean[:], boolean[:], boolean[:], int32[:])", cc, backend)
    for instruction in ("vote.sync.all.pred", "vote.sync.any.pred", "vote.sync.uni.pred", "vote.sync.ballot.b32"):
        assert instruction in ptx


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
def test_registers_in_ptx(cc, backend):
    ptx = _ptx(wk.registers, "void(int32, int32[:], int32[:], uint32[:], uint32[:], uint32[:])", cc, backend)
    assert "%laneid" in ptx and "%lanemask_lt" in ptx
    assert ptx.count("activemask.b32") == 2  # each call stays where it was written
    # %warpsize is 32 on every chip; NVPTX folds the read into the constant


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
@pytest.mark.parametrize("dtype", wk.SUM_DTYPES)
def test_warp_reduction_and_scan_in_ptx(dtype, cc, backend):
    assert "shfl.sync.bfly.b32" in _ptx(wk.warp_sum, f"void({dtype}[:], {dtype}[:])", cc, backend)
    assert "shfl.sync.up.b32" in _ptx(wk.warp_inclusive_scan, f"void({dtype}[:], {dtype}[:])", cc, backend)


def test_the_llvm7_printer_names_the_warp_intrinsics():
    text, _ = cuda.compile(
        wk.votes,
        "void(bool[:], uint32[:], boolean[:], boolean[:], boolean[:], int32[:])",
        device=False,
        abi="numba",
        output="llvm",
        backend="nvvm",
        cc=(8, 0),
    )
    for name in ("vote.all.sync", "vote.any.sync", "vote.uni.sync", "vote.ballot.sync"):
        assert f"@llvm.nvvm.{name}(i32" in text


def _identical_arms(call):
    """A kernel whose two arms, taken by even and odd threads, make the same warp-level call
    (a device function, inlined)."""
    call = cuda.jit(device=True)(call)

    def kernel(out):
        i = cuda.grid(1)
        if i % 2 == 0:
            out[i] = call(i)
        else:
            out[i] = call(i)

    return kernel


def _syncwarp(i):
    cuda.syncwarp(cuda.activemask())
    return i


# warp-level calls whose result (or effect) depends on which lanes run them, and their PTX
CONVERGENT_CALLS = {
    "activemask": (lambda i: cuda.activemask(), "activemask.b32"),
    "ballot_sync": (lambda i: cuda.ballot_sync(cuda.activemask(), i > 3), "vote.sync.ballot.b32"),
    "all_sync": (lambda i: cuda.all_sync(cuda.activemask(), i > 3), "vote.sync.all.pred"),
    "shfl_sync": (lambda i: cuda.shfl_sync(cuda.activemask(), i, 0), "shfl.sync.idx.b32"),
    "match_any_sync": (lambda i: cuda.match_any_sync(cuda.activemask(), i), "match.any.sync.b64"),
    "syncwarp": (_syncwarp, "bar.warp.sync"),
}


def _blocks_with(ptx, instruction):
    """How many of the PTX's basic blocks (split at labels) hold *instruction*."""
    body = ptx.split(".entry", 1)[1]
    return sum(instruction in block for block in re.split(r"\n\$\S+:", body))


@pytest.mark.parametrize("name", sorted(CONVERGENT_CALLS))
def test_warp_calls_stay_in_their_branch(name, backend):
    # merged or hoisted above the branch, they would see (or wait for) the whole warp
    call, instruction = CONVERGENT_CALLS[name]
    ptx = _ptx(_identical_arms(call), "void(int64[:])", (9, 0), backend)
    assert _blocks_with(ptx, instruction) >= 2, ptx
    if name != "activemask":
        assert _blocks_with(ptx, "activemask.b32") >= 2, ptx
