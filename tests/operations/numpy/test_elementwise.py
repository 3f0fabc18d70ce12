"""The loops of GPU ufunc kernels (operations/numpy/elementwise.py): ``elementwise(fn, *inputs,
out)`` and ``gufunc_loop(fn, nloop, *operands)``, called here as the kernels cumlir generates
for cuda.vectorize and cuda.guvectorize call them.

The generated code runs on the host (tests/nrt_harness.py) once for every thread of a grid,
one thread after another, each reading its own thread and block indices (the special
registers the grid-stride loop reads are bound to the simulated thread's): every position
computed once whatever the grid, against NumPy, on arrays of several dtypes and layouts,
broadcast views and scalars, the result converted to the output's dtype. The MLIR each is
lowered to, typing errors, the host stub, the PTX on both code generators."""

import ctypes

import numpy as np
import pytest
from numba import typeof
from numba.core import types
from numba.core.errors import TypingError

from cumlir import compiler, cuda, operations
from cumlir.marks import PARALLEL_LOOPS_MARK
from cumlir.options import Options

from ... import nrt_harness, support

elementwise = operations.declared("cumlir.elementwise")
gufunc_loop = operations.declared("cumlir.gufunc_loop")

# ---- a grid of threads on the host ------------------------------------------------------------

_REGISTERS = {"tid": 0, "ntid": 1, "ctaid": 0, "nctaid": 1}
_READ = ctypes.CFUNCTYPE(ctypes.c_int32)
_READERS = {name: _READ(lambda name=name: _REGISTERS[name]) for name in _REGISTERS}
_SCALARS = {types.float64: ctypes.c_double, types.float32: ctypes.c_float, types.int64: ctypes.c_int64}
_SCALARS.update({types.int32: ctypes.c_int32, types.uint8: ctypes.c_uint8})


class GridKernel:
    """A kernel's generated code (the NVPTX path's LLVM IR) JIT-compiled for the host, whose reads
    of the x registers of thread indexing return those of the thread being simulated."""

    def __init__(self, pyfunc, argtypes):
        import llvmlite.binding as llvm

        for name, reader in _READERS.items():
            llvm.add_symbol(f"cumlir_test_{name}_x", ctypes.cast(reader, ctypes.c_void_p).value)
        text, symbol = nrt_harness.host_llvm_ir(pyfunc, argtypes)
        for name in _REGISTERS:
            text = text.replace(f"@llvm.nvvm.read.ptx.sreg.{name}.x", f"@cumlir_test_{name}_x")
        assert "@llvm.nvvm" not in text  # nothing else of the GPU's
        parameters = []
        for ty in argtypes:
            if isinstance(ty, types.Array):
                parameters += [ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * ty.ndim)
            else:
                parameters.append(_SCALARS[ty])
        self.function = nrt_harness.host_function(text, symbol, None, *parameters)

    def __call__(self, blocks, threads, *args):
        """Run every thread of a grid of *blocks* x *threads*, one after another."""
        params = []
        for value in args:
            if isinstance(value, np.ndarray):
                params += [value.ctypes.data, 0, *value.shape, *(s // value.itemsize for s in value.strides)]
            else:
                params.append(value)
        for block in range(blocks):
            for thread in range(threads):
                _REGISTERS.update(tid=thread, ntid=threads, ctaid=block, nctaid=blocks)
                self.function(*params)


GRIDS = [(1, 1), (3, 4), (2, 32), (7, 3)]  # one thread for all, fewer threads than positions, more

# ---- elementwise ------------------------------------------------------------------------------


@cuda.jit(device=True)
def _scaled_sum(a, b, s):
    return a * b + s


@cuda.jit(device=True)
def _difference(a, b):
    return a - b


@cuda.jit(device=True)
def _increment(a):
    return a + 1


def _three(x, y, s, out):
    elementwise(_scaled_sum, x, y, s, out)


def _two(x, y, out):
    elementwise(_difference, x, y, out)


def _in_place(x):
    elementwise(_increment, x, x)


def _argtypes(*values):
    return tuple(typeof(v) if isinstance(v, np.ndarray) else _numba_scalar(v) for v in values)


def _numba_scalar(value):
    return types.float64 if isinstance(value, float) else typeof(value)


def _layouts(a):
    big = np.zeros((2 * a.shape[0], 3 * a.shape[1]), a.dtype)
    big[::2, ::-3] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a), "strided": big[::2, ::-3]}


@pytest.mark.parametrize("out_dtype", ["float64", "float32", "int32"])
def test_elementwise_computes_every_position_once_converted_to_the_output(out_dtype, rng):
    x = rng.uniform(-100, 100, (5, 7))
    y = np.broadcast_to(rng.uniform(-3, 3, 7), (5, 7))  # a broadcast view: strides of 0
    s = float(rng.uniform(-10, 10))
    product = x * y
    for name, layout in _layouts(x).items():
        out = support.poisoned(35, out_dtype).reshape(5, 7)
        kernel = GridKernel(_three, _argtypes(layout, y, s, out))
        for blocks, threads in GRIDS if name == "C" else GRIDS[1:2]:
            out[...] = support.poisoned(35, out_dtype).reshape(5, 7)
            kernel(blocks, threads, layout, y, s, out)
            where = f"{name} {blocks}x{threads}"
            # x * y + s in float64 (contracted into one fma, as on the device), then converted
            if out_dtype == "float64":
                support.assert_contractible(out, product + s, product, s)
            elif out_dtype == "float32":
                np.testing.assert_allclose(out, (product + s).astype(np.float32), rtol=2e-7, err_msg=where)
            else:  # float to integer: truncated, as NumPy converts
                np.testing.assert_array_equal(out, (product + s).astype(np.int32), err_msg=where)


@pytest.mark.parametrize(
    "left, right, out_dtype", [("int8", "uint16", "int16"), ("bool", "int32", "int64"), ("uint64", "uint8", "uint64")]
)
def test_elementwise_of_integers_and_booleans_matches_numpy(left, right, out_dtype, rng):
    x = support.random_values(left, 24, rng).reshape(4, 6)
    y = support.random_values(right, 24, rng).reshape(4, 6)
    out = support.poisoned(24, out_dtype).reshape(4, 6)
    GridKernel(_two, _argtypes(x, y, out))(3, 5, x, y, out)
    # numba's difference of the two (a wider integer), wrapped to the output's width
    wide = x.astype(np.int64) - y.astype(np.int64) if left != "uint64" else x - y.astype(np.uint64)
    np.testing.assert_array_equal(out, wide.astype(out_dtype))


@pytest.mark.parametrize("blocks, threads", GRIDS)
def test_in_place_every_element_is_computed_exactly_once(blocks, threads, rng):
    x = rng.integers(-1000, 1000, (3, 9))
    for a in (x.copy(), np.asfortranarray(x), x.copy()[:, ::2]):
        before = a.copy()
        GridKernel(_in_place, _argtypes(a))(blocks, threads, a)
        np.testing.assert_array_equal(a, before + 1)  # each once: an element computed twice gains 2


def test_elementwise_of_one_axis_and_of_three(rng):
    x1, out1 = rng.standard_normal(40), np.full(40, np.nan)
    GridKernel(_two, _argtypes(x1, 2.5, out1))(4, 8, x1, 2.5, out1)
    np.testing.assert_array_equal(out1, x1 - 2.5)
    x3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    y3 = np.broadcast_to(rng.standard_normal((3, 1)).astype(np.float32), (2, 3, 4))
    out3 = np.full((2, 3, 4), np.nan, np.float32)
    GridKernel(_two, _argtypes(x3, y3, out3))(2, 5, x3, y3, out3)
    np.testing.assert_array_equal(out3, x3 - y3)


# ---- gufunc_loop ------------------------------------------------------------------------------


@cuda.jit(device=True)
def _scaled_dot(a, b, scale, out):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    out[0] = scale * total


@cuda.jit(device=True)
def _row_sums(m, out):
    for i in range(m.shape[0]):
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s


def _dots(a, b, scale, out):
    gufunc_loop(_scaled_dot, 2, a, b, scale, out)  # scale: no core axes, its element passed


def _sums(m, out):
    gufunc_loop(_row_sums, 1, m, out)


@pytest.mark.parametrize("blocks, threads", GRIDS[:3])
def test_gufunc_loop_calls_the_function_on_the_core_views_at_every_loop_position(blocks, threads, rng):
    a = rng.integers(-9, 9, (3, 4, 5)).astype(np.float64)  # whole numbers: exact sums
    b = np.asfortranarray(rng.integers(-9, 9, (3, 4, 5)).astype(np.float64))
    scale = rng.integers(-5, 5, (3, 4)).astype(np.float64)
    out = np.full((3, 4, 1), np.nan)
    GridKernel(_dots, _argtypes(a, b, scale, out))(blocks, threads, a, b, scale, out)
    np.testing.assert_array_equal(out[..., 0], scale * np.einsum("ijk,ijk->ij", a, b))
    m = rng.standard_normal((6, 2, 3))[::-1]  # negative strides on the loop axis
    sums = np.full((6, 2), np.nan)
    GridKernel(_sums, _argtypes(m, sums))(blocks, threads, m, sums)
    np.testing.assert_allclose(sums, m.sum(axis=2), rtol=1e-15)


# ---- the MLIR, typing, the host stub, PTX -------------------------------------------------------


def _mlir(pyfunc, argtypes):
    return str(compiler.kernel(pyfunc, argtypes, (9, 0), Options(), until="mlir").module)


def test_elementwise_is_a_parallel_linalg_generic_and_gufunc_loop_an_scf_parallel():
    text = _mlir(_three, (types.float64[:, :, ::1], types.float64[:, :, :], types.float64, types.int32[:, :, ::1]))
    assert text.count("linalg.generic") == 1
    assert 'iterator_types = ["parallel", "parallel", "parallel"]' in text  # every axis parallel
    assert "affine_map<(d0, d1, d2) -> ()>" in text  # the scalar, the same at every position
    assert PARALLEL_LOOPS_MARK in text  # the optimized stage spreads the loops over the grid
    text = _mlir(_dots, (types.float64[:, :, ::1],) * 2 + (types.float64[:, ::1], types.float64[:, :, :]))
    assert "scf.parallel" in text and "linalg.generic" not in text and PARALLEL_LOOPS_MARK in text
    assert PARALLEL_LOOPS_MARK not in _mlir(lambda out: None, (types.float64[::1],))


def test_the_loops_are_spread_over_the_grid(backend):
    argtypes = (types.float64[:, ::1], types.float64[:, :], types.float64, types.float32[:, ::1])
    ptx, _ = cuda.compile_ptx(_three, argtypes, cc=(9, 0), backend=backend)
    for register in ("%tid.x", "%ntid.x", "%ctaid.x", "%nctaid.x"):
        assert register in ptx
    support.ptxas(ptx)
    ptx, _ = cuda.compile_ptx(
        _dots, (types.float32[:, :, :],) * 2 + (types.float32[:, :], types.float32[:, :, :]), cc=(9, 0), backend=backend
    )
    assert "%nctaid.x" in ptx
    support.ptxas(ptx)


RECORD = typeof(np.zeros(1, [("x", np.int32)]))


@pytest.mark.parametrize(
    "pyfunc, argtypes, match",
    [
        (
            lambda x, out: elementwise(_increment, x, 1.5),
            (types.float64[:], types.float64[:]),
            "the last operand must be the output array",
        ),
        (
            lambda x, out: elementwise(_increment, x, out),
            (types.float64[:], types.Array(types.float64, 0, "C")),
            "the last operand must be the output array",
        ),
        (
            lambda x, out: elementwise(_increment, x, out),
            (types.float64[:, :], types.float64[:]),
            "operand 0 has 2 axes, the output 1",
        ),
        (
            lambda x, out: elementwise(_increment, x, out),
            (RECORD, types.float64[:]),
            "elementwise operand 0: elements of type Record",
        ),
        (
            lambda x, out: elementwise(_difference, x, (1, 2), out),
            (types.float64[:], types.float64[:]),
            "elementwise operand 1: elements of type UniTuple",
        ),
        (
            lambda x, n: gufunc_loop(_row_sums, n, x, x),
            (types.float64[:, :], types.int64),
            "the number of loop axes must be a literal integer",
        ),
        (lambda x, out: gufunc_loop(_row_sums, 0, x, out), (types.float64[:, :], types.float64[:]), "at least 1"),
        (
            lambda x, out: gufunc_loop(_row_sums, 2, x, out),
            (types.float64[:, :], types.float64[:]),
            "operand 1 must be an array of at least 2 axes",
        ),
        (
            lambda x, out: gufunc_loop(_row_sums, 1, x, out),
            (types.float64[:, :], RECORD),
            "gufunc_loop operand 1: elements of type Record",
        ),
    ],
)
def test_what_the_loops_refuse_is_a_typing_error(pyfunc, argtypes, match):
    with pytest.raises(TypingError, match=match):
        compiler.type_function(pyfunc, argtypes)


def test_the_operations_cannot_be_called_on_the_host():
    for operation, name in ((elementwise, "elementwise"), (gufunc_loop, "gufunc_loop")):
        assert operation.__name__ == name and name in repr(operation)
        with pytest.raises(RuntimeError, match=f"{name} is part of the kernels of GPU ufuncs"):
            operation(_increment, np.zeros(2), np.zeros(2))
