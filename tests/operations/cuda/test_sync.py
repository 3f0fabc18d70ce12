"""Synchronization intrinsics on the CPU (operations/cuda/sync.py): typing as Numba-CUDA types
them, errors naming the intrinsic, and PTX from both back ends assembled by ptxas for sm_80 and
sm_90. The bit intrinsics, whose kernels share tests/cases/sync_bits_kernels.py, are
test_bits.py's."""

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support
from ...cases import sync_bits_kernels as sk

CCS = [(8, 0), (9, 0)]


_ptx = support.checked_ptx
_has = support.assert_instructions


@pytest.fixture(params=CCS, ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def target(request, backend):
    return backend, request.param


# ---- PTX ----------------------------------------------------------------------------------


@pytest.mark.parametrize("pred", ["int32", "int64", "uint8", "bool"])
def test_block_reductions_ptx(pred, target):
    ptx = _ptx(sk.block_reductions, f"void({pred}[:], int32[:], int32[:], int32[:])", *target)
    _has(ptx, "bar.red.popc.u32", "bar.red.and.pred", "bar.red.or.pred")


def test_syncwarp_ptx(target):
    _has(_ptx(sk.warp_exchange, "void(int64[:], int64[:])", *target), "bar.warp.sync")


def test_fences_and_nanosleep_ptx(target):
    ptx = _ptx(sk.fenced_reverse, "void(float32[:], float32[:])", *target)
    _has(ptx, "membar.gl", "membar.cta", "membar.sys", "nanosleep.u32", "bar.sync")


# ---- typing -------------------------------------------------------------------------------


def _result(fn, *argtypes):
    return cuda.compile_ptx(fn, tuple(argtypes), device=True, cc=(9, 0))[1]


_count = lambda p: cuda.syncthreads_count(p)  # noqa: E731
_and = lambda p: cuda.syncthreads_and(p)  # noqa: E731
_or = lambda p: cuda.syncthreads_or(p)  # noqa: E731


@pytest.mark.parametrize("name", sk.INT_DTYPES)
def test_integer_result_types(name):
    ty = getattr(types, name)
    for fn in (_count, _and, _or):
        assert _result(fn, ty) == types.int32


def test_bool_operands_as_numba_cuda_converts_them():
    assert _result(_count, types.boolean) == types.int32


def test_fences_syncwarp_and_nanosleep_give_none():
    def body(mask, ns):
        cuda.syncwarp()
        cuda.syncwarp(mask)
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()
        cuda.nanosleep(ns)

    assert _result(body, types.uint32, types.int64) == types.none


# ---- errors -------------------------------------------------------------------------------


# (kernel body, argument type, what the error names); each on its own line, which the error names too
BAD = [
    (lambda x: cuda.syncthreads_count(x), types.float32, "cuda.syncthreads_count"),
    (lambda x: cuda.syncthreads_and(), types.int32, "cuda.syncthreads_and"),
    (lambda x: cuda.threadfence(x), types.int32, "cuda.threadfence"),
    (lambda x: cuda.nanosleep(x, x), types.uint32, "cuda.nanosleep"),
]


@pytest.mark.parametrize("fn,argtype,name", BAD, ids=[f"{name}-{i}" for i, (_, _, name) in enumerate(BAD)])
def test_bad_arguments_name_the_intrinsic_and_line(fn, argtype, name):
    with pytest.raises(TypingError) as info:
        _result(fn, argtype)
    message = str(info.value)
    assert name in message
    line = fn.__code__.co_firstlineno
    assert f'test_sync.py", line {line}' in message or f"({line})" in message
