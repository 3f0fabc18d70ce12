"""Bits and arithmetic of single values on the GPU (operations/cuda/bits.py), on both back ends,
against host answers: popc, clz, ffs, brev and bit_count against Python's int operations (ffs
and brev are libdevice's, which the host tier cannot run), fma against the exact a*b + c
rounded once, cbrt against NumPy's float64 cube root, selp against np.where."""

import numpy as np
import pytest

from cumlir import cuda

from ...cases import sync_bits_kernels as sk
from ...support import boundary_values, poisoned, random_values

pytestmark = pytest.mark.gpu


@pytest.fixture
def jit(backend):
    return lambda fn: cuda.jit(backend=backend)(fn)


def _blocks_of(n, threads):
    return (n + threads - 1) // threads


# ---- bits ---------------------------------------------------------------------------------


# numba-cuda truncates brev of 64-bit operands and counts other bits than Python's
# bit_count for negative integers (semantics.md)
@pytest.mark.numba_cuda_differs
@pytest.mark.parametrize("dtype", sk.INT_DTYPES)
def test_bit_ops(dtype, jit, rng):
    x = np.concatenate([boundary_values(dtype), random_values(dtype, 4000, rng)])
    info = np.iinfo(dtype)
    x = np.concatenate([x, np.array([0, info.max, info.min, 1 if info.min == 0 else -1], dtype=dtype)])
    n = x.size
    outs = [
        poisoned(n, dtype),
        poisoned(n, dtype),
        poisoned(n, np.uint32),
        poisoned(n, sk.brev_dtype(dtype)),
        poisoned(n, np.int64),
    ]
    jit(sk.bit_ops)[_blocks_of(n, 128), 128](x, *outs)
    values = [int(v) for v in x]
    references = [
        ("popc", lambda v: sk.popc_of(v, dtype)),
        ("clz", lambda v: sk.clz_of(v, dtype)),
        ("ffs", lambda v: sk.ffs_of(v, dtype)),
        ("brev", lambda v: sk.brev_of(v, dtype)),
        ("bit_count", lambda v: v.bit_count()),
    ]
    for out, (name, reference) in zip(outs, references):
        expected = np.array([reference(v) for v in values], dtype=out.dtype)
        bad = np.nonzero(out != expected)[0]
        assert not bad.size, (
            f"{name}({dtype}): {bad.size} wrong, e.g. x={values[bad[0]]} gave {out[bad[0]]}, expected {expected[bad[0]]}"
        )


# ---- floating point -----------------------------------------------------------------------


def _float_operands(dtype, n, rng):
    """a, b, c with c often cancelling the rounded a*b, so that a second rounding would show."""
    a, b, c = (random_values(dtype, n, rng) for _ in range(3))
    cancel = rng.random(n) < 0.5
    c[cancel] = -(a[cancel] * b[cancel])
    c[::5] = -c[::5] * dtype_scale(dtype)
    return a, b, c


def dtype_scale(dtype):
    return np.dtype(dtype).type(1.0 + np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fma_rounds_once_and_cbrt(dtype, jit, rng):
    n = 3000
    a, b, c = _float_operands(dtype, n, rng)
    a[:6] = np.array([0.0, -0.0, 1.0, -1.0, 27.0, -8.0], dtype=dtype)
    fma, cbrt = poisoned(n, dtype), poisoned(n, dtype)
    jit(sk.float_ops)[_blocks_of(n, 128), 128](a, b, c, fma, cbrt)

    expected = np.array([sk.fma_of(x, y, z, dtype) for x, y, z in zip(a, b, c)], dtype=dtype)
    bad = np.nonzero(fma.view(f"u{fma.itemsize}") != expected.view(f"u{fma.itemsize}"))[0]
    assert not bad.size, (
        f"fma: {bad.size} wrong, e.g. {a[bad[0]]!r}*{b[bad[0]]!r}+{c[bad[0]]!r} gave {fma[bad[0]]!r}, expected {expected[bad[0]]!r}"
    )

    # against the cube root computed in long double, rounded (NumPy's float32 cbrt is not
    # correctly rounded itself, nor is the C library's float64 one everywhere: 3 ulps off),
    # in units of the last place of the result's type
    reference = np.cbrt(a.astype(np.longdouble)).astype(np.float64)
    got = cbrt.astype(np.float64)
    # the last place of the larger of the two: at a power of two the result may sit in the binade above
    unit = np.spacing(np.maximum(np.abs(reference), np.abs(got)).astype(dtype)).astype(np.float64)
    ulps = np.abs(got - reference) / unit
    assert not np.isnan(cbrt).any(), "cbrt left elements unwritten"
    # libdevice's cbrtf is documented at 1 ulp but was measured a little beyond it (1.004)
    bound = 2 if dtype == "float32" else 1
    assert (ulps <= bound).all(), f"cbrt: {np.sum(ulps > bound)} results beyond {bound} ulp, worst {ulps.max()}"
    assert np.array_equal(np.signbit(cbrt), np.signbit(reference))


# ---- selection ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", sk.SELP_DTYPES)
@pytest.mark.parametrize("pred_dtype", ["bool", "int32", "uint64"])
def test_selp(dtype, pred_dtype, jit, rng):
    n = 2000
    pred = random_values(pred_dtype, n, rng)
    if pred_dtype != "bool":
        pred[rng.random(n) < 0.5] = 0
    a, b = random_values(dtype, n, rng), random_values(dtype, n, rng)
    out = poisoned(n, dtype)
    jit(sk.select)[_blocks_of(n, 128), 128](pred, a, b, out)
    np.testing.assert_array_equal(out, np.where(pred != 0, a, b))
