"""``cuda.experimental.consteval`` (typing/consteval.py): expressions, unrolled loops and
blocks evaluated while a kernel compiles, and ``if`` pruned on their constants. CPU tests
read the typed IR and the PTX; the GPU test runs them."""

import linecache

import numpy as np
import pytest
from numba.core import types

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


# ---- what consteval reads: parameters, loop variables, aliases ------------------------------


def by_parameter_types(out, n):
    # the parameters are numba's types of the arguments being compiled for
    if consteval(n == types.int32):
        out[0] = 32.0
    elif consteval(n == types.int64):
        out[0] = 64.0
    else:
        out[0] = consteval(n.bitwidth)
    out[1] = consteval(out.ndim * 1000 + n.bitwidth)
    scratch = cuda.local.array(2, consteval(out.dtype))  # the element type of out
    scratch[0] = 1.25
    out[2] = scratch[0]


def test_parameters_are_their_types_for_each_signature(simulator_or_gpu):
    kernel = cuda.jit(["void(float64[:], int32)", "void(float64[:], int64)"])(by_parameter_types)
    for value, expected in ((np.int32(3), [32.0, 1032.0]), (np.int64(3), [64.0, 1064.0])):
        out = np.full(4, np.nan)
        kernel[1, 1](out, value)
        np.testing.assert_array_equal(out[:3], [*expected, 1.25])
    out32 = np.full(4, np.nan, np.float32)
    cuda.jit(by_parameter_types)[1, 1](out32, np.int16(1))
    np.testing.assert_array_equal(out32[:3], [16.0, 1016.0, 1.25])


def test_a_rewriting_that_reads_no_parameter_is_shared():
    from cumlir.typing.consteval import expanded

    f64, i32, i64 = types.float64[:], types.int32, types.int64
    assert expanded(by_parameter_types, (f64, i32)) is not expanded(by_parameter_types, (f64, i64))
    assert expanded(by_parameter_types, (f64, i32)) is expanded(by_parameter_types, (f64, i32))
    assert expanded(K.expression, (f64,)) is expanded(K.expression, (types.float32[:],))


@cuda.jit(device=True)
def _widened(x):
    # a device function's parameters too: typed once per argument type
    return x * consteval(2.0 if x == types.float32 else 3.0)


def test_a_device_functions_parameters_are_the_types_of_the_call(simulator_or_gpu):
    @cuda.jit
    def kernel(out, a, b):
        out[0] = _widened(a[0])
        out[1] = _widened(b[0])

    out = np.full(2, np.nan)
    kernel[1, 1](out, np.ones(1, np.float32), np.ones(1, np.float64))
    np.testing.assert_array_equal(out, [2.0, 3.0])


PAIRS = ((0, [1, 2]), (1, [30, 40]))


def unrolled_targets(out):
    for idx, (low, high) in consteval(PAIRS):
        out[idx] = consteval(idx * 1000 + low + high)
    for idx, values in consteval(PAIRS):  # a list: read by consteval only
        out[2 + idx] = consteval(values[1])
    for k in consteval(range(3)):
        if consteval(k % 2 == 0):
            out[4 + k] = consteval(k * 10)
        else:
            out[4 + k] = -1.0
    out[7] = k  # the loop's name after it: its last value


def test_an_unrolled_loops_names_are_constants_in_its_body(simulator_or_gpu):
    out = np.full(8, np.nan)
    cuda.jit(unrolled_targets)[1, 1](out)
    np.testing.assert_array_equal(out, [3, 1070, 2, 40, 0, -1, 20, 2])


@pytest.mark.parametrize(
    "loop, message",
    [
        ("for a, b in consteval(((1,),)):", r"consteval cannot unpack \(1,\) into \(a, b\): 1 values for 2 names"),
        ("for a, *b in consteval(((1, 2),)):", r"binds names or tuples of names, not '\(a, \*b\)'"),
        ("for a.x in consteval((1,)):", r"binds names or tuples of names, not 'a.x'"),
    ],
)
def test_a_loop_target_consteval_cannot_bind_is_named_at_its_line(loop, message):
    source = f"def kernel(a):\n    {loop}\n        pass\n"
    filename = f"<consteval loop {abs(hash(loop))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # its source, for the rewriting
    namespace = {"consteval": consteval}
    exec(compile(source, filename, "exec"), namespace)
    with pytest.raises(Exception, match=message) as raised:
        cuda.compile_ptx(namespace["kernel"], "void(float64[::1])", cc=(9, 0))
    assert "line 2" in str(raised.value)


def test_consteval_under_another_name_or_from_a_closure():
    def made():
        from cumlir.cuda import experimental

        ce = experimental.consteval  # bound in the closure, under another name

        def kernel(a):
            a[0] = ce(6 * 7)
            with ce():
                scale = 0.5
            a[1] = scale

        return kernel

    ptx = _ptx(made(), "void(float64[::1])")
    assert _holds(ptx, 42.0) and _holds(ptx, 0.5)


def test_target_options_spelled_as_an_attribute():
    def kernel(a):
        a[0] = consteval(cuda.current_target_options()["cc"][0] * 10 + cuda.current_target_options()["cc"][1])
        with consteval():
            fast = cuda.current_target_options()["fastmath"]
        a[1] = consteval(1.0 if fast else 2.0)

    ptx = cuda.compile_ptx(kernel, "void(float64[::1])", cc=(8, 0), fastmath=True)[0]
    assert _holds(ptx, 80.0) and _holds(ptx, 1.0) and not _holds(ptx, 2.0)


def test_a_kernels_star_args_are_their_types():
    def kernel(out, *args):
        out[0] = consteval(len(args) * 10 + sum(1 for t in args if isinstance(t, types.Array)))

    ptx = _ptx(kernel, "void(float64[::1], float64[::1], int32, float32[:])")
    assert _holds(ptx, 32.0)


def test_with_consteval_as_a_name_is_refused():
    def kernel(a):
        with consteval() as value:  # noqa: F841 - refused: it binds nothing
            pass
        a[0] = 1.0

    with pytest.raises(Exception, match=r"'with consteval\(\) as value:' binds nothing: write 'with consteval\(\):'"):
        cuda.compile_ptx(kernel, "void(float64[::1])", cc=(9, 0))
