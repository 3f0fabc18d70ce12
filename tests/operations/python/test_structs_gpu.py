"""C structs and unions on the GPU: every kernel of tests/cases/struct_kernels.py on random inputs
against its host reference (the host's values of the same types, whose bytes are C's layout),
bit for bit, on both code generators where the kernel compiles on them."""

import numpy as np
import pytest

from cumlir import cuda, simulation

from ... import support
from ...cases import struct_kernels as K

pytestmark = pytest.mark.gpu


def _on(backend, kernel):
    """*kernel*'s Python function compiled with *backend*."""
    return cuda.jit(backend=backend)(kernel.py_func)


def _bfloat16_on(backend):
    """Whether the device's code generator reads bfloat16 (libNVVM below sm_100 does not; the
    simulator's, which runs every kernel, does)."""
    return backend != "nvvm" or simulation.requested() or cuda.get_current_device().compute_capability >= (10, 0)


@pytest.mark.parametrize("seed", range(3))
def test_read_every_field_of_an_argument(backend, seed):
    if not _bfloat16_on(backend):
        pytest.skip("bfloat16 fields need sm_100 on the nvvm code generator")
    e = K.random_every(np.random.default_rng(seed))
    ints, floats, raw = np.zeros(20, np.int64), np.zeros(13), np.zeros(K.Every.size, np.uint8)
    _on(backend, K.read_every)[1, 1](e, ints, floats, raw)
    expected_ints, expected_floats, expected_raw = K.read_every_reference(e)
    np.testing.assert_array_equal(ints.view(np.uint64), expected_ints)
    np.testing.assert_array_equal(floats, expected_floats)
    np.testing.assert_array_equal(raw, expected_raw)


def test_build_values_field_by_field(backend):
    if not _bfloat16_on(backend):
        pytest.skip("bfloat16 fields need sm_100 on the nvvm code generator")
    ints, floats = K.build_every_inputs(np.random.default_rng(21), 1000)
    raw = support.poisoned(1000 * K.Every.size, np.uint8).reshape(1000, K.Every.size)
    _on(backend, K.build_every)[8, 128](ints, floats, raw)
    np.testing.assert_array_equal(raw, K.build_every_reference(ints, floats))


def test_union_views(backend):
    values = np.random.default_rng(22).standard_normal(4096).astype(np.float32) * 1000
    out = np.zeros((4096, 9), np.int64)
    _on(backend, K.word_views)[32, 128](values, out)
    np.testing.assert_array_equal(out, K.word_views_reference(values))


def test_local_arrays(backend):
    values = np.random.default_rng(23).standard_normal((500, 8))
    out = np.zeros((500, 3))
    _on(backend, K.local_arrays)[4, 128](values, out)
    np.testing.assert_allclose(out, K.local_arrays_reference(values), rtol=1e-14)  # contracted sums


def test_shared_arrays_field_by_field(backend):
    threads = 64
    values = np.random.default_rng(24).standard_normal(16 * threads).astype(np.float32)
    out = np.zeros((16 * threads, 2))
    _on(backend, K.shared_arrays)[16, threads, 0, threads * K.Word.size](values, out)
    np.testing.assert_array_equal(out, K.shared_arrays_reference(values, threads))


def test_device_functions_take_and_return_copies(backend):
    values = np.random.default_rng(25).standard_normal(1000).astype(np.float32)
    out = np.zeros((1000, 5))
    _on(backend, K.through_functions)[8, 128](values, out)
    np.testing.assert_array_equal(out, K.through_functions_reference(values))
