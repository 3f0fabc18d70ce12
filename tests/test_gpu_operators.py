"""Every operator on every listed scalar type pair, run on the GPU and compared with
the host reference (Numba's typing, Python's semantics, numba-cuda's error model)."""

import operator

import numpy as np
import pytest

from cumlir import cuda

from . import kernels, support

pytestmark = pytest.mark.gpu

ARITHMETIC = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"]
BITWISE = ["and", "or", "xor", "lshift", "rshift"]
COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge"]

SAME_TYPE_PAIRS = [(t, t) for t in support.SCALAR_TYPES]
MIXED_PAIRS = [
    ("int32", "int64"),
    ("int64", "float64"),
    ("uint64", "int64"),
    ("uint32", "int32"),
    ("float32", "float64"),
    ("bool", "int64"),
    ("int32", "float32"),
    ("uint32", "uint64"),
]
PAIRS = SAME_TYPE_PAIRS + MIXED_PAIRS + [(b, a) for a, b in MIXED_PAIRS]

_compiled = {}


def _kernel(name):
    if name not in _compiled:
        _compiled[name] = cuda.jit(kernels.binary_kernel(name))
    return _compiled[name]


def _cases():
    for name in ARITHMETIC + BITWISE + COMPARISONS:
        for left, right in PAIRS:
            if name in BITWISE and ("float" in left or "float" in right):
                continue
            if name in ("lshift", "rshift") and "bool" in (left, right):
                continue
            if name == "pow" and "bool" in (left, right):
                continue
            yield pytest.param(name, left, right, id=f"{name}-{left}-{right}")


def _operands(name, left, right, rng):
    a, b = support.pairs(left, right, rng)
    if name in ("lshift", "rshift"):
        # shifting by the width or more is undefined; shift counts stay within the type
        width = np.dtype(left).itemsize * 8
        b = (np.abs(b.astype(np.int64) % width)).astype(right)
    if name == "pow" and "float" not in left and "float" not in right:
        b = (b.astype(np.int64) % 70 - 5).astype(right) if np.dtype(right).kind == "i" else b % 70
    return a, b


@pytest.mark.parametrize("name,left,right", list(_cases()))
def test_binary_operator(name, left, right, rng):
    op = kernels.BINARY_OPERATORS[name][0]
    sig = support.result_signature(op, left, right)
    assert sig is not None, f"numba does not type {left} {name} {right}"
    a, b = _operands(name, left, right, rng)
    expected = support.reference(op, sig, a, b)
    out = support.poisoned(len(a), expected.dtype)
    threads = 128
    _kernel(name)[(len(a) + threads - 1) // threads, threads](a, b, out)
    rtol = {"float32": 2e-6, "float64": 1e-14}.get(str(out.dtype), 0) if name == "pow" else 0
    support.assert_matches(out, expected, f"{left} {name} {right} ({sig})", rtol=rtol)


CONVERSION_TARGETS = support.SCALAR_TYPES


@pytest.mark.parametrize("source", support.SCALAR_TYPES)
@pytest.mark.parametrize("target", CONVERSION_TARGETS)
def test_conversion(source, target, rng):
    values = np.concatenate([support.boundary_values(source), support.random_values(source, 400, rng)])
    target_dtype = np.dtype(target)
    if np.dtype(source).kind == "f" and target_dtype.kind in "iu":
        # float -> int is defined only for values that fit the target
        info = np.iinfo(target_dtype)
        with np.errstate(invalid="ignore"):
            fits = np.isfinite(values) & (values >= info.min) & (values < float(info.max) + 1)
        values = values[fits]
    with np.errstate(all="ignore"):
        expected = values.astype(target_dtype)
    out = support.poisoned(len(values), target_dtype)
    kernel = cuda.jit(kernels.conversion_kernel(target))
    kernel[(len(values) + 127) // 128, 128](values, out)
    support.assert_matches(out, expected, f"{source} -> {target}")


@pytest.mark.parametrize("dtype", support.SCALAR_TYPES)
def test_unary_minus(dtype, rng):
    a = np.concatenate([support.boundary_values(dtype), support.random_values(dtype, 300, rng)])
    sig = support.unary_signature(operator.neg, dtype)
    with np.errstate(all="ignore"):
        expected = np.negative(a.astype(support.dtype_of(sig.args[0])).astype(support.dtype_of(sig.return_type)))
    out = support.poisoned(len(a), expected.dtype)
    cuda.jit(kernels.unary_minus)[(len(a) + 127) // 128, 128](a, out)
    support.assert_matches(out, expected, f"-{dtype} ({sig})")
