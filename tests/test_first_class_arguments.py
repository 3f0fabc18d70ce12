"""Device functions taking what Numba-CUDA lets them take: dtypes, shapes (literals and
tuples of them, specialised on where the function needs them known), other device
functions and intrinsics, ``*args`` and default values."""

import math

import numpy as np
import pytest

from cumlir import cuda

from . import support

SIG = "void(float32[::1])"


def _ptx(kernel, sig=SIG, backend="nvptx"):
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    return ptx


@cuda.jit(device=True)
def _shared_of(n, dtype):
    s = cuda.shared.array(n, dtype)
    if cuda.threadIdx.x < n:
        s[cuda.threadIdx.x] = cuda.threadIdx.x
    cuda.syncthreads()
    return s[n - 1]


@cuda.jit(device=True)
def _local_of(shape, dtype):
    a = cuda.local.array(shape, dtype)
    for i in range(shape[0]):
        for j in range(shape[1]):
            a[i, j] = i * 10 + j
    return a[shape[0] - 1, shape[1] - 1]  # an element: no memory of the array escapes


def shapes_and_dtypes(out):
    out[0] = _shared_of(32, np.float32) + _shared_of(16, np.int64)
    out[1] = _local_of((2, 3), np.int32)


def test_shapes_and_dtypes_reach_array_constructors(backend):
    ptx = _ptx(shapes_and_dtypes, backend=backend)
    assert ptx.count(".shared") >= 2


def test_a_literal_is_kept_only_where_the_function_needs_it():
    @cuda.jit(device=True)
    def scaled(x, k):
        return x * k

    def kernel(out):
        out[0] = scaled(out[1], 2) + scaled(out[2], 3)
        out[3] = _shared_of(8, np.float32) + _shared_of(4, np.float32)

    _ptx(kernel)
    assert [str(s.args[1]) for s in scaled.nopython_signatures] == ["int64"]  # one function for both
    assert {str(s.args[0]) for s in _shared_of.nopython_signatures} >= {"Literal[int](8)", "Literal[int](4)"}


@cuda.jit(device=True)
def _apply(f, x):
    return f(x)


@cuda.jit(device=True)
def _twice(x):
    return 2 * x


@cuda.jit(device=True)
def _update(op, array, value):
    return op(array, 0, value)


def functions_as_arguments(out):
    out[1] = _apply(_twice, out[2]) + _apply(math.sqrt, out[3])
    _update(cuda.atomic.add, out, 1.0)
    _update(cuda.atomic.max, out, 100.0)


def test_functions_and_intrinsics_as_arguments(backend):
    ptx = _ptx(functions_as_arguments, backend=backend)
    assert "atom.global.add.f32" in ptx and "sqrt" in ptx


@cuda.jit(device=True)
def _total(first, *rest):
    s = first
    for v in rest:
        s += v
    return s


@cuda.jit(device=True)
def _how_many(*rest):
    return len(rest)


@cuda.jit(device=True)
def _first_two(first, *rest):
    return first + rest[0] + rest[1]


@cuda.jit(device=True)
def _scaled(x, factor=2.0, offset=0):
    return x * factor + offset


def star_args_and_defaults(out):
    out[0] = _total(out[1], out[2], out[3])  # float32 * 2
    out[1] = _first_two(out[1], 1, 2.5)  # mixed types: a heterogeneous tuple
    out[2] = out[3] + _how_many() + 10 * _how_many(out[0], 1)  # none, then two
    out[3] = _scaled(out[0]) + _scaled(out[1], 3.0) + _scaled(out[2], offset=5)


def test_star_args_and_defaults(backend):
    _ptx(star_args_and_defaults, backend=backend)


def test_a_call_that_fails_either_way_reports_the_first_error():
    @cuda.jit(device=True)
    def broken(n):
        return cuda.local.array(n, np.float32)[0] + undefined_name  # noqa: F821

    def kernel(out):
        out[0] = broken(4)

    with pytest.raises(Exception, match="undefined_name"):
        _ptx(kernel)


@pytest.mark.gpu
def test_on_the_gpu(backend):
    out = cuda.to_device(np.array([5.0, 9.0, 16.0, 4.0], np.float32))
    cuda.jit(backend=backend)(functions_as_arguments)[1, 1](out)
    got = out.copy_to_host()
    assert got[0] == 100.0 and got[1] == 2 * 16.0 + 2.0  # atomic add then max; 2*16 + sqrt(4)
    out = cuda.to_device(np.full(4, np.nan, np.float32))
    cuda.jit(backend=backend)(shapes_and_dtypes)[1, 32](out)
    got = out.copy_to_host()
    assert got[0] == 31 + 15 and got[1] == 12
    values = np.array([0.0, 1.0, 2.0, 4.0], np.float32)
    out = cuda.to_device(values)
    cuda.jit(backend=backend)(star_args_and_defaults)[1, 1](out)
    o0 = 1.0 + 2.0 + 4.0
    o1 = 1.0 + 1 + 2.5
    o2 = 4.0 + 0 + 10 * 2
    np.testing.assert_allclose(out.copy_to_host(), [o0, o1, o2, o0 * 2 + o1 * 3 + (o2 * 2 + 5)], rtol=1e-6)


@cuda.jit(device=True)
def _to_uint64(value):
    return np.uint64(value)


@cuda.jit(device=True)
def _as_is(value):
    return value


@cuda.jit(device=True)
def _shared_histogram(ary, op2, ary_dtype, ary_shape, binop_func, y_cast_func, wrap):
    # a shape, a dtype, an atomic and a cast all arrive as arguments; with wrap the index's
    # second member is uint64 % int64, which numba types float64 (an index all the same)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    sm = cuda.shared.array(ary_shape, ary_dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    index = (tx, y_cast_func(ty))
    if wrap:
        index = (index[0] % ary_shape[0], index[1] % ary_shape[1])
    binop_func(sm, index, op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


def shared_through_device_functions(ary):
    _shared_histogram(ary, 3, np.uint32, (4, 8), cuda.atomic.add, _to_uint64, False)


def shared_through_device_functions_wrapped(ary):
    _shared_histogram(ary, 5, np.uint32, (4, 8), cuda.atomic.max, _as_is, True)


@pytest.mark.parametrize("kernel", [shared_through_device_functions, shared_through_device_functions_wrapped])
def test_shared_arrays_of_shapes_and_dtypes_given_through_device_functions(kernel, backend):
    _ptx(kernel, "void(uint32[:, ::1])", backend=backend)


@pytest.mark.gpu
def test_shared_arrays_through_device_functions_compute(backend, rng):
    start = rng.integers(0, 10, size=(4, 8)).astype(np.uint32)
    out = cuda.to_device(start)
    cuda.jit(backend=backend)(shared_through_device_functions)[1, (4, 8)](out)
    np.testing.assert_array_equal(out.copy_to_host(), start + 3)
    out = cuda.to_device(start)
    cuda.jit(backend=backend)(shared_through_device_functions_wrapped)[1, (4, 8)](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.maximum(start, 5))
