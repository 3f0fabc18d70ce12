"""Synchronization and bit intrinsics on the CPU: typing as Numba-CUDA types them, errors
naming the intrinsic, and PTX from both back ends assembled by ptxas for sm_80 and sm_90."""

import re
from fractions import Fraction

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support
from ...cases import sync_bits_kernels as sk

CCS = [(8, 0), (9, 0)]


def _ptx(kernel, sig, backend, cc):
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    return ptx


def _has(ptx, *instructions):
    for instruction in instructions:
        assert re.search(rf"^\s*{re.escape(instruction)}\b", ptx, re.M), f"{instruction} not in the PTX"


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


@pytest.mark.parametrize("dtype", sk.INT_DTYPES)
def test_bit_ops_ptx(dtype, target):
    brev = "uint64" if sk.width(dtype) == 64 else "uint32"
    sig = f"void({dtype}[:], {dtype}[:], {dtype}[:], uint32[:], {brev}[:], int64[:])"
    ptx = _ptx(sk.bit_ops, sig, *target)
    bits = 64 if sk.width(dtype) == 64 else 32
    _has(ptx, f"popc.b{bits}", f"clz.b{bits}", f"brev.b{bits}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fma_and_cbrt_ptx(dtype, target):
    ptx = _ptx(sk.float_ops, f"void({', '.join([dtype + '[:]'] * 5)})", *target)
    _has(ptx, f"fma.rn.f{dtype[-2:]}")


@pytest.mark.parametrize("dtype", sk.SELP_DTYPES)
@pytest.mark.parametrize("pred", ["bool", "int32"])
def test_selp_ptx(dtype, pred, target):
    ptx = _ptx(sk.select, f"void({pred}[:], {dtype}[:], {dtype}[:], {dtype}[:])", *target)
    assert re.search(r"^\s*selp\.", ptx, re.M), "no selp in the PTX"


# ---- typing -------------------------------------------------------------------------------


def _result(fn, *argtypes):
    return cuda.compile_ptx(fn, tuple(argtypes), device=True, cc=(9, 0))[1]


_popc = lambda x: cuda.popc(x)  # noqa: E731
_clz = lambda x: cuda.clz(x)  # noqa: E731
_ffs = lambda x: cuda.ffs(x)  # noqa: E731
_brev = lambda x: cuda.brev(x)  # noqa: E731
_bit_count = lambda x: x.bit_count()  # noqa: E731
_count = lambda p: cuda.syncthreads_count(p)  # noqa: E731
_and = lambda p: cuda.syncthreads_and(p)  # noqa: E731
_or = lambda p: cuda.syncthreads_or(p)  # noqa: E731


@pytest.mark.parametrize("name", sk.INT_DTYPES)
def test_integer_result_types(name):
    ty = getattr(types, name)
    assert _result(_popc, ty) == ty
    assert _result(_clz, ty) == ty
    assert _result(_ffs, ty) == types.uint32
    assert _result(_brev, ty) == (types.uint64 if ty.bitwidth == 64 else types.uint32)
    assert _result(_bit_count, ty) == types.int64
    for fn in (_count, _and, _or):
        assert _result(fn, ty) == types.int32


def test_bool_operands_as_numba_cuda_converts_them():
    assert _result(_popc, types.boolean) == types.int8
    assert _result(_ffs, types.boolean) == types.uint32
    assert _result(_count, types.boolean) == types.int32


def test_float_result_types():
    def fma(a, b, c):
        return cuda.fma(a, b, c)

    def cbrt(x):
        return cuda.cbrt(x)

    def selp(p, a, b):
        return cuda.selp(p, a, b)

    f32, f64 = types.float32, types.float64
    assert _result(fma, f32, f32, f32) == f32
    assert _result(fma, f64, f64, f64) == f64
    assert _result(fma, f32, f32, f64) == f64  # converted to the float64 case
    assert _result(cbrt, f32) == f32
    assert _result(cbrt, f64) == f64
    assert _result(cbrt, types.int64) == f64
    for name in sk.SELP_DTYPES:
        ty = getattr(types, name)
        assert _result(selp, types.boolean, ty, ty) == ty
        assert _result(selp, types.int64, ty, ty) == ty


def test_fences_syncwarp_and_nanosleep_give_none():
    def body(mask, ns):
        cuda.syncwarp()
        cuda.syncwarp(mask)
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()
        cuda.nanosleep(ns)

    assert _result(body, types.uint32, types.int64) == types.none


def test_a_literal_bit_count():
    def literal():
        return (-8).bit_count()

    assert _result(literal) == types.int64


# ---- errors -------------------------------------------------------------------------------


# (kernel body, argument type, what the error names); each on its own line, which the error names too
BAD = [
    (lambda x: cuda.popc(x), types.float32, "cuda.popc"),
    (lambda x: cuda.clz(x, x), types.int32, "cuda.clz"),
    (lambda x: cuda.ffs(), types.int32, "cuda.ffs"),
    (lambda x: cuda.brev(x), types.float64, "cuda.brev"),
    (lambda x: cuda.fma(x, x), types.float32, "cuda.fma"),
    (lambda x: cuda.cbrt(x), types.complex128, "cuda.cbrt"),
    (lambda x: cuda.selp(True, x, 1.5), types.int32, "cuda.selp"),
    (lambda x: cuda.selp(1.5, x, x), types.int32, "cuda.selp"),
    (lambda x: cuda.selp(True, x, x), types.int32[:], "cuda.selp"),
    (lambda x: cuda.syncthreads_count(x), types.float32, "cuda.syncthreads_count"),
    (lambda x: cuda.syncthreads_and(), types.int32, "cuda.syncthreads_and"),
    (lambda x: cuda.threadfence(x), types.int32, "cuda.threadfence"),
    (lambda x: cuda.nanosleep(x, x), types.uint32, "cuda.nanosleep"),
    (lambda x: x.bit_count(2), types.int32, "bit_count"),
    (lambda x: x.bit_count(), types.float32, "bit_count"),
]


@pytest.mark.parametrize("fn,argtype,name", BAD, ids=[f"{name}-{i}" for i, (_, _, name) in enumerate(BAD)])
def test_bad_arguments_name_the_intrinsic_and_line(fn, argtype, name):
    with pytest.raises(TypingError) as info:
        _result(fn, argtype)
    message = str(info.value)
    assert name in message
    line = fn.__code__.co_firstlineno
    assert f'test_sync.py", line {line}' in message or f"({line})" in message


# ---- the GPU tests' host references -------------------------------------------------------


def test_the_bit_references():
    assert [sk.popc_of(-1, "int8"), sk.clz_of(-1, "int16"), sk.clz_of(0, "uint64"), sk.clz_of(1, "int32")] == [
        8,
        0,
        64,
        31,
    ]
    assert [sk.ffs_of(0, "int32"), sk.ffs_of(-(2**63), "int64"), sk.ffs_of(12, "uint8")] == [0, 64, 3]
    assert sk.brev_of(-1, "int8") == 0xFFFFFFFF  # sign-extended to uint32 first
    assert sk.brev_of(1, "uint16") == 1 << 31
    assert sk.brev_of(1, "int64") == 1 << 63


def test_the_fma_reference_rounds_once():
    # through float64 this is 1 + 2**-24, a tie that rounds to 1.0; rounded once it goes up
    value = Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60)
    assert sk.round_fraction(value, np.float32) == np.float32(1 + 2**-23)
    assert sk.round_fraction(Fraction(1) + Fraction(1, 2**24), np.float32) == np.float32(1)  # ties to even
    assert sk.fma_of(0.1, 10.0, -1.0, np.float64) == 2.0**-54  # 0.1 * 10 is 1 + 2**-54 exactly
