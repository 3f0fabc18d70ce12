"""cuda.experimental.local_array_from: a local array filled from a generator expression
(typing/array_from.py rewrites it before numba reads the function)."""

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda
from cumlir.cuda.experimental import local_array_from

from ... import support

SQUARES = (1, 4, 9)
SIG = (types.float64[::1], types.UniTuple(types.int64, 3))


def filled(out, indices):
    a = local_array_from((i + 1 for i in indices), dtype=np.int64)  # a tuple argument
    b = cuda.experimental.local_array_from((2.0 * v for v in range(5)), np.float32)  # a range of constants
    c = local_array_from((s * s for s in SQUARES), np.int32)  # a global tuple
    for k in range(3):
        out[k] = a[k]
    for k in range(5):
        out[3 + k] = b[k]
    for k in range(3):
        out[8 + k] = c[k]
    out[11] = a.size + b.size + c.size


def _expected(indices):
    return np.array([i + 1 for i in indices] + [2.0 * v for v in range(5)] + [s * s for s in SQUARES] + [11.0])


def test_compiles_on_both_code_generators(backend):
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(filled, SIG, cc=cc, backend=backend)
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_the_generated_code_fills_the_arrays():
    from ... import nrt_harness

    kernel = nrt_harness.Kernel(filled, SIG)
    for indices in ((0, 5, -3), (7, 7, 7)):
        out = np.full(12, np.nan)
        kernel(out, *indices)  # a tuple argument is passed as its members (docs/abi.md)
        np.testing.assert_array_equal(out, _expected(indices))


def with_a_condition(out, t):
    a = local_array_from((v for v in t if v > 0), np.int64)
    out[0] = a[0]


def not_assigned(out, t):
    out[0] = local_array_from((v for v in t), np.int64)[0]


def of_an_array(out, t):
    a = local_array_from((v for v in out), np.float64)
    out[0] = a[0]


@pytest.mark.parametrize(
    "kernel, words",
    [
        (with_a_condition, "one for clause and no if"),
        (not_assigned, "assigned to a name"),
        (of_an_array, "length is known while compiling"),
    ],
)
def test_forms_it_cannot_make_are_named(kernel, words):
    with pytest.raises(Exception, match=words):
        cuda.compile_ptx(kernel, SIG, cc=(9, 0))


@pytest.mark.gpu
def test_on_the_gpu(backend):
    out = cuda.to_device(np.full(12, np.nan))
    cuda.jit(backend=backend)(filled)[1, 1](out, (0, 5, -3))
    np.testing.assert_array_equal(out.copy_to_host(), _expected((0, 5, -3)))
