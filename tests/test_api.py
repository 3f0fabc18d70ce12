"""The public API on a machine without a GPU: decorator forms, compile_ptx, launch checks."""

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from . import support


def test_jit_forms():
    def f(a):
        a[0] = 1

    plain = cuda.jit(f)
    assert plain.py_func is f and plain.__name__ == "f"
    assert cuda.jit()(f).py_func is f
    device = cuda.jit(device=True)(f)
    assert device.device
    with pytest.raises(TypeError, match="device function"):
        device[1, 1]
    with pytest.raises(TypeError, match="only be called from a kernel"):
        device(np.zeros(1))


def test_eager_signature_types_at_decoration():
    @cuda.jit("void(int64[:], float64)")
    def store(a, x):
        a[0] = x

    (kernel,) = store.overloads.values()
    assert kernel.argtypes == (types.Array(types.int64, 1, "A"), types.float64)
    ptx = kernel.output("ptx", (9, 0))
    support.ptxas(ptx)


def test_eager_signature_errors_surface_at_decoration():
    with pytest.raises(TypingError, match="no_such"):

        @cuda.jit("void(int64[:])")
        def broken(a):
            a[0] = a.no_such

    with pytest.raises(TypeError, match="must return None"):

        @cuda.jit("int64(int64[:])")
        def returns(a):
            return a[0]


def test_compile_ptx_returns_ptx_and_type():
    def k(a, x):
        a[cuda.grid(1)] = x * 2

    ptx, restype = cuda.compile_ptx(k, (types.float32[:], types.float32), cc=(9, 0))
    assert restype == types.none
    assert ".visible .entry k(" in ptx


_NOT_FUNCTIONS = [(42, r"42 \(int\)"), (len, r"<built-in function len> \(builtin_function_or_method\)")]


# each public entry point that takes a function, called with it: (what names it, the call)
_TAKING_FUNCTIONS = {
    "compile_ptx": ("cuda.compile_ptx", lambda f: cuda.compile_ptx(f, "void(int32[:])", cc=(9, 0))),
    "compile_ptx_device": ("cuda.compile_ptx", lambda f: cuda.compile_ptx(f, "int32(int32)", device=True, cc=(9, 0))),
    "compile": ("cuda.compile", lambda f: cuda.compile(f, "int32(int32)", cc=(9, 0))),
    "compile_all": ("cuda.compile_all", lambda f: cuda.compile_all(f, "int32(int32)", cc=(9, 0))),
    "jit_signature": ("cuda.jit", lambda f: cuda.jit("void(int32[:])")(f)),
    "jit_device": ("cuda.jit", lambda f: cuda.jit(device=True)(f)),
    "vectorize": ("cuda.vectorize", lambda f: cuda.vectorize(["float32(float32)"])(f)),
    "guvectorize": ("cuda.guvectorize", lambda f: cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->(n)")(f)),
    "reduce": ("cuda.reduce", cuda.reduce),
}


@pytest.mark.parametrize("bad,shown", _NOT_FUNCTIONS, ids=["int", "builtin"])
@pytest.mark.parametrize("entry", sorted(_TAKING_FUNCTIONS))
def test_what_is_not_a_python_function_is_a_type_error_naming_it(bad, shown, entry):
    where, use = _TAKING_FUNCTIONS[entry]
    message = rf"{where} compiles Python functions \(def or lambda\) and @cuda.jit functions, not {shown}"
    with pytest.raises(TypeError, match=message):
        use(bad)


@pytest.mark.parametrize("where,decorator", [("cuda.jit", cuda.jit), ("cuda.vectorize", cuda.vectorize)])
def test_a_decorator_given_neither_a_function_nor_signatures_says_so(where, decorator):
    with pytest.raises(TypeError, match=rf"{where} takes a Python function or signatures, not 42 \(int\)"):
        decorator(42)
    with pytest.raises(TypeError, match=rf"{where} compiles Python functions .* not <built-in function len>"):
        decorator(len)


def test_compile_ptx_takes_a_jit_function_for_its_python_function():
    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    ptx, result = cuda.compile_ptx(twice, "int32(int32)", device=True, cc=(9, 0))
    assert result == types.int32 and ".func" in ptx


@pytest.mark.parametrize("sig", ["(float32[:],)", "void(float32[:])"])
def test_kernel_returning_a_value_is_an_error(sig):
    def k(a):
        return a[0]

    with pytest.raises(
        TypeError, match=r"kernel k \(.*test_api.py:\d+\): a kernel must return None, but it returns float32"
    ):
        cuda.compile_ptx(k, sig, cc=(9, 0))


def test_recursive_device_function_compiles_on_its_own():
    from .cases.language_kernels import fib, fib_declared, is_even

    for function in (fib, fib_declared, is_even):
        ptx, _ = cuda.compile_ptx(function, "(int64,)", device=True, cc=(9, 0))
        assert ".func" in ptx
        if function is not is_even:  # LLVM turns is_even's tail calls into a loop
            assert "call" in ptx  # fib's two recursive calls stay calls
        support.ptxas(ptx)


@pytest.mark.parametrize("sig", ["int64(int64)", "(int64,)"])
def test_recursive_device_function_with_or_without_its_result_type(sig):
    def fib(n):  # its own: a function typed before would not type its recursion again
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    ptx, resty = cuda.compile_ptx(fib, sig, device=True, cc=(9, 0))
    assert str(resty) == "int64" and "call" in ptx
    support.ptxas(ptx)


def test_mutual_recursion_entered_with_other_argument_types():
    # is_even(int32) calls is_odd(int64), which calls is_even(int64) while is_even(int32) is
    # being typed (fresh functions: ones typed before would not type the recursion again)
    @cuda.jit(device=True)
    def is_even(n):
        return True if n == 0 else is_odd(n - 1)

    @cuda.jit(device=True)
    def is_odd(n):
        return False if n == 0 else is_even(n - 1)

    def k(out):
        out[0] = is_even(np.int32(out[1]))

    ptx, _ = cuda.compile_ptx(k, "void(int64[:])", cc=(9, 0))
    support.ptxas(ptx)


def test_mutual_recursion_with_an_eager_signature():
    # is_even's signature is typed when is_odd is not defined yet: it is typed at first use
    @cuda.jit("boolean(int64)", device=True)
    def is_even(n):
        return True if n == 0 else is_odd(n - 1)

    @cuda.jit(device=True)
    def is_odd(n):
        return False if n == 0 else is_even(n - 1)

    def k(out):
        out[0] = is_even(out[1])

    ptx, _ = cuda.compile_ptx(k, "void(int64[:])", cc=(9, 0))
    support.ptxas(ptx)
    assert [str(t) for t in is_even.device_dispatcher._device_functions] == ["(int64,)"]


def test_an_undefined_name_in_an_eager_device_signature_is_reported_at_first_use():
    @cuda.jit("boolean(int64)", device=True)
    def misspelt(n):
        return no_such_function(n)  # noqa: F821

    def k(out):
        out[0] = misspelt(out[1])

    with pytest.raises(TypingError, match="NameError: name 'no_such_function' is not defined"):
        cuda.compile_ptx(k, "void(int64[:])", cc=(9, 0))


def test_runaway_recursion_is_a_typing_error():
    @cuda.jit(device=True)
    def runaway(x):
        return runaway(x)

    def k(a):
        a[0] = runaway(1)

    with pytest.raises(TypingError, match="cannot type infer runaway recursion"):
        cuda.compile_ptx(k, "void(int64[:])", cc=(9, 0))


_GLOBAL_LIST = [1, 2]


def _with_dict(a):
    d = {1: 2}
    a[0] = d[1]


def _with_try(a):
    try:
        a[0] = 1
    except Exception:
        a[0] = 2


def _reading_a_global_list(a):
    a[0] = _GLOBAL_LIST[0]


def _with_context_manager(a):
    with open("f") as f:  # noqa: F841
        a[0] = 1


@pytest.mark.parametrize(
    "kernel,message",
    [
        (_with_dict, r"dictionaries are not supported in device code(.|\n)*d = \{1: 2\}"),
        (_with_try, r"try/except is not supported in device code(.|\n)*test_api.py"),
        (
            _reading_a_global_list,
            r"the global _GLOBAL_LIST is a list, which device code cannot read(.|\n)*_GLOBAL_LIST\[0\]",
        ),
        (
            _with_context_manager,
            r"'with \(context manager\) as \(variable\):' construct is not supported in device code(.|\n)*test_api.py",
        ),
    ],
)
def test_unsupported_python_is_named_with_its_line(kernel, message):
    with pytest.raises(Exception, match=message):
        cuda.compile_ptx(kernel, "void(int64[:])", cc=(9, 0))


def _counting_generator(n):
    yield from range(n)


def test_generator_is_refused_with_its_line():
    count = cuda.jit(device=True)(_counting_generator)

    def k(a):
        for x in count(3):
            a[0] = x

    with pytest.raises(Exception, match=r"(?s)_counting_generator is a generator \(it uses yield\).*test_api.py"):
        cuda.compile_ptx(k, "void(int32[:])", cc=(9, 0))
    with pytest.raises(Exception, match="is a generator"):
        cuda.compile_ptx(_counting_generator, "void(int32)", cc=(9, 0))


@pytest.mark.parametrize(
    "config,error,message",
    [
        ((1,), TypeError, "launch configuration"),
        ((0, 32), ValueError, "at least 1"),
        # Numba-CUDA's words first, then which part and what it takes
        (
            (1, (1, 2, 3, 4)),
            ValueError,
            r"^blockdim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]: "
            r"the block \(threads per block\) is an int or a tuple of 1 to 3 ints$",
        ),
        (((), 32), ValueError, r"^griddim must be a sequence of 1, 2 or 3 integers, got \[\]"),
        ((1.5, 32), TypeError, r"^griddim must be a sequence of integers, got \[1.5\]: the grid \(number of blocks\)"),
        ((2, (3, 2.0)), TypeError, r"^blockdim must be a sequence of integers, got \[3, 2.0\]"),
        ((True, 32), TypeError, r"^griddim must be a sequence of integers, got \[True\]"),
        ((np.int16(2), (np.uint8(3), 4)), None, None),
        ((1, 32, 0, -4), TypeError, "non-negative"),
        ((1, 32, "stream"), TypeError, "as a CUDA stream"),
    ],
)
def test_bad_launch_configuration(config, error, message):
    @cuda.jit
    def k(a):
        a[0] = 1

    if error is None:
        assert (k[config].config.griddim, k[config].config.blockdim) == ((2, 1, 1), (3, 4, 1))
        return
    with pytest.raises(error, match=message):
        k[config]


def test_unsupported_construct_is_a_clear_error():
    def k(a):
        try:
            a[0] = 1
        except Exception:
            a[0] = 2

    with pytest.raises(Exception) as info:
        cuda.compile_ptx(k, "(float32[:],)", cc=(9, 0))
    assert "line" in str(info.value) or "File" in str(info.value)


def test_numba_cuda_names_for_host_code():
    import io

    from numba.core import types as nb_types

    from cumlir.cuda import float32, int64, void  # Numba-CUDA re-exports the scalar types
    from cumlir.extending import models

    assert (float32, int64, void) == (nb_types.float32, nb_types.int64, nb_types.void)
    assert models.register_model is not None and cuda.DeviceNDArray is cuda.devicearray.DeviceNDArray
    with pytest.raises(AttributeError, match="no attribute 'float128'"):
        cuda.float128

    @cuda.jit("void(float32[:], float32)")
    def scale(a, x):
        a[cuda.grid(1)] *= x

    ptx = scale.inspect_asm(cc=(9, 0))
    (only,) = ptx.values()
    assert ".visible .entry scale(" in only and only == scale.inspect_ptx(cc=(9, 0))[next(iter(ptx))]
    out = io.StringIO()
    scale.inspect_types(file=out)
    assert (
        "scale (Array(float32, 1, 'A', False, aligned=True), float32)" in out.getvalue()
        and "x: float32" in out.getvalue()
    )
