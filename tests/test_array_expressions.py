"""Array expressions in device code (operators and ufuncs on arrays and scalars, each making
a new array of the broadcast shape) for every class of dtype and mixed pairs: compiled on
both code generators here, compared on the GPU with the same expression compiled by numba
for the host. Mixed dtypes promote as numba (and Numba-CUDA) promote them, which differs
from NumPy for an integer with a float32 (float32, not float64) and for true division of
narrow integers (float32): docs/semantics.md."""

import numba
import numpy as np
import pytest
from numba import typeof

from cumlir import cuda

PAIRS = [
    ("bool", "bool"),
    ("int8", "int8"),
    ("uint16", "int32"),
    ("int64", "uint64"),
    ("int32", "float32"),
    ("float16", "float16"),
    ("float16", "float32"),
    ("float32", "float64"),
    ("complex64", "complex128"),
    ("float32", "complex64"),
]

EXPRESSIONS = {
    "add": "a + b",
    "multiply": "a * b",
    "subtract": "a - b",
    "negative": "-a",
    "scaled": "2 * a + b",
    "true_divide": "a / b",
    "floor_divide": "a // b",
    "less": "a < b",
    "equal": "a == b",
    "maximum": "np.maximum(a, b)",
    "sqrt_abs": "np.sqrt(np.abs(a))",
    "broadcast": "a + b2",
}


def _valid(name, left, right):
    kinds = {np.dtype(left).kind, np.dtype(right).kind}
    if "b" in kinds and name in ("subtract", "negative", "floor_divide"):
        return False  # NumPy refuses these on booleans
    if "c" in kinds and name == "floor_divide":
        return False
    return True


CASES = [(name, left, right) for name in EXPRESSIONS for left, right in PAIRS if _valid(name, left, right)]


def _kernel(name):
    namespace = {"np": np}
    store = (
        "    for i in range(c.shape[0]):\n        for j in range(c.shape[1]):\n            out[i * c.shape[1] + j] = c[i, j]\n"
        if name == "broadcast"
        else "    for i in range(c.size):\n        out[i] = c[i]\n"
    )
    exec(f"def kernel(a, b, b2, out):\n    c = {EXPRESSIONS[name]}\n{store}", namespace)
    return namespace["kernel"]


def _operands(left, right, rng, n=24):
    def draw(dtype, shape):
        dtype = np.dtype(dtype)
        if dtype.kind == "b":
            return rng.integers(0, 2, shape).astype(bool)
        if dtype.kind in "iu":
            return rng.integers(1, 50, shape).astype(dtype)  # nonzero divisors, no overflow
        values = rng.uniform(0.5, 4.0, shape) * rng.choice([-1, 1], shape)
        if dtype.kind == "c":
            values = values + 1j * rng.uniform(-2.0, 2.0, shape)
        return values.astype(dtype)

    return draw(left, n), draw(right, n), draw(right, (3, n))


def _expected(name, a, b, b2):
    """The expression's value as numba computes it on the host (its promotions are the
    device's); NumPy's where numba's host target has no float16 arithmetic or complex
    ordering (pairs that promote alike in both)."""
    if np.float16 not in (a.dtype, b.dtype) and not (name == "less" and "c" in a.dtype.kind + b.dtype.kind):
        namespace = {"np": np}
        exec(f"def value(a, b, b2):\n    return {EXPRESSIONS[name]}\n", namespace)
        return np.asarray(numba.njit(namespace["value"])(a, b, b2))
    with np.errstate(all="ignore"):
        return np.asarray(eval(EXPRESSIONS[name], {"np": np, "a": a, "b": b, "b2": b2}))


@pytest.mark.parametrize("name, left, right", CASES[::7], ids=lambda v: str(v))
def test_expressions_compile(name, left, right, backend):
    a, b, b2 = _operands(left, right, np.random.default_rng(0))
    expected = _expected(name, a, b, b2)
    sig = (typeof(a), typeof(b), typeof(b2), typeof(np.empty(1, expected.dtype)))
    kernel = cuda.jit(backend=backend)(_kernel(name)).compile(sig)
    assert "NRT_MemInfo_alloc_aligned" in kernel.output("ptx", (9, 0))  # the new arrays come from the heap
    assert kernel.binary((9, 0)).cubin[:4] == b"\x7fELF"  # linked with the runtime


@pytest.mark.gpu
@pytest.mark.parametrize("name, left, right", CASES, ids=lambda v: str(v))
def test_expressions_match_numpy(name, left, right, backend):
    a, b, b2 = _operands(left, right, np.random.default_rng(hash((name, left, right)) % 2**32))
    expected = _expected(name, a, b, b2).ravel()
    poison = ~expected if expected.dtype == np.bool_ else np.full(expected.size, 77, expected.dtype)
    out = cuda.to_device(poison)
    cuda.jit(backend=backend)(_kernel(name))[1, 1](*(cuda.to_device(x) for x in (a, b, b2)), out)
    got = out.copy_to_host()
    assert got.dtype == expected.dtype
    if expected.dtype.kind in "fc":
        eps = np.finfo(expected.dtype).eps
        np.testing.assert_allclose(got, expected, rtol=4 * eps, atol=4 * eps)
    else:
        np.testing.assert_array_equal(got, expected)
