"""cuda.inline_ptx (numba-cuda-mlir's): the PTX lands in the kernel on both code generators and
ptxas accepts it; operands, results and bad input; on the GPU, the values it computes."""

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support

ARCHS = [(8, 0), (9, 0)]


def _operations(a, b, f):
    i = cuda.grid(1)
    total = cuda.inline_ptx("add.s32 %0, %1, %2;", "=r", 0, "r", a[i], "r", b[i])
    low, high = cuda.inline_ptx(
        "mov.b64 {%0, %1}, %2;", "=r", 0, "=r", 0, "l", np.int64(b[i]) << 32 | (np.int64(a[i]) & 0xFFFFFFFF)
    )
    cubed = cuda.inline_ptx("{ .reg .f32 t; mul.f32 t, %1, %1; mul.f32 %0, t, %1; }", "=f", 0.0, "f", f[i])
    wide = cuda.inline_ptx("mul.wide.s16 %0, %1, %1;", "=r", 0, "h", np.int16(a[i]))
    twice = cuda.inline_ptx("add.f64 %0, %1, %1;", "=d", 0.0, "d", np.float64(f[i]))
    cuda.inline_ptx("membar.gl;")
    a[i] = total + low + high + wide
    f[i] = cubed + twice


def _lane(out):
    lane = 0
    cuda.inline_ptx("mov.u32 %0, %%laneid;", "+r", lane)  # read and written: nothing returned
    out[cuda.grid(1)] = cuda.inline_ptx("mov.u32 %0, %%laneid;", "=r", 0)


SIG = "void(int32[:], int32[:], float32[:])"


@pytest.mark.parametrize("cc", ARCHS)
def test_the_ptx_is_in_the_kernel_and_assembles(backend, cc):
    ptx, _ = cuda.compile_ptx(_operations, SIG, cc=cc, backend=backend)
    lines = [line.strip() for line in ptx.splitlines()]
    assert any(line.startswith("add.s32 %r") and line.endswith(";") and "\t" not in line for line in lines)
    assert any(line.startswith("mov.b64 {%r") for line in lines)
    assert any(line.startswith("{ .reg .f32 t; mul.f32 t,") for line in lines)
    assert any(line.startswith("mul.wide.s16 %r") for line in lines)
    assert "membar.gl;" in lines
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


@pytest.mark.parametrize("cc", ARCHS)
def test_percent_signs_and_read_write_operands(backend, cc):
    ptx, _ = cuda.compile_ptx(_lane, "void(int32[:])", cc=cc, backend=backend)
    assert ptx.count("%laneid;") == 2 and "%%" not in ptx
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_pointer_operands(backend):
    from numba.core import types

    def kernel(p, a):
        q = cuda.inline_ptx("add.s64 %0, %1, 4;", "=C", p, "C", p)
        cuda.inline_ptx("st.global.u32 [%0], %1;", "C", q, "r", a[0])

    ptx, _ = cuda.compile_ptx(kernel, (types.voidptr, types.int32[:]), cc=(8, 0), backend=backend)
    assert "add.s64 %rd" in ptx and "st.global.u32 [%rd" in ptx
    support.ptxas(ptx, "sm_80")


def test_results_are_typed_by_their_constraints():
    from numba.core import types

    def kernel(a):
        a[0] = cuda.inline_ptx("mov.u32 %0, 1;", "=r", 0.5)

    ptx, _ = cuda.compile_ptx(kernel, "void(int64[:])", cc=(8, 0))
    assert "mov.u32 %r" in ptx
    from cumlir.operations.cuda.inline_ptx import _typing

    sig = _typing(None, (types.literal("mov.u32 %0, 1;"), types.literal("=r"), types.float64), {})
    assert sig.return_type == types.int32


def _bad(body, message):
    namespace = {"cuda": cuda}
    exec(f"def kernel(a):\n    x = 1\n    {body}\n", namespace)
    with pytest.raises(TypingError, match=message) as raised:
        cuda.compile_ptx(namespace["kernel"], "void(int32[:])", cc=(8, 0))
    assert 'File "<string>", line 3' in str(raised.value)  # the line of the call


@pytest.mark.parametrize(
    "body, message",
    [
        ('a[0] = cuda.inline_ptx("add.s32 %0, %1, %5;", "=r", 0, "r", x)', r"names %5, but 2 operand\(s\) are given"),
        ('cuda.inline_ptx("mov.u32 %0, 1;")', "names %0, but no operands are given"),
        ('a[0] = cuda.inline_ptx("mov.u32 %0, %1;", "=r", 0, "r")', r"\(constraint, value\) pairs; got 3"),
        ('a[0] = cuda.inline_ptx("mov.u32 %0, %1;", "=r", 0, "q", x)', "operand %1 has the constraint 'q'"),
        ('a[0] = cuda.inline_ptx("mov.u32 %0, %1;", "=r", 0, "=+r", x)', "operand %1 has the constraint '=\\+r'"),
        ('a[0] = cuda.inline_ptx("mov.u32 %0, %1;", "=r", 0, "C", x)', r"operand %1 \(C\) must be a pointer"),
        ('a[0] = cuda.inline_ptx("mov.u32 %0, %1;", "=r", 0, "r", a)', r"operand %1 \(r\) must be a number"),
        ('cuda.inline_ptx("membar.gl;", flag=1)', "takes no keyword arguments"),
        ("cuda.inline_ptx()", "needs the PTX template"),
    ],
)
def test_bad_input_is_a_typing_error_at_its_line(body, message):
    _bad(body, message)


def test_a_template_not_known_at_compile_time_is_refused():
    def kernel(a, text):
        cuda.inline_ptx(text)

    from numba.core import types

    with pytest.raises(TypingError, match="the PTX template must be a string literal"):
        cuda.compile_ptx(kernel, (types.int32[:], types.unicode_type), cc=(8, 0))


def test_a_constraint_not_known_at_compile_time_is_refused():
    def kernel(a, c):
        a[0] = cuda.inline_ptx("mov.u32 %0, 1;", c, 0)

    from numba.core import types

    with pytest.raises(TypingError, match="constraint of operand %0 must be a string literal"):
        cuda.compile_ptx(kernel, (types.int32[:], types.unicode_type), cc=(8, 0))


def test_on_the_host_it_names_itself():
    with pytest.raises(RuntimeError, match="cuda.inline_ptx can only be used inside"):
        cuda.inline_ptx("membar.gl;")


@pytest.mark.not_simulated("a user's inline PTX runs on the GPU only")
@pytest.mark.gpu
def test_gpu_values(backend, rng):
    n = 64
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(0, 1000, n).astype(np.int32)
    f = rng.uniform(-4, 4, n).astype(np.float32)
    a_out, f_out = a.copy(), f.copy()
    cuda.jit(backend=backend)(_operations)[1, n](a_out, b, f_out)
    # the sum, the low and high words of (b << 32 | a), and a * a widened from 16 bits
    np.testing.assert_array_equal(a_out, (a + b) + a + b + a * a)
    np.testing.assert_allclose(f_out, f * f * f + 2 * f.astype(np.float64), rtol=1e-5)
    lanes = np.zeros(n, np.int32)
    cuda.jit(backend=backend)(_lane)[1, n](lanes)
    np.testing.assert_array_equal(lanes, np.arange(n) % 32)
