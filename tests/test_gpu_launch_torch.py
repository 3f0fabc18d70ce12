"""PyTorch tensors and CuPy views made per launch, launched on the GPU: every case launches
several times with fresh tensors (the first takes the general path, the later ones the
fast path, which reads the tensors' attributes) and checks the results; what the general
path refuses (bfloat16, requiring grad, on the host) is still refused after fast launches.

    python -m pytest -m gpu tests/test_gpu_launch_torch.py
"""

import numpy as np
import pytest

from cumlir import cuda

from .cases import launch_kernels as K

pytestmark = pytest.mark.gpu

N = 3001
BLOCKS, THREADS = (N + 127) // 128, 128

vadd = cuda.jit(K.vadd)
transpose_add = cuda.jit(K.transpose_add)


@cuda.jit
def differ(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] != b[i]


@cuda.jit
def doubled(a, out):
    out[()] = a[()] * 2


@cuda.jit
def add3(a, b, out):
    i, j, k = cuda.grid(3)
    if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
        out[i, j, k] = a[i, j, k] + b[i, j, k]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _on_gpu(torch, host):
    return torch.from_numpy(np.ascontiguousarray(host)).cuda()


def _nan_like(torch, shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64, np.complex64])
def test_vectors_of_each_dtype(torch, rng, dtype):
    for round_ in range(3):
        a, b = (rng.integers(-100, 100, N).astype(dtype) for _ in range(2))  # sums exact in every dtype
        out = _on_gpu(torch, np.zeros(N, dtype) - 7)
        vadd[BLOCKS, THREADS](_on_gpu(torch, a), _on_gpu(torch, b), out)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), a + b, err_msg=f"launch {round_}")


def test_vectors_of_other_sizes_on_the_fast_path(torch, rng):
    for n in (N, 1, 0, 17, N):
        a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        out = _nan_like(torch, (n,), torch.float32)
        vadd[max(1, (n + 127) // 128), 128](_on_gpu(torch, a), _on_gpu(torch, b), out)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), a + b, err_msg=f"{n} elements")


def test_bool_tensors(torch, rng):
    for _ in range(3):
        a, b = rng.standard_normal(N) > 0, rng.standard_normal(N) > 0
        out = _on_gpu(torch, ~(a != b))  # every element wrong until written
        differ[BLOCKS, THREADS](_on_gpu(torch, a), _on_gpu(torch, b), out)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), a != b)


def test_zero_dimensional_tensors(torch):
    for value in (1.5, -3.25, 8.0):
        a = torch.tensor(value, dtype=torch.float32, device="cuda")
        out = _nan_like(torch, (), torch.float32)
        doubled[1, 1](a, out)
        torch.cuda.synchronize()
        assert out.item() == value * 2


def test_transposed_and_sliced_matrices(torch, rng):
    base = rng.standard_normal((40, 70))
    for round_ in range(3):
        b_host = (base * (round_ + 1))[::2, 1::4]  # sliced: layout A, 20 x 18
        a_host = rng.standard_normal((18, 20))  # read transposed by the kernel
        a = _on_gpu(torch, a_host.T).T  # F order on the device
        assert not a.is_contiguous() and a.shape == (18, 20)
        b = _on_gpu(torch, base * (round_ + 1))[::2, 1::4]
        c = _nan_like(torch, (20, 18), torch.float64)
        transpose_add[(4, 4), (16, 16)](a, b, c)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(c.cpu().numpy(), a_host.T + b_host, err_msg=f"launch {round_}")


def test_three_dimensional_tensors(torch, rng):
    for shape in ((4, 5, 6), (3, 1, 9), (4, 5, 6)):
        a, b = rng.standard_normal(shape), rng.standard_normal((shape[0], shape[1], 2 * shape[2]))
        b_view = _on_gpu(torch, b)[:, :, ::2]  # strided in its last axis
        out = _nan_like(torch, shape, torch.float64)
        add3[(1, 1, 1), shape](_on_gpu(torch, a), b_view, out)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), a + b[:, :, ::2], err_msg=str(shape))


def _launched_once(torch):
    a = torch.arange(N, dtype=torch.float32, device="cuda")
    for _ in range(2):  # the second on the fast path
        vadd[BLOCKS, THREADS](a, a, a)
    return a


def test_bfloat16_tensors_are_refused(torch):
    _launched_once(torch)
    half = torch.zeros(N, dtype=torch.bfloat16, device="cuda")
    try:
        half.__cuda_array_interface__
    except KeyError:
        pytest.skip("this PyTorch's interface has no type string for bfloat16")
    with pytest.raises(TypeError, match="not supported|unsupported ScalarType"):  # cumlir's words, or torch's
        vadd[BLOCKS, THREADS](half, half, half)


def test_a_tensor_that_requires_grad_is_refused(torch):
    a = _launched_once(torch)
    weights = torch.zeros(N, dtype=torch.float32, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        vadd[BLOCKS, THREADS](a, weights, a)


def test_a_host_tensor_is_refused(torch):
    a = _launched_once(torch)
    with pytest.raises(BufferError, match="(?i)cpu"):
        vadd[BLOCKS, THREADS](a, torch.zeros(N, dtype=torch.float32), a)


def test_cupy_matrix_views_made_for_each_launch(rng):
    cupy = pytest.importorskip("cupy")
    base = rng.standard_normal((41, 71))
    dbase = cupy.asarray(base)
    for offset in (1, 0, 1, 0):
        # a[j, i] is read: the transposed view of a 20 x 18 slice; b, c: 20 x 18
        a = base[offset : offset + 40 : 2, 1::4]
        b = base[offset : offset + 20, :18]
        c = cupy.full((20, 18), cupy.nan)
        transpose_add[(4, 4), (16, 16)](dbase[offset : offset + 40 : 2, 1::4].T, dbase[offset : offset + 20, :18], c)
        np.testing.assert_array_equal(c.get(), a + b, err_msg=f"offset {offset}")
