"""Pickling what cuda.jit, vectorize, guvectorize, reduce and declare_device return: a round trip
in this process compiles the same PTX, and a spawned process (tests/pickling_worker.py)
unpickles and compiles, or launches on a GPU."""

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from cumlir import cuda
from cumlir.linkable import CUSource

from . import pickling_worker as worker

CC = worker.CC
AXPY = "void(float32, float32[::1], float32[::1], float32[::1])"

TRIPLE = CUSource('extern "C" __device__ int triple(int* r, int x) { *r = 3 * x; return 0; }', "triple.cu")
triple = cuda.declare_device("triple", "int32(int32)", link=[TRIPLE])


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit(["void(float64[:], float64[:])", "void(float32[:], float32[:])"], fastmath=True, lineinfo=True)
def square_root(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] ** 0.5


@cuda.jit(device=True)
def cube(x):
    return x * x * x


@cuda.jit(cache=True)
def cubes(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cube(x[i])


@cuda.jit(link=[TRIPLE])
def tripled(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = triple(x[i])


@cuda.vectorize(["float32(float32, float32)", "int64(int64, int64)"])
def hypot_ish(a, b):
    return a * a + b * b


@cuda.vectorize
def difference(a, b):
    return a - b


@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, out):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    out[0] = total


def largest(a, b):
    return a if a > b else b


maximum = cuda.reduce(largest)


def closure_kernel(scale):
    """A kernel no name finds (it pickles by value) reading *scale* from its closure."""

    @cuda.jit
    def scaled(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * scale

    return scaled


def roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


@pytest.fixture(scope="module")
def spawned():
    """One spawned Python process for the module's tests (starting one costs seconds)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


# ---- in this process ---------------------------------------------------------------------------


def test_kernel_pickles_before_and_after_compiling():
    fresh = roundtrip(axpy)
    assert fresh is not axpy and fresh.py_func is axpy.py_func  # the function went by its name
    assert fresh.overloads == {}
    axpy.compile(AXPY)
    again = roundtrip(axpy)
    assert list(again.overloads) == list(axpy.overloads)
    assert again.inspect_ptx(AXPY, cc=CC) == axpy.inspect_ptx(AXPY, cc=CC)


def test_eager_kernel_keeps_its_options_and_signatures():
    again = roundtrip(square_root)
    assert again.options == square_root.options and again.options.fastmath and again.options.lineinfo
    assert list(again.overloads) == list(square_root.overloads)
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        again.overload_for(again._table.argument_types((np.zeros(3, np.int32), np.zeros(3, np.int32))))
    for sig in ("void(float64[:], float64[:])", "void(float32[:], float32[:])"):
        assert again.inspect_ptx(sig, cc=CC) == square_root.inspect_ptx(sig, cc=CC)


def test_device_function_and_cached_kernel_calling_it():
    cubes.compile("void(int64[:], int64[:])")
    assert cube.signatures  # typed where the kernel called it
    device_again = roundtrip(cube)
    assert device_again.device and device_again.signatures == cube.signatures
    kernel_again = roundtrip(cubes)
    assert kernel_again.options.cache
    sig = "void(int64[:], int64[:])"
    assert kernel_again.inspect_ptx(sig, cc=CC) == cubes.inspect_ptx(sig, cc=CC)


def test_kernel_defined_in_a_function_pickles_by_value(rng):
    scale = float(rng.uniform(2, 3))
    kernel = closure_kernel(scale)
    sig = "void(float64[:], float64[:])"
    kernel.compile(sig)
    again = roundtrip(kernel)
    assert again.py_func is not kernel.py_func  # rebuilt from its code
    assert again.py_func.__closure__[0].cell_contents == scale
    assert again.inspect_ptx(sig, cc=CC) == kernel.inspect_ptx(sig, cc=CC)
    assert again.inspect_ptx(sig, cc=CC) != closure_kernel(scale + 1).inspect_ptx(sig, cc=CC)


_SCRIPT = """
import pickle, sys
from cumlir import cuda

SCALE = 3.0

@cuda.jit(device=True)
def scaled(x):
    return x * SCALE

@cuda.jit
def kernel(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = scaled(x[i])

with open(sys.argv[1], "wb") as f:
    pickle.dump(kernel, f)
"""

_LOAD = """
import pickle, sys
from cumlir import cuda
kernel = pickle.load(open(sys.argv[1], "rb"))
ptx, _ = cuda.compile_ptx(kernel.py_func, "void(float32[::1], float32[::1])", cc=(9, 0))
print("mul.f32" in ptx and "0f40400000" in ptx)  # x * SCALE, SCALE = 3.0 sent with the code
"""


def test_a_kernel_of_a_script_run_as_main_pickles_by_value(tmp_path):
    """Another process's ``__main__`` is another file (a Ray or Dask worker's): the kernel of
    a script arrives with its code, the device functions and the globals it reads."""
    import subprocess
    import sys

    script, data = tmp_path / "script.py", tmp_path / "kernel.pkl"
    script.write_text(_SCRIPT)
    subprocess.run([sys.executable, str(script), str(data)], check=True, cwd=tmp_path)
    done = subprocess.run([sys.executable, "-c", _LOAD, str(data)], capture_output=True, text=True, cwd=tmp_path.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_linking_kernel_and_declared_function():
    again = roundtrip(tripled)
    assert again.options.link == tripled.options.link  # the CUDA C++ source travels with it
    external = roundtrip(triple)
    assert (external.name, str(external.signature)) == ("triple", str(triple.signature))
    assert external.link[0].data == TRIPLE.data
    sig = "void(int32[:], int32[:])"
    assert again.inspect_ptx(sig, cc=CC) == tripled.inspect_ptx(sig, cc=CC)


def test_ufuncs_and_reduction():
    again = roundtrip(hypot_ish)
    assert again.types == hypot_ish.types == ["ff->f", "ll->l"]
    lazy = roundtrip(difference)
    assert lazy.types == [] and lazy._dynamic
    gufunc = roundtrip(dot)
    assert (gufunc.layout, gufunc.types) == (dot.layout, dot.types)
    reduction = roundtrip(maximum)
    assert reduction._functor is largest
    summing = roundtrip(cuda.reduce(lambda a, b: a + b))  # a lambda goes by value
    assert summing._functor(2, 5) == 7


# ---- in a spawned process ----------------------------------------------------------------------


def test_spawned_process_compiles_unpickled_kernels(spawned, rng):
    axpy.compile(AXPY)
    ptx, signatures, options = spawned.submit(worker.kernel_ptx, pickle.dumps(axpy), AXPY).result()
    assert ptx == axpy.inspect_asm(AXPY, cc=CC)
    assert signatures == [str(argtypes) for argtypes in axpy.overloads] and options == axpy.options

    scale = float(rng.uniform(2, 3))
    kernel = closure_kernel(scale)
    sig = "void(float64[:], float64[:])"
    kernel.compile(sig)
    ptx, signatures, _ = spawned.submit(worker.kernel_ptx, pickle.dumps(kernel), sig).result()
    assert ptx == kernel.inspect_asm(sig, cc=CC) and len(signatures) == 1

    sig = "void(int32[:], int32[:])"
    assert spawned.submit(worker.kernel_ptx, pickle.dumps(tripled), sig).result()[0] == tripled.inspect_asm(sig, cc=CC)


def test_spawned_process_compiles_unpickled_device_functions_and_ufuncs(spawned, rng):
    cubes.compile("void(int64[:], int64[:])")
    ptx, signatures = spawned.submit(worker.device_ptx, pickle.dumps(cube), "int64(int64)").result()
    assert ptx == cuda.compile_ptx(cube, "int64(int64)", device=True, cc=CC)[0]
    assert signatures == [str(s) for s in cube.signatures]

    types, ptx = spawned.submit(worker.ufunc_ptx, pickle.dumps(hypot_ish), "float32(float32, float32)").result()
    pyfunc, argtypes = hypot_ish.kernel_for("float32(float32, float32)")
    assert types == hypot_ish.types and ptx == cuda.compile_ptx(pyfunc, tuple(argtypes), cc=CC)[0]

    values = [int(v) for v in rng.integers(-1000, 1000, 20)]
    assert spawned.submit(worker.reduce_of, pickle.dumps(maximum), values).result() == max(values)


# ---- launched in a spawned process -------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.not_simulated("its kernel links CUDA C++, which has no host form")
def test_spawned_process_launches_unpickled_kernels(spawned, rng, tmp_path):
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    axpy[4, 256](np.float32(2), x, y, out)  # compiled here first: the pickle carries the signature
    got = spawned.submit(worker.launch, pickle.dumps(axpy), [np.float32(2), x, y, out], 4, 256).result()[3]
    np.testing.assert_allclose(got, 2 * x + y, rtol=1e-6, atol=1e-6)  # a fused 2*x+y near zero

    ints = rng.integers(-1000, 1000, n).astype(np.int32)
    got = spawned.submit(worker.launch, pickle.dumps(tripled), [ints, np.zeros(n, np.int32)], 4, 256).result()[1]
    np.testing.assert_array_equal(got, 3 * ints)

    # a kernel made in a function, linking a CUDA C++ file by its path
    source = tmp_path / "negate.cu"
    source.write_text('extern "C" __device__ int negate(int* r, int x) { *r = -x; return 0; }')
    negate = cuda.declare_device("negate", "int32(int32)", link=[str(source)])

    @cuda.jit(link=[str(source)])
    def negated(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = negate(x[i])

    got = spawned.submit(worker.launch, pickle.dumps(negated), [ints, np.zeros(n, np.int32)], 4, 256).result()[1]
    np.testing.assert_array_equal(got, -ints)

    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(
        spawned.submit(worker.call_ufunc, pickle.dumps(hypot_ish), a, b).result(), a * a + b * b, rtol=1e-6
    )
    values = rng.standard_normal(n)
    # the reduction starts from init=0, as Numba-CUDA's does
    assert spawned.submit(worker.call_reduce, pickle.dumps(maximum), values).result() == max(values.max(), 0.0)
