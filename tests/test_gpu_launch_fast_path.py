"""Launches through the fast path on the GPU: every stream kind, every array kind, CUDA
graph capture with CuPy, eager signatures refusing a type change, and a kernel launched
alternately with two argument-type tuples. Each case launches several times (the first
takes the general path, the later ones the fast path) on fresh poisoned outputs.

    python -m pytest -m gpu tests/test_gpu_launch_fast_path.py
"""

import numpy as np
import pytest

from cumlir import cuda

from .cases import launch_kernels as K
from .support import needs_the_gpu_itself, poisoned

pytestmark = pytest.mark.gpu

N = 3001
BLOCKS, THREADS = (N + 127) // 128, 128


vadd = cuda.jit(K.vadd)
vadd_eager = cuda.jit(K.VADD_FLOAT32)(K.vadd)
transpose_add = cuda.jit(K.transpose_add)
scale = cuda.jit(K.scale)
many_scalars = cuda.jit(K.many_scalars)
from_tuple = cuda.jit(K.from_tuple)


def _inputs(rng, dtype=np.float32, n=N):
    return rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)


# ---- streams -----------------------------------------------------------------------------------


def _streams():
    """(name, factory) of every stream kind a launch accepts; factories skip what is missing."""

    def cuda_core():
        needs_the_gpu_itself("cuda.core's streams are the CUDA driver's")
        core = pytest.importorskip("cuda.core")
        device = core.Device()
        device.set_current()
        return device.create_stream()

    def cupy_stream():
        return pytest.importorskip("cupy").cuda.Stream(non_blocking=True)

    def torch_stream():
        return pytest.importorskip("torch").cuda.Stream()

    return [
        ("cuda.stream", cuda.stream),
        ("default_stream", cuda.default_stream),
        ("per_thread_default_stream", cuda.per_thread_default_stream),
        ("legacy_default_stream", cuda.legacy_default_stream),
        ("external_stream", lambda: cuda.external_stream(_keep(cuda.stream()).handle)),
        ("int handle", lambda: _keep(cuda.stream()).handle),
        ("zero", lambda: 0),
        ("None", lambda: None),
        ("cuda.core Stream", cuda_core),
        ("CuPy stream", cupy_stream),
        ("PyTorch stream", torch_stream),
    ]


_kept = []


def _keep(stream):
    _kept.append(stream)  # alive while the handle taken from it is used
    return stream


def _wait(stream):
    for method in ("synchronize", "sync"):
        if hasattr(stream, method):
            getattr(stream, method)()
            return
    cuda.synchronize()


@pytest.mark.parametrize("name,make", _streams(), ids=[name for name, _ in _streams()])
def test_every_stream_kind(name, make, rng):
    stream = make()
    a, b = _inputs(rng)
    da, db = cuda.to_device(a), cuda.to_device(b)
    for round_ in range(3):
        out = cuda.to_device(poisoned(N, np.float32))
        vadd[BLOCKS, THREADS, stream](da, db, out)
        _wait(stream)
        np.testing.assert_array_equal(out.copy_to_host(), a + b, err_msg=f"launch {round_} on a {name}")
        da, db = db, da  # other arguments of the same types: the fast path


def test_stream_with_dynamic_shared_memory(rng):
    a, b = _inputs(rng)
    s = cuda.stream()
    for _ in range(3):
        out = cuda.to_device(poisoned(N, np.float32))
        vadd[BLOCKS, THREADS, s, 4096](cuda.to_device(a), cuda.to_device(b), out)
        s.synchronize()
        np.testing.assert_array_equal(out.copy_to_host(), a + b)


def test_shared_memory_beyond_the_device_limit_is_refused():
    out = cuda.device_array(4, np.float32)
    limit = cuda.get_current_device().MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    with pytest.raises(ValueError, match="bytes per block this device allows"):
        vadd[1, 32, 0, limit + 1](out, out, out)


# ---- array kinds -------------------------------------------------------------------------------


def _kinds():
    def cupy_array(host):
        return pytest.importorskip("cupy").asarray(host)

    def torch_tensor(host):
        return pytest.importorskip("torch").from_numpy(np.ascontiguousarray(host)).cuda()

    def numba_array(host):
        from .support import import_numba_cuda, numba_cuda_problem

        needs_the_gpu_itself("numba-cuda's arrays are in a GPU's memory")
        problem = numba_cuda_problem()
        if problem:
            pytest.skip(problem)
        return import_numba_cuda().to_device(host)

    return [("cumlir", cuda.to_device), ("CuPy", cupy_array), ("PyTorch", torch_tensor), ("numba-cuda", numba_array)]


def _host(array):
    if hasattr(array, "copy_to_host"):
        return array.copy_to_host()
    if hasattr(array, "get"):
        return array.get()
    return array.cpu().numpy()


def _sync():
    cuda.synchronize()


@pytest.mark.parametrize("kind,make", _kinds(), ids=[k for k, _ in _kinds()])
def test_every_array_kind(kind, make, rng):
    for round_ in range(3):  # general, then fast, then fast with other arrays
        a, b = _inputs(rng)
        da, db, dc = make(a), make(b), make(poisoned(N, np.float32))
        vadd[BLOCKS, THREADS](da, db, dc)
        _sync()
        np.testing.assert_array_equal(_host(dc), a + b, err_msg=f"{kind}, launch {round_}")


@pytest.mark.parametrize("kind,make", _kinds(), ids=[k for k, _ in _kinds()])
def test_views_and_layouts_of_every_array_kind(kind, make, rng):
    if kind == "PyTorch":
        pytest.skip("the tensors made here are compact copies; strided tensors are tested below")
    base = rng.standard_normal((40, 70))
    for round_ in range(3):
        a = base[::2, 1::3] * (round_ + 1)  # strided: layout A
        b = np.asfortranarray(rng.standard_normal((a.shape[1], a.shape[0])))  # layout F
        c = poisoned(a.shape[1] * a.shape[0], np.float64).reshape(a.shape[1], a.shape[0])
        dev_a = make(base * (round_ + 1))[::2, 1::3]
        dev_b, dev_c = make(b), make(c)
        transpose_add[(4, 4), (16, 16)](dev_a, dev_b, dev_c)
        _sync()
        np.testing.assert_array_equal(_host(dev_c), a.T + b, err_msg=f"{kind}, launch {round_}")


def test_strided_torch_tensors(rng):
    torch = pytest.importorskip("torch")
    base = rng.standard_normal((40, 70))
    for round_ in range(3):
        a = torch.from_numpy(base * (round_ + 1)).cuda()[::2, 1::3]
        b = torch.from_numpy(rng.standard_normal((a.shape[0], a.shape[1]))).cuda().T  # F order
        c = torch.full((a.shape[1], a.shape[0]), float("nan"), dtype=torch.float64, device="cuda")
        transpose_add[(4, 4), (16, 16)](a, b, c)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(c.cpu().numpy(), a.cpu().numpy().T + b.cpu().numpy())


def test_cupy_slices_made_for_each_launch(rng):
    cupy = pytest.importorskip("cupy")
    a, b = _inputs(rng, n=N + 1)
    da, db = cupy.asarray(a), cupy.asarray(b)
    for offset in (1, 0, 1, 0):
        out = cupy.full(N, cupy.nan, dtype=cupy.float32)
        vadd[BLOCKS, THREADS](da[offset : offset + N], db[offset : offset + N], out)
        np.testing.assert_array_equal(out.get(), a[offset : offset + N] + b[offset : offset + N])


def test_cupy_arrays_made_on_another_cupy_stream(rng):
    cupy = pytest.importorskip("cupy")
    producer = cupy.cuda.Stream(non_blocking=True)
    consumer = cuda.stream()
    for _ in range(3):
        a, b = _inputs(rng)
        with producer:  # the interface names this stream: the launch waits for it
            da, db = cupy.asarray(a), cupy.asarray(b)
            out = cupy.full(N, cupy.nan, dtype=cupy.float32)
            vadd[BLOCKS, THREADS, consumer](da, db, out)
        consumer.synchronize()
        np.testing.assert_array_equal(out.get(), a + b)


def test_numpy_arrays_between_fast_launches(rng):
    a, b = _inputs(rng)
    da, db = cuda.to_device(a), cuda.to_device(b)
    for round_ in range(4):
        if round_ % 2:
            out = poisoned(N, np.float32)
            vadd[BLOCKS, THREADS](a, b, out)  # copied in and out
            np.testing.assert_array_equal(out, a + b)
        else:
            out = cuda.to_device(poisoned(N, np.float32))
            vadd[BLOCKS, THREADS](da, db, out)
            np.testing.assert_array_equal(out.copy_to_host(), a + b)


def test_scalars_and_tuples(rng):
    ints = [int(v) for v in rng.integers(-1000, 1000, 8)]
    floats = [float(v) for v in rng.standard_normal(8)]
    for _ in range(3):
        out = cuda.to_device(poisoned(2, np.float64))
        many_scalars[1, 1](out, *ints, *floats)
        got = out.copy_to_host()
        assert got[0] == sum(ints)
        f = floats
        # the GPU may contract a * b + c into one rounding: a few ulps apart at most
        np.testing.assert_allclose(
            got[1], f[0] * f[1] + f[2] - f[3] + f[4] * f[5] + f[6] - f[7], rtol=1e-13, atol=1e-13
        )
        t = (float(rng.standard_normal()), float(rng.standard_normal()), int(rng.integers(-9, 9)))
        tout = cuda.to_device(poisoned(1, np.float64))
        from_tuple[1, 1](t, tout)
        np.testing.assert_allclose(tout.copy_to_host()[0], t[0] * t[1] + t[2], rtol=1e-13, atol=1e-13)
        ints, floats = ints[::-1], floats[::-1]


# ---- graphs, eager signatures, alternating types ----------------------------------------------


@pytest.mark.timing  # captured launches must not run: the agreement plugin would wait for them
def test_cupy_graph_capture_replays_launches(rng):
    cupy = pytest.importorskip("cupy")
    s = cupy.cuda.Stream(non_blocking=True)
    a, b = _inputs(rng)
    with s:
        da, db = cupy.asarray(a), cupy.asarray(b)
        out = cupy.full(N, cupy.nan, dtype=cupy.float32)
        vadd[BLOCKS, THREADS, s](da, db, out)  # compiled, loaded, its fast path made
        scale[BLOCKS, THREADS, s](out, np.float32(2))
        s.synchronize()
        np.testing.assert_array_equal(out.get(), (a + b) * np.float32(2))
        out.fill(cupy.nan)
        s.synchronize()
        s.begin_capture()
        try:
            vadd[BLOCKS, THREADS, s](da, db, out)
            scale[BLOCKS, THREADS, s](out, np.float32(3))
        finally:
            graph = s.end_capture()  # a stream left capturing would fail every later test on this worker
        s.synchronize()
        assert bool(cupy.isnan(out).all()), "capturing ran the kernels"
        graph.launch(stream=s)
        s.synchronize()
        np.testing.assert_array_equal(out.get(), (a + b) * np.float32(3))
        a2, b2 = _inputs(rng)
        da.set(a2)
        db.set(b2)
        out.fill(cupy.nan)
        graph.launch(stream=s)  # the graph holds the arrays' addresses: it reads the new values
        s.synchronize()
        np.testing.assert_array_equal(out.get(), (a2 + b2) * np.float32(3))


def test_an_eager_signature_refuses_a_type_change(rng):
    a, b = _inputs(rng)
    da, db = cuda.to_device(a), cuda.to_device(b)
    for _ in range(2):
        out = cuda.to_device(poisoned(N, np.float32))
        vadd_eager[BLOCKS, THREADS](da, db, out)
        np.testing.assert_array_equal(out.copy_to_host(), a + b)
    wrong = cuda.to_device(poisoned(N, np.float64))
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        vadd_eager[BLOCKS, THREADS](da, db, wrong)
    assert np.isnan(wrong.copy_to_host()).all()  # nothing was launched


def test_a_kernel_launched_alternately_with_two_argument_types(rng):
    a32, b32 = _inputs(rng)
    a64, b64 = _inputs(rng, np.float64)
    args32 = (cuda.to_device(a32), cuda.to_device(b32))
    args64 = (cuda.to_device(a64), cuda.to_device(b64))
    for round_ in range(6):
        if round_ % 2:
            out = cuda.to_device(poisoned(N, np.float64))
            vadd[BLOCKS, THREADS](*args64, out)
            np.testing.assert_array_equal(out.copy_to_host(), a64 + b64)
        else:
            out = cuda.to_device(poisoned(N, np.float32))
            vadd[BLOCKS, THREADS](*args32, out)
            np.testing.assert_array_equal(out.copy_to_host(), a32 + b32)
