"""Functions jitted for the CPU (``numba.njit``, ``numba.jit``, ``register_jitable``) called
from kernels and device functions: their Python code is compiled for the device."""

import math
import re

import numba
import numpy as np
import pytest
from numba.core import errors, types

from cumlir import compiler, cuda
from cumlir.typing.frontend import device_dispatcher_of

from .cases import jit_function_kernels as cases
from .support import poisoned, ptxas


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_kernels_calling_jitted_functions_assemble(name, backend):
    kernel, sig, *_ = cases.CASES[name]
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend=backend)
    ptxas(ptx, "sm_90")


def test_the_jitted_functions_are_device_functions_the_kernel_calls(backend):
    # at opt=False nothing is inlined: each function is a .func of the PTX, called by the kernel
    ptx, _ = cuda.compile_ptx(cases.integers, cases.CASES["integers"][1], cc=(9, 0), opt=False, backend=backend)
    ptxas(ptx, "sm_90")
    for name in ("business_logic", "calls_another", "jitable_calls_njit"):
        assert f".func  (.param .b64 func_retval0) {name}(" in ptx, name
        assert re.search(rf"call\.uni \(retval0\),\s+{name},", ptx), name


def test_inlining_options_carry_over():
    # inline="always" and forceinline=True become LLVM's alwaysinline: gone even at opt=False
    ptx, _ = cuda.compile_ptx(cases.floats, cases.CASES["floats"][1], cc=(9, 0), opt=False)
    assert "inlined" not in ptx and "forced" not in ptx
    assert "declared_hypot" in ptx and "affine" in ptx


@numba.njit(fastmath=True)
def _fast(x, y):
    return x / y + math.sin(x)


@cuda.jit(device=True, fastmath=True)
def _fast_device(x, y):
    return x / y + math.sin(x)


def _precise_and(fast_function):
    def kernel(a, out):
        out[0] = fast_function(a[0], a[1])
        out[1] = a[0] / a[1] + math.sin(a[1])

    return kernel


@pytest.mark.parametrize("fast_function", [_fast, _fast_device], ids=["njit", "device"])
def test_a_function_compiled_with_fastmath_is_fast_on_its_own(fast_function, backend):
    # its division and sin are approximate, the kernel's own stay correctly rounded
    ptx, _ = cuda.compile_ptx(_precise_and(fast_function), "void(float32[:], float32[:])", cc=(9, 0), backend=backend)
    ptxas(ptx, "sm_90")
    assert "sin.approx.f32" in ptx  # __nv_fast_sinf
    assert "div.rn.f32" in ptx
    if backend == "nvptx":  # libNVVM's division follows its -prec-div option, the kernel's
        assert "div.approx.f32" in ptx
    plain, _ = cuda.compile_ptx(_precise_and(cases.shifted), "void(float32[:], float32[:])", cc=(9, 0), backend=backend)
    assert "sin.approx" not in plain and "div.approx" not in plain


def test_one_device_dispatcher_per_cpu_function():
    assert device_dispatcher_of(cases.business_logic) is device_dispatcher_of(cases.business_logic)
    assert device_dispatcher_of(cases.business_logic).py_func is cases.business_logic.py_func


def test_device_typing_does_not_compile_for_the_cpu():
    @numba.njit
    def half(x):
        return x / 2

    def kernel(a):
        a[0] = half(a[0])

    compiler.emit(kernel, (types.float32[:],), "mlir", (9, 0))
    assert half.signatures == []  # typed for the device only
    assert device_dispatcher_of(half).nopython_signatures[0].args == (types.float32,)
    assert half(3.0) == 1.5  # still an ordinary CPU function


def test_jitted_functions_reached_through_a_module_and_after_cpu_use():
    @numba.njit
    def triple(x):
        return 3 * x

    assert triple(2) == 6  # compiled for the CPU first: the device compiles its own

    def kernel(a):
        a[0] = cases.business_logic(a[0], 1, 2) + triple(a[1])

    text = compiler.emit(kernel, (types.int64[:],), "mlir", (9, 0))
    assert re.search(r"func.func private @business_logic\(", text)
    assert re.search(r"func.func private @triple\(", text)
    assert triple.signatures == [(types.int64,)]


def test_declared_signatures_convert_the_arguments():
    def kernel(a, out):
        out[0] = cases.declared_hypot(a[0], a[1])

    text = compiler.emit(kernel, (types.float32[:], types.float64[:]), "typed", (9, 0))
    assert "declared_hypot" in text
    typed = compiler.type_function(kernel, (types.float32[:], types.float64[:]))
    call_sigs = [str(s) for s in typed.calltypes.values() if s is not None]
    assert "(float64, float64) -> float64" in call_sigs


def test_a_call_no_declared_signature_accepts_is_a_typing_error():
    def kernel(a):
        a[0] = cases.declared_hypot(a, a)

    with pytest.raises(errors.TypingError, match="declared_hypot"):
        cuda.compile_ptx(kernel, "void(float64[:])", cc=(9, 0))


def test_code_the_device_cannot_run_is_reported_at_its_line():
    @numba.njit
    def uses_a_dict(x):
        d = {1: x}
        return d[1]

    def kernel(a):
        a[0] = uses_a_dict(a[0])

    with pytest.raises(errors.NumbaError, match=r"dictionaries are not supported in device code(.|\n)*d = \{1: x\}"):
        cuda.compile_ptx(kernel, "void(float64[:])", cc=(9, 0))


def test_numba_ir_inlining_of_overloads_is_refused_by_name():
    from numba.extending import register_jitable

    @register_jitable(inline="always")
    def twice(x):
        return 2 * x

    def kernel(a):
        a[0] = twice(a[0])

    with pytest.raises(errors.TypingError, match="inline='always' on @overload or @register_jitable"):
        cuda.compile_ptx(kernel, "void(float64[:])", cc=(9, 0))


# ---- on the GPU -------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_jitted_functions_on_the_gpu(name, rng):
    kernel, sig, inputs, dtype, reference = cases.CASES[name]
    n = 300
    args = inputs(rng, n)
    expected = reference(*args)
    for launched in (cuda.jit(kernel), cuda.jit(sig)(kernel)):
        out = poisoned(n, dtype)
        launched[(n + 63) // 64, 64](*args, out)
        if dtype == np.int64:
            np.testing.assert_array_equal(out, expected)
        else:
            np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.gpu
def test_jitted_function_called_from_a_device_function_on_the_gpu(rng):
    @cuda.jit
    def kernel(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cases.device_wrapper(a[i])

    a = rng.standard_normal(100)
    out = poisoned(100, np.float64)
    kernel[1, 128](a, out)
    expected = [cases.jitable(x) + cases.inlined(x) + cases.forced(x) for x in a]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
