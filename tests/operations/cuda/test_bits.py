"""Bits and arithmetic of single values (operations/cuda/bits.py: popc, clz, ffs, brev, fma,
cbrt, selp and int.bit_count()) on the CPU: typing as Numba-CUDA types them, errors naming the
intrinsic, PTX from both code generators assembled by ptxas for sm_80 and sm_90, and the
generated code run on the host (tests/nrt_harness.py) on boundary and random values against
Python's integers and exactly rounded arithmetic."""

import ctypes
import re
from fractions import Fraction

import numpy as np
import pytest
from numba import typeof
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import nrt_harness, support
from ...cases import sync_bits_kernels as sk

CCS = [(8, 0), (9, 0)]


_ptx = support.checked_ptx
_has = support.assert_instructions


@pytest.fixture(params=CCS, ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def target(request, backend):
    return backend, request.param


# ---- PTX ----------------------------------------------------------------------------------


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


@pytest.mark.parametrize("name", sk.INT_DTYPES)
def test_integer_result_types(name):
    ty = getattr(types, name)
    assert _result(_popc, ty) == ty
    assert _result(_clz, ty) == ty
    assert _result(_ffs, ty) == types.uint32
    assert _result(_brev, ty) == (types.uint64 if ty.bitwidth == 64 else types.uint32)
    assert _result(_bit_count, ty) == types.int64


def test_bool_operands_as_numba_cuda_converts_them():
    assert _result(_popc, types.boolean) == types.int8
    assert _result(_ffs, types.boolean) == types.uint32


def test_more_bool_operands_count_as_int8():
    # clz of a bool counts in the 8 bits of the int8 Numba-CUDA converts it to; brev reverses 32
    assert _result(_clz, types.boolean) == types.int8
    assert _result(_brev, types.boolean) == types.uint32


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
    assert f'test_bits.py", line {line}' in message or f"({line})" in message


@pytest.mark.parametrize(
    "fn, argtypes, message",
    [
        (_popc, (types.float64,), r"cuda\.popc\(x\) needs an integer, got float64"),
        (_ffs, (types.complex64,), r"cuda\.ffs\(x\) needs an integer, got complex64"),
        (
            lambda p, a, b: cuda.selp(p, a, b),
            (types.boolean, types.int32, types.int64),
            r"cuda\.selp\(pred, a, b\) needs a and b of one integer or float type, got int32 and int64",
        ),
        (
            lambda p, a, b: cuda.selp(p, a, b),
            (types.float32, types.int32, types.int32),
            r"cuda\.selp\(pred, a, b\) needs a bool or integer pred, got float32",
        ),
        (_bit_count, (types.float64,), r"bit_count"),
    ],
)
def test_errors_say_what_the_operand_should_be(fn, argtypes, message):
    with pytest.raises(TypingError, match=message):
        _result(fn, *argtypes)


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


# ---- the generated code run on the host ---------------------------------------------------


def host_bit_ops(x, popc, clz, ffs, brev, bit_count):
    # one host "thread" runs the loop: no thread indices in code the harness runs
    for i in range(x.size):
        popc[i] = cuda.popc(x[i])
        clz[i] = cuda.clz(x[i])
        ffs[i] = cuda.ffs(x[i])
        brev[i] = cuda.brev(x[i])
        bit_count[i] = x[i].bit_count()


def host_bool_bit_ops(x, popc, clz, ffs, brev):
    for i in range(x.size):
        popc[i] = cuda.popc(x[i])
        clz[i] = cuda.clz(x[i])
        ffs[i] = cuda.ffs(x[i])
        brev[i] = cuda.brev(x[i])


def host_float_ops(a, b, c, fma, cbrt):
    for i in range(a.size):
        fma[i] = cuda.fma(a[i], b[i], c[i])
        cbrt[i] = cuda.cbrt(a[i])


def host_select(pred, a, b, out):
    for i in range(a.size):
        out[i] = cuda.selp(pred[i], a[i], b[i])


def _reversed_bits(bits):
    return lambda v: int(format(v, f"0{bits}b")[::-1], 2)


# libdevice's brev has no C library counterpart: a stand-in reversing the bits it is given, so
# that the host run checks what the rule hands it (the operand converted to 32 or 64 bits) and
# which routine it calls; __nv_ffs and __nv_ffsll are the C library's ffs and ffsll
_BREV = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_uint32)(_reversed_bits(32))
_BREVLL = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)(_reversed_bits(64))
_BREV_STANDINS = [("__nv_brev", _BREV), ("__nv_brevll", _BREVLL)]


def _array(dtype):
    return types.Array(support.numba_type(dtype), 1, "C")


def _check(name, dtype, values, got, reference):
    expected = np.array([reference(int(v)) for v in values], dtype=got.dtype)
    bad = np.nonzero(got != expected)[0]
    assert not bad.size, (
        f"{name}({dtype}): {bad.size} wrong, e.g. x={values[bad[0]]!r} gave {got[bad[0]]}, expected {expected[bad[0]]}"
    )


@pytest.mark.parametrize("dtype", sk.INT_DTYPES)
def test_bit_ops_on_the_host_give_pythons_answers(dtype, rng):
    x = np.concatenate([support.boundary_values(dtype), support.random_values(dtype, 500, rng)])
    n = x.size
    outs = [
        support.poisoned(n, dtype),
        support.poisoned(n, dtype),
        support.poisoned(n, np.uint32),
        support.poisoned(n, sk.brev_dtype(dtype)),
        support.poisoned(n, np.int64),
    ]
    argtypes = tuple(typeof(v) for v in (x, *outs))
    nrt_harness.Kernel(host_bit_ops, argtypes, _BREV_STANDINS)(x, *outs).check_balanced()
    references = [
        ("popc", lambda v: sk.popc_of(v, dtype)),
        ("clz", lambda v: sk.clz_of(v, dtype)),  # the operand's width for 0
        ("ffs", lambda v: sk.ffs_of(v, dtype)),
        ("brev", lambda v: sk.brev_of(v, dtype)),  # signed narrow operands sign-extended first
        ("bit_count", lambda v: v.bit_count()),  # of |x|, as Python counts: (-1).bit_count() == 1
    ]
    for out, (name, reference) in zip(outs, references):
        _check(name, dtype, x, out, reference)


def test_bool_operands_count_as_int8_on_the_host():
    x = np.array([False, True, True, False])
    outs = [support.poisoned(4, np.int8), support.poisoned(4, np.int8)]
    outs += [support.poisoned(4, np.uint32), support.poisoned(4, np.uint32)]
    argtypes = (types.boolean[::1], types.int8[::1], types.int8[::1], types.uint32[::1], types.uint32[::1])
    nrt_harness.Kernel(host_bool_bit_ops, argtypes, _BREV_STANDINS)(x, *outs)
    popc, clz, ffs, brev = outs
    np.testing.assert_array_equal(popc, x.astype(np.int8))
    np.testing.assert_array_equal(clz, np.where(x, 7, 8).astype(np.int8))  # counted in 8 bits
    np.testing.assert_array_equal(ffs, x.astype(np.uint32))
    np.testing.assert_array_equal(brev, np.where(x, 1 << 31, 0).astype(np.uint32))


def test_a_literal_bit_count_on_the_host():
    def literals(out):
        out[0] = (-8).bit_count()
        out[1] = (-(2**63)).bit_count()
        out[2] = (2**40 + 7).bit_count()

    out = support.poisoned(3, np.int64)
    nrt_harness.Kernel(literals, (types.int64[::1],))(out)
    np.testing.assert_array_equal(out, [1, 1, 4])


def _float_operands(dtype, n, rng):
    """a, b, c with c often cancelling the rounded a*b, so that a second rounding would show."""
    a, b, c = (support.random_values(dtype, n, rng) for _ in range(3))
    cancel = rng.random(n) < 0.5
    c[cancel] = -(a[cancel] * b[cancel])
    c[::5] = -c[::5] * np.dtype(dtype).type(1.0 + np.finfo(dtype).eps)
    a[:6] = np.array([0.0, 1.0, -1.0, 27.0, -8.0, 2.0**-20], dtype=dtype)
    return a, b, c


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fma_rounds_once_and_cbrt_on_the_host(dtype, rng):
    n = 600
    a, b, c = _float_operands(dtype, n, rng)
    fma, cbrt = support.poisoned(n, dtype), support.poisoned(n, dtype)
    argtypes = tuple(_array(dtype) for _ in range(5))
    nrt_harness.Kernel(host_float_ops, argtypes)(a, b, c, fma, cbrt)

    expected = np.array([sk.fma_of(x, y, z, dtype) for x, y, z in zip(a, b, c)], dtype=dtype)
    unsigned = f"u{fma.itemsize}"
    bad = np.nonzero(fma.view(unsigned) != expected.view(unsigned))[0]
    assert not bad.size, (
        f"fma: {bad.size} wrong, e.g. {a[bad[0]]!r}*{b[bad[0]]!r}+{c[bad[0]]!r} gave {fma[bad[0]]!r}, "
        f"expected {expected[bad[0]]!r}"
    )
    # cbrt calls libdevice's routine of the operand's width (the host's cbrtf or cbrt here): within
    # an ulp of the cube root computed in float64, of the operand's type
    assert not np.isnan(cbrt).any(), "cbrt left elements unwritten"
    reference = np.cbrt(a.astype(np.float64))
    unit = np.spacing(np.abs(reference).astype(dtype)).astype(np.float64)
    assert (np.abs(cbrt.astype(np.float64) - reference) <= unit).all()


def test_cbrt_of_an_integer_is_the_float64_cube_root_on_the_host():
    def cube_roots(x, out):
        for i in range(x.size):
            out[i] = cuda.cbrt(x[i])

    x = np.array([0, 1, 8, -27, 2**62, -(2**63), 10**18 + 1], np.int64)
    out = support.poisoned(x.size, np.float64)
    nrt_harness.Kernel(cube_roots, (types.int64[::1], types.float64[::1]))(x, out)
    np.testing.assert_allclose(out, np.cbrt(x.astype(np.float64)), rtol=2**-52, atol=0)


@pytest.mark.parametrize("dtype", sk.SELP_DTYPES)
@pytest.mark.parametrize("pred_dtype", ["bool", "int32", "uint64"])
def test_selp_on_the_host(dtype, pred_dtype, rng):
    n = 200
    pred = support.random_values(pred_dtype, n, rng)
    if pred_dtype != "bool":
        pred[rng.random(n) < 0.5] = 0
    if pred_dtype == "uint64":
        pred[::7] = 1 << 40  # zero in its low 32 bits, still true
    a, b = support.random_values(dtype, n, rng), support.random_values(dtype, n, rng)
    out = support.poisoned(n, dtype)
    argtypes = (_array(pred_dtype), _array(dtype), _array(dtype), _array(dtype))
    nrt_harness.Kernel(host_select, argtypes)(pred, a, b, out)
    np.testing.assert_array_equal(out, np.where(pred != 0, a, b))
