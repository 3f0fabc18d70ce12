"""``cuda.experimental.consteval`` (typing/consteval.py): expressions, unrolled loops and
blocks evaluated while a kernel compiles, and ``if`` pruned on their constants. CPU tests
read the typed IR and the PTX; the GPU test runs them."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda.experimental import consteval

from . import support
from .cases import consteval_kernels as K

CCS = pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])


def _holds(ptx, value):
    """Whether *value* (a float64) is in the PTX, as a float literal or as its bits."""
    bits = np.float64(value).view(np.int64)
    return f"0d{int(bits):016X}" in ptx.upper().replace("0D", "0d") or str(int(bits)) in ptx


def _ptx(fn, sig, cc=(9, 0), backend=None):
    ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    return ptx


@CCS
def test_an_expression_is_a_constant(backend, cc):
    ptx = _ptx(K.expression, "void(float64[::1])", cc, backend)
    assert _holds(ptx, 49.0)  # 15 * 3 + sqrt(16): one constant, computed while compiling
    assert "sqrt" not in ptx


@CCS
def test_a_loop_is_unrolled(backend, cc):
    import dis

    from cumlir.typing.consteval import expanded

    rewritten = expanded(K.unrolled)
    assert "FOR_ITER" not in {op.opname for op in dis.get_instructions(rewritten)}  # no loop left
    assert rewritten.__code__.co_filename == K.unrolled.__code__.co_filename  # errors point at the source
    ptx = _ptx(K.unrolled, "void(float64[::1], float64[::1])", cc, backend)
    assert _holds(ptx, 2.0) and _holds(ptx, 4.0)  # TABLE[1] and TABLE[2]: a copy of the body for each


def test_a_block_binds_constants():
    ptx = _ptx(K.block, "void(float64[::1])")
    assert _holds(ptx, 1.5)  # scale * weights[1], both bound by the block


def test_an_if_on_a_constant_keeps_the_branch_taken():
    _ptx(K.constant_if, "void(float64[::1])")  # the other branch names nothing that exists


def test_a_name_assigned_once_from_consteval_is_a_constant_after():
    def held(a):
        n = consteval(3 * 4)
        if consteval(n > 10):  # n is 12 while compiling
            a[0] = consteval(n * 2)
        else:
            a[0] = undefined_name  # noqa: F821 - pruned: never typed

    assert _holds(_ptx(held, "void(float64[::1])"), 24.0)

    def reassigned(a, k):
        n = consteval(3)
        for _ in range(k):
            n += 1  # assigned again: not a constant of the consteval forms after it
        a[0] = consteval(n * 2)

    with pytest.raises(Exception, match=r"consteval could not evaluate 'n \* 2' at compile time: NameError"):
        cuda.compile_ptx(reassigned, "void(float64[::1], int64)", cc=(9, 0))


def test_an_expression_that_fails_names_it_and_its_line():
    with pytest.raises(Exception, match=r"consteval could not evaluate '1 / 0' at compile time: ZeroDivisionError"):
        cuda.compile_ptx(K.failing, "void(float64[::1])", cc=(9, 0))


def test_break_in_an_unrolled_loop_is_refused():
    with pytest.raises(Exception, match="break and continue are not supported in a loop unrolled by consteval"):
        cuda.compile_ptx(K.breaking, "void(int64[::1])", cc=(9, 0))


def test_in_plain_python_consteval_is_the_value():
    assert consteval(3) == 3
    with consteval():
        ran = True
    assert ran


@pytest.mark.gpu
def test_consteval_kernels_run():
    out = np.full(64, np.nan)
    cuda.jit(K.expression)[1, 64](out)
    np.testing.assert_array_equal(out, 49.0)
    a = np.arange(64, dtype=np.float64)
    cuda.jit(K.unrolled)[1, 64](a, out)
    np.testing.assert_allclose(out, a * 7.0 + 3.0)
    cuda.jit(K.block)[1, 64](out)
    np.testing.assert_array_equal(out, 1.5)
