"""The frontend: types that numba's inference gives kernels under cumlir's typing context."""

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.compiler import type_function

f32_1d = types.Array(types.float32, 1, "C")


def _types_of(typed, names):
    return {n: typed.typemap[n] for n in names}


def test_thread_registers_are_int32():
    def k(out):
        t = cuda.threadIdx.x
        b = cuda.blockIdx.y
        d = cuda.blockDim.z
        g = cuda.gridDim.x
        out[0] = t + b + d + g

    typed = type_function(k, (f32_1d,))
    assert _types_of(typed, ["t", "b", "d", "g"]) == dict.fromkeys(["t", "b", "d", "g"], types.int32)


def test_grid_and_gridsize_types():
    def k(out):
        i = cuda.grid(1)
        xy = cuda.grid(2)
        n = cuda.gridsize(1)
        nxyz = cuda.gridsize(3)
        out[0] = i + n + xy[0] + nxyz[2]

    typed = type_function(k, (f32_1d,))
    assert typed.typemap["i"] == types.int64
    assert typed.typemap["n"] == types.int64
    assert typed.typemap["xy"] == types.UniTuple(types.int64, 2)
    assert typed.typemap["nxyz"] == types.UniTuple(types.int64, 3)


def test_imported_stubs_type_like_module_attributes():
    from cumlir.cuda import grid, threadIdx

    def k(out):
        i = grid(1)
        t = threadIdx.x
        out[i] = t

    typed = type_function(k, (f32_1d,))
    assert typed.typemap["i"] == types.int64
    assert typed.typemap["t"] == types.int32


def test_array_attributes():
    def k(a, out):
        s = a.shape
        n = a.size
        m = len(a)
        out[0] = s[0] + n + m

    typed = type_function(k, (types.Array(types.int32, 2, "C"), f32_1d))
    assert typed.typemap["s"] == types.UniTuple(types.intp, 2)
    assert typed.typemap["n"] == types.intp
    assert typed.typemap["m"] == types.intp


@pytest.mark.parametrize("ndim", [0, 4, "x"])
def test_grid_needs_a_constant_1_2_or_3(ndim):
    def k(out, n):
        out[0] = cuda.grid(n if ndim == "x" else ndim)

    with pytest.raises(TypingError, match="cuda.grid"):
        type_function(k, (f32_1d, types.int64))


def test_typing_error_names_line():
    def k(out):
        out[0] = undefined_name  # noqa: F821

    with pytest.raises(TypingError) as info:
        type_function(k, (f32_1d,))
    assert "undefined_name" in str(info.value)
    assert "out[0] = undefined_name" in str(info.value)


def test_argument_count_mismatch():
    def k(a, b):
        a[0] = b

    with pytest.raises(TypeError, match="takes 2 arguments"):
        type_function(k, (f32_1d,))


@pytest.mark.parametrize(
    "body,message",
    [
        ("x = 1 if out[0] > 0 else (1, 2)\n    out[1] = x[0]", "Cannot unify"),
        ("out[0] = math.sin(1.0, 2.0)", "sin"),
        ("out[0] = math.frobnicate(1.0)", "frobnicate"),
        ("out[0] = sorted(out)[0]", "sorted"),
    ],
)
def test_typing_errors_name_the_expression_and_line(body, message):
    import math

    namespace = {"math": math}
    source = f"def k(out):\n    {body}\n"
    exec(compile(source, "bad_kernel.py", "exec"), namespace)
    with pytest.raises(Exception) as info:
        type_function(namespace["k"], (f32_1d,))
    text = str(info.value)
    assert message in text
    assert "bad_kernel.py" in text and "line" in text
