"""The errors a newcomer meets first say on their first line what is wrong: a typing error's
reason or the name that was meant (typing/first_lines.py), a kernel's *args, a missing cc=
where there is no GPU, the command line's signature of the wrong arity, and the examples that
need what the machine lacks."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda

from . import fake_driver

ROOT = Path(__file__).resolve().parent.parent
SIG = "void(float32[:], float32[:])"


def _first_line(error):
    return str(error).splitlines()[0]


def _typing_error(pyfunc, sig=SIG):
    with pytest.raises(TypingError) as raised:
        cuda.compile_ptx(pyfunc, sig, cc=(9, 0))
    return raised.value


def _set_at_float(a, b):
    a[b[0]] = 1.0


def _get_at_float(a, b):
    a[0] = a[b[0]]


def _get_at_float_pair(a, b):
    a[0] = a[b[0], b[1]]


@pytest.mark.parametrize(
    "pyfunc, sig, verb",
    [
        (_set_at_float, SIG, "assigned to"),
        (_get_at_float, SIG, "indexed"),
        (_get_at_float, "void(float32[:], float64[:])", "indexed"),
        (_get_at_float_pair, "void(float32[:, :], float64[:])", "indexed"),
    ],
)
def test_a_float_index_is_refused_on_the_first_line(pyfunc, sig, verb):
    line = _first_line(_typing_error(pyfunc, sig))
    index_type = line.removeprefix("an array index of type ").split(" is not allowed")[0]
    assert index_type in ("float32", "float64", "UniTuple(float64 x 2)")
    assert f"is {verb}): an index is an integer, a slice, or a tuple of them; convert a float with int()" in line


def test_numbas_message_follows_with_the_source_line():
    text = str(_typing_error(_set_at_float))
    assert "No implementation of function Function(<built-in function setitem>)" in text
    line = _set_at_float.__code__.co_firstlineno + 1
    assert f'test_first_lines.py", line {line}:' in text and "a[b[0]] = 1.0" in text


def test_an_integer_index_still_compiles():
    def ok(a, b):
        a[int(b[0])] = 1.0

    ptx, _ = cuda.compile_ptx(ok, SIG, cc=(9, 0))
    assert ".entry" in ptx


def _syncthread(a, b):
    cuda.syncthread()


def _thread_xx(a, b):
    a[0] = cuda.threadIdx.xx


def _array_sise(a, b):
    a[0] = a.sise


def _grid_misspelt(a, b):
    a[cuda.gird(1)] = 0


@pytest.mark.parametrize(
    "pyfunc, line",
    [
        (_syncthread, "cuda has no attribute 'syncthread': did you mean 'syncthreads'"),
        (_thread_xx, "cuda.threadIdx has no attribute 'xx': did you mean 'x'?"),
        (_array_sise, "array(float32, 1d, A) has no attribute 'sise': did you mean 'size'"),
        (_grid_misspelt, "cuda has no attribute 'gird': did you mean 'grid'"),
    ],
)
def test_a_misspelt_name_suggests_the_nearest(pyfunc, line):
    assert _first_line(_typing_error(pyfunc)).startswith(line)


def _solve(a, b):
    a[0] = np.linalg.solve(b, b)[0]


def _to_device(a, b):
    cuda.to_device(b)


@pytest.mark.parametrize(
    "pyfunc, line",
    [
        (_solve, "numpy.linalg.solve is not supported in device code"),
        (_to_device, "cuda.to_device is not supported in device code"),
    ],
)
def test_a_name_that_exists_on_the_host_is_said_to_be_host_only(pyfunc, line):
    # not "did you mean 'solve'": the name is right, device code cannot call it
    assert _first_line(_typing_error(pyfunc)) == line


def test_a_name_near_nothing_keeps_numbas_line():
    def far(a, b):
        a[0] = cuda.qwertyuiop

    assert _first_line(_typing_error(far)).startswith("Unknown attribute 'qwertyuiop'")


def test_a_misspelt_name_in_a_device_function_is_named_where_it_is():
    @cuda.jit(device=True)
    def helper(a):
        cuda.syncthread()
        return a[0]

    def kernel(a, b):
        a[1] = helper(a)

    error = _typing_error(kernel)
    assert _first_line(error).startswith("cuda has no attribute 'syncthread': did you mean 'syncthreads'")
    assert "cuda.syncthread()" in str(error)


def test_a_shared_array_of_a_run_time_shape_says_so_first():
    def k(a, n):
        s = cuda.shared.array(n, np.float32)
        s[0] = 1
        a[0] = s[0]

    line = _first_line(_typing_error(k, "void(float32[:], int64)"))
    assert line.startswith(
        "cuda.shared.array: the shape must be an int or a tuple of ints known at compile time, got int64; an array "
        "sized at run time is dynamic shared memory: cuda.shared.array(0, dtype)"
    )


def _star(a, b, *rest):
    a[0] = b[0] + len(rest)


def test_a_signature_short_of_the_named_parameters_of_a_star_kernel_is_named():
    with pytest.raises(TypeError) as raised:
        cuda.compile_ptx(_star, "void(float32[:])", cc=(9, 0))
    line = _first_line(raised.value)
    assert line.startswith("kernel _star (") and line.endswith(
        "takes at least 2 arguments (before *rest), but 1 argument types were given"
    )


def test_a_launch_short_of_the_named_parameters_of_a_star_kernel_is_named(monkeypatch):
    fake_driver.install(monkeypatch)
    kernel = cuda.jit(_star)
    for args in ([], [np.zeros(3, np.float32)]):
        with pytest.raises(TypeError, match=rf"^kernel _star takes at least 2 arguments but {len(args)} were given"):
            kernel[1, 1](*args)


def _keyword_only(a, *rest, scale):
    a[0] = scale


def test_keyword_parameters_are_named_when_compiled():
    def k(a, **options):
        a[0] = 1

    message = r"takes \*\*options, which a kernel cannot: a launch passes its arguments by position only \(def k\(a\)\)"
    with pytest.raises(TypeError, match=message):
        cuda.compile_ptx(k, "void(float32[:])", cc=(9, 0))
    with pytest.raises(TypeError, match=r"takes the keyword-only parameter scale, which a kernel cannot: .*\*rest\)"):
        cuda.compile_ptx(_keyword_only, "void(float32[:])", cc=(9, 0))


def test_keyword_parameters_are_named_when_launched(monkeypatch):
    fake_driver.install(monkeypatch)
    kernel = cuda.jit(_keyword_only)
    for args in ([np.zeros(3, np.float32)], [np.zeros(3, np.float32)] * 2):
        with pytest.raises(TypeError, match=r"^kernel _keyword_only takes the keyword-only parameter scale"):
            kernel[1, 1](*args)


def _scale(a):
    a[0] *= 2


def test_no_cc_and_no_gpu_says_to_pass_cc():
    if cuda.is_available():
        pytest.skip("a GPU gives the compute capability")
    for compile_ptx in (cuda.compile_ptx, cuda.compile):
        with pytest.raises(cuda.CudaSupportError) as raised:
            compile_ptx(_scale, "void(float32[:])")
        name = compile_ptx.__name__
        assert _first_line(raised.value) == (
            f"cuda.{name}: no cc= was given and there is no GPU to take one from: pass cc=(major, minor), e.g. cc=(9, 0)"
        )
    kernel = cuda.jit("void(float32[:])")(_scale)
    with pytest.raises(cuda.CudaSupportError, match=r"^compiling _scale to ptx: no cc= was given .* pass cc="):
        kernel.inspect_ptx()


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "cumlir", *map(str, args)], capture_output=True, text=True)


def test_the_command_line_says_a_wrong_arity_in_one_line():
    result = _cli(ROOT / "examples" / "vector_add.py", "vector_add", "--sig", "void(float32[:])")
    assert result.returncode != 0
    assert result.stderr.strip() == "cumlir: vector_add() takes 3 arguments, but the signature gives 1"


def test_the_command_line_gives_a_typing_error_without_a_traceback(tmp_path):
    source = tmp_path / "bad.py"
    source.write_text("from cumlir import cuda\n\ndef k(a):\n    cuda.syncthread()\n")
    result = _cli(source, "k", "--sig", "void(float32[:])")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("cumlir: cuda has no attribute 'syncthread': did you mean 'syncthreads'")
    assert 'bad.py", line 4:' in result.stderr


def test_the_version():
    result = subprocess.run([sys.executable, "-m", "cumlir", "--version"], capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert lines[0] == f"cumlir {__import__('cumlir').__version__}"
    assert lines[1].startswith("Python ")
    assert any(line.startswith("numba 0.68") for line in lines)
    assert any(line.startswith("xtc-mlir-python-bindings ") for line in lines)


@pytest.mark.parametrize(
    "example, line",
    [
        ("gemm_hopper.py", "gemm_hopper.py needs a GPU of compute capability 9.0 (H100, H200)"),
        ("cccl_reduce.py", "cccl_reduce.py needs "),
    ],
)
def test_the_examples_say_what_they_need_in_one_line(example, line):
    if cuda.is_available():
        pytest.skip("the examples run on a GPU (tests/test_examples.py)")
    result = subprocess.run([sys.executable, str(ROOT / "examples" / example)], capture_output=True, text=True)
    assert result.returncode == 1
    [said] = result.stderr.strip().splitlines()
    assert said.startswith(line) and "Traceback" not in result.stderr


def test_cumlirs_own_reason_leads_where_numbas_other_templates_refuse_too():
    # numba's set templates (registered once numba's CPU target has needed them) also refuse
    # a - b for any a and b, with "All arguments must be Sets"
    import numba.cpython.setobj  # noqa: F401
    from numba.core import types

    def minus_two(p):
        return p - 2

    with pytest.raises(TypingError) as raised:
        cuda.compile_ptx(minus_two, (types.voidptr,), device=True, cc=(9, 0))
    assert "All arguments must be Sets" in str(raised.value)
    assert _first_line(raised.value).startswith("a voidptr - an integer: a voidptr has no element type")
