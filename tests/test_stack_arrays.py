"""Arrays of a compile-time size made once in a kernel live in its stack, with no runtime
(docs/nrt.md, "Arrays in the kernel's stack"); the rest come from the device heap, with NRT
switched on by itself."""

import numpy as np
import pytest

from cumlir import cuda

from . import support

SIG = "void(float32[::1], float64[::1])"


def _ptx(kernel, **options):
    ptx, _ = cuda.compile_ptx(kernel, SIG, cc=(9, 0), **options)
    if not _heap(ptx):  # code calling the runtime is checked once linked with it, below
        support.ptxas(ptx, "sm_90")
    return ptx


def _heap(ptx):
    return "NRT_MemInfo_alloc_aligned" in ptx


def eight_scratch(a, out):
    i = cuda.grid(1)
    tmp = np.zeros(8)
    for j in range(8):
        tmp[j] = a[i * 8 + j] * 2
    s = 0.0
    for j in range(8):
        s += tmp[j]
    out[i] = s


def shapes_and_dtypes(a, out):
    f = np.full((2, 3), 1.5, dtype=np.float32)
    o = np.ones((2, 3), np.int32)
    e = np.empty(4, np.uint8)
    e[3] = 7
    z = np.zeros((3, 2))
    z[2, 1] = a[0]
    out[0] = f[1, 2] + o[1, 1] + e[3] + z[2, 1]


@pytest.mark.parametrize("kernel", [eight_scratch, shapes_and_dtypes])
def test_compile_time_sizes_stay_in_the_stack(kernel, backend):
    ptx, _ = cuda.compile_ptx(kernel, SIG, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert not _heap(ptx)


def test_stack_arrays_need_no_runtime():
    assert not _heap(_ptx(eight_scratch, nrt=False))  # nothing to refuse
    assert _ptx(eight_scratch) == _ptx(eight_scratch, nrt=False)


def in_a_loop(a, out):
    i = cuda.grid(1)
    for r in range(3):
        tmp = np.zeros(8)  # one array per iteration: each may outlive the next one's making
        tmp[r] = a[i]
        out[i] += tmp[r]


def too_large(a, out):
    big = np.zeros(4097)  # 32 KiB of float64
    big[1] = a[0]
    out[0] = big[1]


def dynamic(a, out):
    t = np.zeros(a.size)
    t[0] = a[0]
    out[0] = t[0]


@cuda.jit(device=True)
def _scratch_sum(a):
    tmp = np.zeros(4)
    for j in range(4):
        tmp[j] = a[j]
    return tmp[0] + tmp[3]


def in_a_device_function(a, out):
    out[0] = _scratch_sum(a)


@pytest.mark.parametrize("kernel", [in_a_loop, too_large, dynamic, in_a_device_function])
def test_other_arrays_come_from_the_heap_with_nrt_switched_on_by_itself(kernel):
    assert _heap(_ptx(kernel))
    cubin = cuda.jit(kernel).compile(SIG).binary((9, 0)).cubin  # the runtime linked by itself
    assert cubin[:4] == b"\x7fELF"
    with pytest.raises(Exception, match="needs NRT, which nrt=False"):
        _ptx(kernel, nrt=False)


@pytest.mark.gpu
def test_stack_arrays_on_the_gpu(backend):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(8 * 256).astype(np.float32)
    out = cuda.to_device(np.full(256, np.nan))
    kernel = cuda.jit(backend=backend)(eight_scratch)
    kernel[2, 128](cuda.to_device(a), out)
    np.testing.assert_allclose(out.copy_to_host(), (2.0 * a.astype(np.float64)).reshape(256, 8).sum(axis=1), rtol=1e-12)
    assert kernel.nrt_stats().alloc == 0
    single = cuda.to_device(np.full(1, np.nan))
    shaped = cuda.jit(backend=backend)(shapes_and_dtypes)
    shaped[1, 1](cuda.to_device(a[:1]), single)
    assert single.copy_to_host()[0] == 1.5 + 1 + 7 + np.float64(a[0])
