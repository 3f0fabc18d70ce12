"""Kernels on the simulator without a GPU, each feature against NumPy: atomics of float64
(compare-and-swap loops) across blocks, 3-d grids, constant and local memory, complex
numbers, recursive device functions, float64 math, the forms of syncthreads, dynamic shared
memory, streams, events, and pinned, mapped and managed memory."""

import math

import numpy as np
import pytest
from numba import float64, int32

from cumlir import cuda

pytestmark = pytest.mark.usefixtures("simulated")

CONST = np.arange(16, dtype=np.float64)


def atomics(out, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(out, 0, x[i])
        cuda.atomic.max(out, 1, x[i])
        cuda.atomic.min(out, 2, x[i])


def test_float64_atomics_across_blocks(rng):
    x = rng.random(10000)
    out = np.array([0.0, -np.inf, np.inf])
    cuda.jit(atomics)[40, 256](out, x)
    np.testing.assert_allclose(out, [x.sum(), x.max(), x.min()], rtol=1e-12)


def grid3(out):
    x, y, z = cuda.grid(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = x * 10000 + y * 100 + z


def test_three_dimensional_grids():
    out = np.full((9, 7, 5), -1, np.int64)
    cuda.jit(grid3)[(3, 3, 3), (4, 3, 2)](out)
    x, y, z = np.indices(out.shape)
    np.testing.assert_array_equal(out, x * 10000 + y * 100 + z)


def constant_and_local(out):
    c = cuda.const.array_like(CONST)
    scratch = cuda.local.array(16, float64)
    i = cuda.grid(1)
    for k in range(16):
        scratch[k] = c[k] * i
    s = 0.0
    for k in range(16):
        s += scratch[k]
    out[i] = s


def test_constant_and_local_memory():
    out = np.full(64, np.nan)
    cuda.jit(constant_and_local)[2, 32](out)
    np.testing.assert_array_equal(out, np.arange(64) * CONST.sum())


def complex_values(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * a[i].conjugate() + math.sqrt(abs(a[i]))


def test_complex_numbers(rng):
    a = rng.random(100) + 1j * rng.random(100)
    out = np.full(100, np.nan, np.complex128)
    cuda.jit(complex_values)[1, 128](a, out)
    np.testing.assert_allclose(out, a * a.conj() + np.sqrt(np.abs(a)), rtol=1e-14)


@cuda.jit(device=True)
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def factorials(out):
    i = cuda.grid(1)
    out[i] = factorial(i % 10)


def test_recursive_device_functions():
    out = np.zeros(32, np.int64)
    cuda.jit(factorials)[1, 32](out)
    np.testing.assert_array_equal(out, [math.factorial(i % 10) for i in range(32)])


def float64_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) + math.exp(x[i] / 10) + math.log1p(abs(x[i])) + math.atan2(x[i], 2.0) + math.erf(x[i])


def test_float64_math(rng):
    x = rng.standard_normal(1000)
    out = np.full(1000, np.nan)
    cuda.jit(float64_math)[4, 256](x, out)
    erf = np.vectorize(math.erf)
    expected = np.sin(x) + np.exp(x / 10) + np.log1p(np.abs(x)) + np.arctan2(x, 2.0) + erf(x)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def barrier_forms(out):
    s = cuda.shared.array(128, int32)
    t = cuda.threadIdx.x
    s[t] = t
    cuda.syncthreads()
    n = cuda.syncthreads_count(s[(t + 1) % 128] % 2 == 0)
    every = cuda.syncthreads_and(t >= 0)
    some = cuda.syncthreads_or(t == 5)
    out[t] = n * 100 + every * 10 + some


def test_the_forms_of_syncthreads():
    out = np.zeros(128, np.int64)
    cuda.jit(barrier_forms)[1, 128](out)
    np.testing.assert_array_equal(out, 64 * 100 + 10 + 1)


def reversed_through_dynamic_shared(out):
    s = cuda.shared.array(0, float64)
    t = cuda.threadIdx.x
    s[t] = t * 1.5
    cuda.syncthreads()
    out[t] = s[63 - t]


def test_dynamic_shared_memory():
    out = np.full(64, np.nan)
    cuda.jit(reversed_through_dynamic_shared)[1, 64, 0, 64 * 8](out)
    np.testing.assert_array_equal(out, (63 - np.arange(64)) * 1.5)


def increment(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_streams_events_and_host_memory():
    kernel = cuda.jit(increment)
    stream = cuda.stream()
    d = cuda.to_device(np.arange(10.0), stream=stream)
    kernel[1, 32, stream](d)
    stream.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10.0) + 1)
    start, end = cuda.event(), cuda.event()
    start.record()
    kernel[1, 32](d)
    end.record()
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10.0) + 2)
    for make, value in ((cuda.pinned_array, 1), (cuda.mapped_array, 3), (cuda.managed_array, 5)):
        a = make(10)
        a[:] = value
        kernel[1, 32](a)
        cuda.synchronize()
        np.testing.assert_array_equal(a, value + 1, err_msg=make.__name__)


def _written_with(name, namespace):
    """A kernel written with *name* (``ncuda`` or ``numba.cuda``) for its CUDA namespace."""
    source = (
        "def kernel(out, a):\n"
        "    i = NS.grid(1)\n"
        "    tile = NS.shared.array(32, np.float64)\n"
        "    tile[NS.threadIdx.x] = a[i]\n"
        "    NS.syncthreads()\n"
        "    out[i] = tile[31 - NS.threadIdx.x] + NS.blockIdx.x\n"
    ).replace("NS", name)
    exec(source, namespace)
    return namespace["kernel"]


def test_numba_cudas_namespace_in_a_kernel_is_cumlirs(rng):
    """``from numba import cuda``, or ``numba.cuda.grid`` through ``import numba``, in a kernel
    cumlir compiles means cumlir's own namespace."""
    import importlib.util

    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed")
    import numba

    from ..support import import_numba_cuda

    ncuda = import_numba_cuda()
    a = rng.random(128)
    expected = (a.reshape(4, 32)[:, ::-1] + np.arange(4)[:, None]).ravel()
    for name, namespace in (("ncuda", {"np": np, "ncuda": ncuda}), ("numba.cuda", {"np": np, "numba": numba})):
        out = np.full(128, np.nan)
        cuda.jit(_written_with(name, namespace))[4, 32](out, a)
        np.testing.assert_array_equal(out, expected, err_msg=name)


def block_ids(out):
    out[cuda.grid(1)] = cuda.blockIdx.x


def test_none_for_the_stream_and_the_dynamic_shared_memory_means_none():
    out = np.full(128, -1, np.int32)
    cuda.jit(block_ids)[4, 32, None, None](out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(4), 32))
    with pytest.raises(TypeError, match="non-negative int of bytes, got -1"):
        cuda.jit(block_ids)[4, 32, None, -1](out)


def reshaped_extents(a, shape, out):
    y = a.reshape(shape)
    for k in range(y.ndim):
        out[k] = y.shape[k]


@pytest.mark.parametrize(
    "size, shape", [(0, (1, 0, 2)), (0, (0, 3, 1)), (24, (2, -1, 3)), (24, (4, 6, 1)), (24, (-1, 1, 1))]
)
def test_reshape_of_empty_arrays_and_missing_extents(size, shape):
    # an extent of 0 makes the product of the extents 0: the missing extent (-1) is computed
    # without dividing by it, which stopped the simulator's process
    out = np.full(3, -7, np.int64)
    expected = np.empty(size).reshape(shape).shape
    cuda.jit(reshaped_extents)[1, 1](np.arange(size, dtype=np.float64), shape, out)
    assert tuple(out) == expected
