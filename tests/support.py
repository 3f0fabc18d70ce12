"""Helpers shared by the tests: fresh Python processes, ptxas, Numba's typing of operators, boundary and
random values, poisoned outputs and comparisons."""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

INT_TYPES = ["int32", "int64", "uint32", "uint64"]
FLOAT_TYPES = ["float32", "float64"]
NUMERIC_TYPES = INT_TYPES + FLOAT_TYPES
SCALAR_TYPES = NUMERIC_TYPES + ["bool"]


def needs_the_gpu_itself(why):
    """Skips the calling test under the simulator: what it uses lives in a GPU or in the CUDA
    driver itself (*why*), which the simulator's CPU runs do not touch."""
    import pytest

    from cumlir import simulation

    if simulation.requested():
        pytest.skip(f"not on the simulator: {why}")


def python_output(code):
    """What a fresh Python process running *code* prints (stripped); raises if it fails."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def corpus(items, every):
    """The items a corpus test (marked ``corpus``: hundreds of kernels compiled and assembled)
    runs: all of them where ``CUMLIR_FULL_CORPUS=1``, else the fixed share CI runs, every
    *every*-th from the first (CONTRIBUTING.md, "Test tiers")."""
    items = list(items)
    return items if os.environ.get("CUMLIR_FULL_CORPUS") == "1" else items[::every]


def ptxas(ptx, arch="sm_90", relocatable=False):
    """Assemble PTX with ptxas from the CUDA pip wheels; raises with ptxas's message on failure,
    else returns what it printed (its notes, such as a potential performance loss).
    ``relocatable=True`` (``-c``) leaves calls of functions linked later unresolved."""
    from cuda import pathfinder

    exe = pathfinder.find_nvidia_binary_utility("ptxas")
    assert exe, "ptxas was not found (it comes from the nvidia-cuda-nvcc wheel)"
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(ptx)
        f.flush()
        result = subprocess.run(
            [exe, f"-arch={arch}", *(["-c"] if relocatable else []), f.name, "-o", "/dev/null"],
            capture_output=True,
            text=True,
        )
    assert result.returncode == 0, f"ptxas -arch={arch} rejected the PTX:\n{result.stderr}"
    return result.stdout + result.stderr


def checked_ptx(kernel, sig, backend, cc):
    """The PTX of *kernel* for *cc*, which ptxas has accepted."""
    from cumlir import cuda

    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    return ptx


def compiling(body, signature, **names):
    """A call compiling for sm_90 the kernel ``def kernel(a, b): <body>`` of *signature*, its
    body seeing cuda, np and *names*: for checking what typing refuses."""
    from cumlir import cuda

    namespace = {"cuda": cuda, "np": np, **names}
    exec(f"def kernel(a, b):\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], signature, cc=(9, 0))


def assert_instructions(ptx, *instructions):
    """Each of *instructions* begins a line of *ptx*."""
    for instruction in instructions:
        assert re.search(rf"^\s*{re.escape(instruction)}\b", ptx, re.M), f"{instruction} not in the PTX"


def numba_type(name):
    from numba.core import types

    return types.boolean if name == "bool" else getattr(types, name)


def result_signature(op, left, right):
    """Numba's typing of ``left <op> right`` for the named scalar types."""
    from numba.core.errors import TypingError

    from cumlir.typing.context import typing_context
    from cumlir.typing.target import target_override

    ctx = typing_context()
    with target_override():
        fnty = ctx.resolve_value_type(op)
        try:
            return ctx.resolve_function_type(fnty, (numba_type(left), numba_type(right)), {})
        except TypingError:
            return None


def poisoned(n, dtype):
    """An output array filled with a value kernels never produce by accident (NaN for floats)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype)
    if dtype.kind == "b":
        return np.ones(n, dtype)
    return np.full(n, 0x5A, dtype)


def dtype_of(numba_ty):
    return np.dtype("bool" if str(numba_ty) == "bool" else str(numba_ty))


def boundary_values(name):
    """Values every operator test includes for a type: limits, signs, zero, powers of two."""
    if name == "bool":
        return np.array([False, True])
    dtype = np.dtype(name)
    if dtype.kind == "f":
        info = np.finfo(dtype)
        values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 2.0**31, -(2.0**63), info.max, info.min, info.tiny]
        values += [np.inf, -np.inf, np.nan]
        return np.array(values, dtype=dtype)
    info = np.iinfo(dtype)
    values = {0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1, 2**31 - 1, 2**31, 2**32 - 1, 2**63}
    if info.min < 0:
        values |= {-1, -2, -3, -7, -(2**31)}
    return np.array(sorted(v for v in values if info.min <= v <= info.max), dtype=dtype)


def random_values(name, n, rng):
    """*n* uniform random values over the whole range of an integer type; wide-ranging floats."""
    if name == "bool":
        return rng.integers(0, 2, n).astype(bool)
    dtype = np.dtype(name)
    if dtype.kind == "f":
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n)).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def assert_contractible(actual, expected, *terms):
    """*actual* equals *expected* (computed on the host with a rounding per operation) up to
    what contracting ``a * b + c`` into one fma changes, as cumlir does by default (as nvcc and
    Numba-CUDA do): a rounding of each of the expression's *terms*, in *actual*'s precision."""
    actual = np.asarray(actual)
    eps = np.finfo(actual.dtype).eps
    bound = 2 * eps * sum(np.abs(np.asarray(t, np.float64)) for t in terms)
    difference = np.abs(actual.astype(np.float64) - np.asarray(expected, np.float64))
    bad = ~(difference <= bound)
    if bad.any():
        k = int(np.flatnonzero(bad.ravel())[0])
        raise AssertionError(
            f"{int(bad.sum())} of {bad.size} elements beyond contraction's rounding, first at flat index {k}: "
            f"got {actual.ravel()[k]!r}, expected {np.ravel(expected)[k]!r}"
        )


def assert_matches(actual, expected, op_name="", rtol=0.0):
    """Exact equality (NaN equal to NaN), or relative tolerance *rtol* for floats."""
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True, err_msg=op_name)
    else:
        mismatch = np.nonzero(actual != expected)[0]
        assert len(mismatch) == 0, f"{op_name}: {len(mismatch)} mismatches, first at {mismatch[:5]}: " + ", ".join(
            f"got {actual[i]!r} expected {expected[i]!r}" for i in mismatch[:5]
        )


def import_numba_cuda():
    """numba-cuda's ``cuda`` module (the reference the ``*_numba_cuda`` GPU tests compare with)."""
    # numba-cuda 0.30 still calls np.row_stack, which NumPy 2.4 removed; vstack is the same function
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda as ncuda

    return ncuda


def numba_cuda_problem():
    """Why numba-cuda cannot serve as a reference here, or None if it can."""
    import importlib.util

    if importlib.util.find_spec("numba_cuda") is None:
        return "numba-cuda is not installed"
    try:
        ncuda = import_numba_cuda()

        @ncuda.jit
        def probe(out):
            out[0] = 1

        probe[1, 1](np.zeros(1))
    except Exception as e:  # an incompatible install (its NumPy, its driver) is not ours to test
        return f"numba-cuda does not work in this environment: {type(e).__name__}: {e}"
    return None


class FakeLaunch:
    """Stands for a launch when packing arguments without a GPU: hands out fake device
    pointers for staged host arrays and records them."""

    def __init__(self):
        self.staged = []

    def stage_host_array(self, array):
        self.staged.append(array)
        return 0x1000 * len(self.staged), array.shape, array.strides, array.itemsize

    def wait_for_producer(self, stream):
        pass
