"""Hopper's register reallocation and programmatic dependent launch on the GPU, on both code
generators: setmaxnreg in a kernel of two warpgroups (sm_90a); griddepcontrol in a kernel
launched without dependencies, and in a programmatic dependent launch (pdl=True) after the
kernel it waits for, whether that kernel lets it start at its end or at its beginning."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda import intrin

from ...cases import wgmma_kernels as wk
from ...support import poisoned

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("Hopper's launch and register controls are the GPU's")]


@pytest.fixture(autouse=True)
def _hopper():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("griddepcontrol and setmaxnreg need sm_90")


def test_setmaxnreg_in_two_warpgroups(backend):
    if cuda.get_current_device().compute_capability != (9, 0):
        pytest.skip("setmaxnreg runs on 9.0 devices only (sm_90a)")
    kernel = cuda.jit(chip="sm_90a", backend=backend, max_registers=wk.SETMAXNREG_REGISTERS)(wk.two_warpgroups)
    out = poisoned(2 * wk.WARPGROUP, np.int32)
    kernel[1, 2 * wk.WARPGROUP](out)
    np.testing.assert_array_equal(out, np.arange(2 * wk.WARPGROUP, dtype=np.int32))


def test_griddepcontrol_without_dependencies_runs(backend):
    kernel = cuda.jit(backend=backend)(wk.dependent)
    out = poisoned(256, np.int32)
    kernel[2, 128](out)
    np.testing.assert_array_equal(out, np.full(256, 7, np.int32))


def test_a_programmatic_dependent_launch_waits_for_its_primary(backend):
    producer = cuda.jit(backend=backend)(wk.producer)
    consumer = cuda.jit(backend=backend)(wk.consumer)
    n = 128 * 132 * 4
    source = cuda.to_device(np.full(n, -1, np.int64))
    out = cuda.to_device(np.full(n, -1, np.int64))
    stream = cuda.stream()
    for _ in range(3):
        producer[n // 128, 128, stream](source, 20000, 0)
        consumer.configure(n // 128, 128, stream, pdl=True)(source, out)
    stream.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(n))


def _early_producer(out, rounds, zero):
    """Lets the dependent grid start at once, then writes out[i] = i after some work (*zero*
    is 0: the work cannot be left out)."""
    intrin.griddepcontrol_launch_dependents()
    i = cuda.grid(1)
    value = 0
    for _ in range(rounds):
        value = (value * 7 + i) % 1000003
    out[i] = i + value * zero


def test_the_wait_waits_for_the_primary_to_complete_not_for_its_trigger(backend):
    # the dependent runs alongside the whole of the primary; its wait still returns only once
    # every write of the primary is done and visible
    producer = cuda.jit(backend=backend)(_early_producer)
    consumer = cuda.jit(backend=backend)(wk.consumer)
    n = 128 * 132 * 4
    out = cuda.to_device(np.full(n, -1, np.int64))
    stream = cuda.stream()
    for round_ in range(3):
        source = cuda.to_device(np.full(n, -1, np.int64))  # poisoned again each round
        producer[n // 128, 128, stream](source, 20000 + round_, 0)
        consumer.configure(n // 128, 128, stream, pdl=True)(source, out)
        stream.synchronize()
        np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(n))
