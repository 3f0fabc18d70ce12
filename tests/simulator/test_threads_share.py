"""Objects many threads call at once, run on the simulator (no GPU): one ``cuda.reduce``
shared by threads on one stream gives each its own result, and a GPU ufunc without
signatures called with new dtypes from several threads compiles each loop's kernel
once. The interpreter switches threads every microsecond so that their calls interleave."""

import sys
import threading

import numpy as np
import pytest

from cumlir import cuda

pytestmark = pytest.mark.usefixtures("simulated")

THREADS = 6


@pytest.fixture
def interleaved():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _run_together(work):
    start = threading.Barrier(THREADS)
    errors = []

    def body(k):
        try:
            start.wait()
            work(k)
        except BaseException as e:  # reported by the test's thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_one_reduce_shared_by_threads_on_one_stream(interleaved):
    total = cuda.reduce(lambda a, b: a + b)
    arrays = [cuda.to_device(np.arange(1000 * (k + 1), dtype=np.int64) * (k + 1)) for k in range(THREADS)]
    total(arrays[0])  # compiled before the threads start
    wrong = []

    def work(k):
        expected = (k + 1) * (1000 * (k + 1)) * (1000 * (k + 1) - 1) // 2
        for _ in range(40):
            got = total(arrays[k])
            if got != expected:
                wrong.append((k, got, expected))

    _run_together(work)
    assert not wrong, f"{len(wrong)} reductions gave another thread's sum, e.g. {wrong[0]}"


def test_a_ufunc_without_signatures_compiles_each_loop_once(interleaved, monkeypatch):
    from cumlir.cuda import ufunc_api

    made = []
    compile_kernel = ufunc_api._compile_kernel

    def counted(pyfunc, options):
        made.append(pyfunc)
        return compile_kernel(pyfunc, options)

    monkeypatch.setattr(ufunc_api, "_compile_kernel", counted)

    @cuda.vectorize
    def twice_plus(x, y):
        return 2 * x + y

    dtypes = [np.int32, np.int64, np.float32, np.float64, np.int32, np.float64]

    def work(k):
        x = np.arange(100, dtype=dtypes[k])
        np.testing.assert_array_equal(twice_plus(x, x), 2 * x + x)

    _run_together(work)
    # a loop for the dtypes of each call, or one an earlier loop takes by safe casting: each
    # loop's kernel compiled once
    assert len(made) == len(twice_plus.types), f"{len(made)} kernels compiled for loops {twice_plus.types}"
