"""Compiling and launching from many threads at once (tests/thread_stress.py is the workload;
``CUMLIR_THREAD_STRESS=16x50x20`` runs it at full size: threads x compiles x rounds)."""

import os
import threading

import numpy as np
import pytest

from cumlir import cuda
from cumlir.dispatcher.table import OverloadTable

from . import thread_stress

BACKENDS = sorted(thread_stress.GPU_BACKENDS)


def _size():
    threads, compiles, rounds = (int(n) for n in os.environ.get("CUMLIR_THREAD_STRESS", "16x8x1").split("x"))
    return threads, compiles, rounds


def test_threads_compile_distinct_signatures_at_once():
    threads, compiles, rounds = _size()
    for _ in range(rounds):
        result = thread_stress.stress(threads, compiles)
        assert [f"{t} {kind} {sig} {backend}: {e!r}" for t, kind, sig, backend, e in result.failures] == []
        assert set(result.compiled) == thread_stress.planned(threads, compiles)  # each made its PTX
        assert thread_stress.wrong_results(result.compiled) == []


def test_dispatcher_shared_by_threads_keeps_every_signature():
    functions = thread_stress.Functions()
    dispatcher = functions.dispatchers["nvptx"]
    sigs = [thread_stress.signature(i * 13, "dispatcher") for i in range(24)]
    barrier = threading.Barrier(8)
    overloads = {}

    def worker(t):
        barrier.wait()
        for sig in sigs[t % 4 :: 4]:  # each signature compiled by two threads at once
            overloads.setdefault(sig, []).append(dispatcher.compile(sig))

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert len(dispatcher.overloads) == len(sigs)
    # the two threads asking for one signature got the same kernel: it was compiled once
    assert all(len(found) == 2 and found[0] is found[1] for found in overloads.values())
    assert set(dispatcher.overloads) == {OverloadTable.parse_signature(s)[0] for s in sigs}


def test_single_thread_compiles_after_the_stress():
    thread_stress.stress(8, 4)
    functions = thread_stress.Functions()
    sig = "void(float32, float32[::1], float32, float32[::1])"
    ptx = thread_stress.compile_one(functions, "compile_ptx", sig, "nvptx")
    assert ".entry" in ptx and "fma.rn.f32" in ptx
    assert ptx == cuda.compile_ptx(thread_stress.Functions().axpb, sig, cc=thread_stress.CC)[0]


def test_each_thread_has_its_own_mlir_context_and_pass_managers():
    from mlir import ir

    from cumlir.codegen.passes.pipeline import STAGES, pass_manager
    from cumlir.mlir.contexts import mlir_context

    def made():
        context = mlir_context()
        with context:
            return context, pass_manager(STAGES["optimized"]), pass_manager(STAGES["optimized"])

    here = made()
    assert here[0] is mlir_context() and here[1] is here[2]  # kept within a thread
    there = []

    def other_thread():
        # compared there: a pass manager must not outlive its thread's context
        context, first, second = made()
        there.append((context is not here[0], first is not here[1], first is second))

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert there == [(True, True, True)]
    with ir.Context():  # a context of no thread's own: its pass managers are not kept
        assert pass_manager(STAGES["optimized"]) is not pass_manager(STAGES["optimized"])


@pytest.mark.gpu
def test_threads_compile_and_launch_on_their_own_streams():
    functions = thread_stress.Functions()
    kernels = functions.dispatchers  # one dispatcher per code generator, shared by the threads
    dtypes = ["float32", "float64", "int32", "int64", "uint32", "int16", "uint64", "int8"]
    failures, checked = [], []
    barrier = threading.Barrier(16)

    def worker(t):
        rng = np.random.default_rng(t)
        dtype = np.dtype(dtypes[t % len(dtypes)])
        stream = cuda.stream()
        barrier.wait()
        try:
            for n in (1, 257, 4099):
                x = (rng.integers(-50, 50, n) if dtype.kind in "iu" else rng.standard_normal(n)).astype(dtype)
                if dtype.kind == "u":
                    x = np.abs(x)
                a, b = dtype.type(3), dtype.type(t)
                d_x = cuda.to_device(x, stream=stream)
                d_out = cuda.device_array(n, dtype, stream=stream)
                kernel = kernels[BACKENDS[t % len(BACKENDS)]]
                if t % 4 == 3:  # a specialized kernel, made by several threads at once
                    kernel = kernel.specialize(a, d_x, b, d_out)
                kernel[(n + 127) // 128, 128, stream](a, d_x, b, d_out)
                out = d_out.copy_to_host(stream=stream)
                stream.synchronize()
                expected = (a * x + b).astype(dtype)
                if dtype.kind == "f":  # the kernel may fuse a * x + b into one fma
                    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5 * (1 + t))
                else:
                    np.testing.assert_array_equal(out, expected)
                checked.append((t, n))
        except Exception as e:  # noqa: BLE001 - reported below with its thread
            failures.append((t, repr(e)))

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(16)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert failures == []
    assert len(checked) == 16 * 3
    # one kernel per code generator and dtype launched unspecialized, however many threads launched it
    launched = {(BACKENDS[t % len(BACKENDS)], dtypes[t % len(dtypes)]) for t in range(16) if t % 4 != 3}
    kept = [(name, str(argtypes[1].dtype)) for name, kernel in kernels.items() for argtypes in kernel.overloads]
    assert sorted(kept) == sorted(launched)
