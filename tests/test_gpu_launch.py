"""Launching: argument kinds (NumPy, CuPy, PyTorch), eager signatures, streams, and
the errors a bad launch raises."""

import importlib.util
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import launch_kernels as K

pytestmark = pytest.mark.gpu

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "vector_add.py"


vadd = cuda.jit(K.vadd)
vadd_eager = cuda.jit(K.VADD_FLOAT32)(K.vadd)


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_first_launch_in_a_fresh_process():
    # nothing initialises the driver before the first launch (no is_available() call)
    code = (
        "import numpy as np\n"
        "from cumlir import cuda\n"
        "@cuda.jit\n"
        "def fill(a):\n"
        "    a[cuda.grid(1)] = 7\n"
        "a = np.zeros(32)\n"
        "fill[1, 32](a)\n"
        "print(a.sum())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "224.0"


def test_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    assert "the result matches NumPy" in capsys.readouterr().out


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint64"])
def test_vector_add_numpy(n, dtype, rng):
    a = support.random_values(dtype, n, rng) // 2 if dtype[0] in "iu" else support.random_values(dtype, n, rng)
    b = support.random_values(dtype, n, rng) // 2 if dtype[0] in "iu" else support.random_values(dtype, n, rng)
    c = support.poisoned(n, dtype)
    vadd[(n + 255) // 256, 256](a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_scalar_arguments(rng):
    x = rng.standard_normal(5000)
    y = rng.standard_normal(5000)
    out = support.poisoned(5000, np.float64)
    for a in (2.5, np.float32(-1.5), 3):
        axpy[40, 128](a, x, y, out)
        support.assert_contractible(out, a * x + y, a * x, y)


def test_non_contiguous_numpy_arrays(rng):
    a = rng.standard_normal(4000)[::2]
    b = rng.standard_normal(6000)[::3]
    c_base = np.full(8000, np.nan)
    c = c_base[::4]
    vadd[16, 128](a, b, c)
    np.testing.assert_array_equal(c, a + b)
    assert np.isnan(c_base[1::4]).all()  # elements between the view's were not touched


def test_eager_signature(rng):
    n = 3000
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = support.poisoned(n, np.float32)
    vadd_eager[(n + 127) // 128, 128](a, b, c)
    np.testing.assert_array_equal(c, a + b)
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        vadd_eager[1, 32](a.astype(np.float64), b, c)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is None, reason="CuPy is not installed")
def test_cupy_arrays_in_place(rng):
    import cupy

    n = 10_001
    a = cupy.asarray(rng.standard_normal(n).astype(np.float32))
    b = cupy.asarray(rng.standard_normal(n).astype(np.float32))
    c = cupy.full(n, cupy.nan, dtype=cupy.float32)
    pointer = c.data.ptr
    vadd[(n + 127) // 128, 128](a, b, c)
    assert c.data.ptr == pointer
    np.testing.assert_array_equal(cupy.asnumpy(c), cupy.asnumpy(a) + cupy.asnumpy(b))
    # a reversed view has a negative stride
    d = cupy.full(n, cupy.nan, dtype=cupy.float32)
    vadd[(n + 127) // 128, 128](a[::-1], b, d)
    np.testing.assert_array_equal(cupy.asnumpy(d), cupy.asnumpy(a)[::-1] + cupy.asnumpy(b))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")
def test_torch_tensors_in_place(rng):
    import torch

    n = 7777
    a = torch.tensor(rng.standard_normal(n), device="cuda")
    b = torch.tensor(rng.standard_normal(n), device="cuda")
    c = torch.full((n,), float("nan"), device="cuda", dtype=torch.float64)
    vadd[(n + 255) // 256, 256](a, b, c)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(c.cpu().numpy(), a.cpu().numpy() + b.cpu().numpy())


def test_stream_and_dynamic_shared_memory(rng):
    n = 2048
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    c = support.poisoned(n, np.float64)
    s = cuda.stream()
    vadd[n // 128, 128, s, 1024](a, b, c)
    s.synchronize()
    np.testing.assert_array_equal(c, a + b)
    c2 = support.poisoned(n, np.float64)
    vadd[n // 128, 128, 0](a, b, c2)
    np.testing.assert_array_equal(c2, a + b)


def test_block_too_large():
    a = np.zeros(10)
    with pytest.raises(ValueError, match="more than the 1024"):
        vadd[1, 2048](a, a, a)
    with pytest.raises(ValueError, match="more than the 1024"):
        vadd[1, (32, 32, 2)](a, a, a)


def test_wrong_argument_count_and_kinds():
    a = np.zeros(10)
    with pytest.raises(TypeError, match="takes 3 arguments but 2 were given"):
        vadd[1, 32](a, a)
    with pytest.raises(TypeError, match="cannot be passed to a kernel"):
        vadd[1, 32](a, a, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"kernel vadd: the launch configuration was not specified; launch it as"):
        vadd(a, a, a)


def test_typing_error_names_the_source_line():
    @cuda.jit
    def bad(a):
        i = cuda.grid(1)
        a[i] = a.no_such_attribute

    from numba.core.errors import TypingError

    with pytest.raises(TypingError) as info:
        bad[1, 1](np.zeros(4))
    assert "no_such_attribute" in str(info.value)
    assert "a[i] = a.no_such_attribute" in str(info.value)


def test_current_context_reports_memory_and_synchronizes():
    context = cuda.current_context()
    free, total = context.get_memory_info()
    assert 0 < free <= total and total >= 1 << 30
    context.synchronize()
    assert context.compute_capability == cuda.get_current_device().compute_capability
