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


# ---- the typing context's own costs --------------------------------------------------------

_FIRST_KERNEL = """
import json, sys
from cumlir import cuda, operations
from cumlir.compiler import type_function
from cumlir.typing import operations as stub_typing
from numba.core import types

def k(a, n):
    i = cuda.grid(1)
    if i < a.size and bool(n):
        cuda.atomic.add(a, 0, cuda.popc(n))
        cuda.syncthreads()

type_function(k, (types.Array(types.int32, 1, "C"), types.int32))
built = sorted(s.__name__ for s, t in stub_typing._when_named.items() if t is not None)
print(json.dumps({"built": built, "unbuilt": sum(t is None for t in stub_typing._when_named.values()),
                  "typed_containers": "numba.typed.typeddict" in sys.modules}))
"""


def test_a_kernel_builds_the_templates_of_the_stubs_it_calls_and_no_others():
    import json

    from .support import python_output

    found = json.loads(python_output(_FIRST_KERNEL))
    assert found["built"] == ["atomic.add", "grid", "popc", "syncthreads"]
    assert found["unbuilt"] > 500  # the rest of the areas' stubs (fp16, bf16, warp, ...)
    # typing bool(n) and the `if` asks for bool's type: the builtin class is a global, and
    # numba's typeof() would import its typed containers to rule them out
    assert not found["typed_containers"]


_EXTENDED_STUB = """
from cumlir import cuda
from cumlir.compiler import type_function
from cumlir.extending import type_callable
from cumlir.typing.context import typing_context
from numba.core import types

def popc_of(a):
    a[0] = cuda.popc(a[1])

@type_callable(cuda.popc)
def popc_of_anything(context):
    return lambda x: types.int16

typing_context()  # picks the registration up
for dtype in (types.float64, types.uint64):
    typed = type_function(popc_of, (types.Array(dtype, 1, "C"),))
    print(next(t for t in typed.calltypes.values() if t is not None and len(t.args) == 1))
"""


def test_an_extension_typing_a_stub_comes_after_the_stubs_own_typing():
    from .support import python_output

    # the extension's typing for floats; for the types both accept, cumlir's first
    assert python_output(_EXTENDED_STUB).splitlines() == ["(float64,) -> int16", "(uint64,) -> uint64"]


def test_kept_operator_typings_are_numbas_for_every_literal():
    """The typing context keeps what pure operators on scalars type to, literal arguments
    included; each kept answer, asked for twice, is numba's own (the literal's value can
    change it: 2**63 is a uint64 literal, True a bool)."""
    import operator

    from numba.core.typing.context import BaseContext

    from cumlir.typing.context import typing_context

    ctx = typing_context()
    operators = (
        operator.add,
        operator.lt,
        operator.lshift,
        operator.truediv,
        operator.pow,
        operator.floordiv,
        operator.mod,
    )
    scalars = (types.uint8, types.uint64, types.int32, types.boolean, types.float32)
    for op in operators:
        function = ctx.resolve_value_type(op)
        for scalar in scalars:
            for value in (1, -1, 2**40, 2**63, True, 0):
                args = (scalar, types.literal(value))
                for order in (args, args[::-1]):
                    try:
                        numbas = BaseContext.resolve_function_type(ctx, function, order, {})
                    except TypingError:
                        numbas = TypingError
                    for _ in range(2):
                        try:
                            ours = ctx.resolve_function_type(function, order, {})
                        except TypingError:
                            ours = TypingError
                        assert ours == numbas, (op, order)
