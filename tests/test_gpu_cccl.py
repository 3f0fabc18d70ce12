"""CCCL's cuda.compute algorithms with operators compiled by cumlir to LTO-IR, against NumPy."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.interop.cccl import raw_op

from .cases import cccl_operators as ops

pytestmark = pytest.mark.gpu
compute = pytest.importorskip("cuda.compute")
cp = pytest.importorskip("cupy")

N = 100_003


def test_reduce_int32(rng):
    values = rng.integers(-1000, 1000, N, dtype=np.int32)
    out = cp.full(1, 0x5A5A5A5A, np.int32)
    compute.reduce_into(
        d_in=cp.asarray(values),
        d_out=out,
        op=raw_op(ops.add, ["int32", "int32"]),
        num_items=N,
        h_init=np.array([7], np.int32),
    )
    assert int(out.get()[0]) == int(values.astype(np.int64).sum()) + 7


def test_reduce_uint64_max_compares_unsigned(rng):
    values = rng.integers(0, 2**63, N, dtype=np.uint64)
    values[rng.integers(0, N, 5)] |= np.uint64(2**63)  # large values that read as negative if signed
    out = cp.zeros(1, np.uint64)
    compute.reduce_into(
        d_in=cp.asarray(values),
        d_out=out,
        op=raw_op(ops.unsigned_max, ["uint64", "uint64"]),
        num_items=N,
        h_init=np.array([0], np.uint64),
    )
    assert out.get()[0] == values.max()


def test_reduce_float32(rng):
    values = rng.standard_normal(N).astype(np.float32)
    out = cp.full(1, np.nan, np.float32)
    compute.reduce_into(
        d_in=cp.asarray(values),
        d_out=out,
        op=raw_op(ops.add, ["float32", "float32"]),
        num_items=N,
        h_init=np.array([0], np.float32),
    )
    np.testing.assert_allclose(out.get()[0], values.astype(np.float64).sum(), rtol=1e-4, atol=1e-2)


def _pairs(rng, n):
    pairs = np.zeros(n, ops.PAIR)
    pairs["key"] = rng.integers(-50, 50, n)
    pairs["value"] = rng.standard_normal(n)
    return pairs


@pytest.mark.parametrize("operator", [ops.pair_combine, ops.pair_pick])
def test_reduce_records(operator, rng):
    pairs = _pairs(rng, 5000)
    init = np.zeros(1, ops.PAIR)
    init["value"] = -np.inf
    out = cuda.to_device(np.full(1, 0x5A, np.uint8).view(np.uint8).repeat(ops.PAIR.itemsize).view(ops.PAIR))
    compute.reduce_into(
        d_in=cuda.to_device(pairs),
        d_out=out,
        op=raw_op(operator, [ops.PAIR, ops.PAIR], ops.PAIR),
        num_items=len(pairs),
        h_init=init,
    )
    result = out.copy_to_host()[0]
    assert result["value"] == pairs["value"].max()
    if operator is ops.pair_combine:
        assert result["key"] == pairs["key"].sum()
    else:
        assert result["key"] == pairs["key"][pairs["value"].argmax()]


def test_inclusive_scan_int32(rng):
    values = rng.integers(-100, 100, N, dtype=np.int32)
    out = cp.full(N, 0x5A5A5A5A, np.int32)
    compute.inclusive_scan(
        d_in=cp.asarray(values),
        d_out=out,
        op=raw_op(ops.add, ["int32", "int32"]),
        num_items=N,
        init_value=np.array([0], np.int32),
    )
    np.testing.assert_array_equal(out.get(), np.cumsum(values.astype(np.int64)).astype(np.int32))


def test_unary_and_binary_transforms(rng):
    x = rng.standard_normal(N).astype(np.float32)
    out = cp.full(N, np.nan, np.float32)
    compute.unary_transform(d_in=cp.asarray(x), d_out=out, op=raw_op(ops.negate_half, ["float32"]), num_items=N)
    np.testing.assert_array_equal(out.get(), -x * np.float32(0.5))
    a = rng.integers(0, 2**64 - 1, N, dtype=np.uint64, endpoint=True)
    b = rng.integers(0, 2**64 - 1, N, dtype=np.uint64, endpoint=True)
    total = cp.zeros(N, np.uint64)
    compute.binary_transform(
        d_in1=cp.asarray(a),
        d_in2=cp.asarray(b),
        d_out=total,
        op=raw_op(ops.unsigned_max, ["uint64", "uint64"]),
        num_items=N,
    )
    np.testing.assert_array_equal(total.get(), np.maximum(a, b))
