"""What a dtype known when compiling says of itself (operations/numpy/dtype_attributes.py):
every attribute read in a kernel is NumPy's, for scalar, record, aligned-record and subarray
dtypes captured by the kernel or given to a device function; on the simulator and the GPU,
and in PTX that ptxas accepts from both code generators."""

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda

from ... import support

DTYPES = {
    "int32": np.dtype(np.int32),
    "float16": np.dtype(np.float16),
    "complex128": np.dtype(np.complex128),
    "bool": np.dtype(np.bool_),
    "record": np.dtype([("x", np.int32), ("y", np.float64)]),
    "aligned record": np.dtype([("a", np.int8), ("b", np.float32)], align=True),
    "subarray": np.dtype((np.int32, (2, 3))),
}
NUMBERS = ["itemsize", "num", "alignment", "isbuiltin", "hasobject", "isalignedstruct", "isnative", "ndim"]
STRINGS = ["char", "name", "str", "byteorder", "kind"]


def _kernel(dt):
    numbers = "\n".join(f"    out[{i}] = dt.{name}" for i, name in enumerate(NUMBERS))
    strings = "\n".join(
        f"    out[{len(NUMBERS) + i}] = dt.{name} == {getattr(dt, name)!r}" for i, name in enumerate(STRINGS)
    )
    k = len(NUMBERS) + len(STRINGS)
    source = (
        "def kernel(out):\n"
        f"{numbers}\n{strings}\n"
        f"    out[{k}] = dt.names is None\n"
        f"    out[{k + 1}] = len(dt.shape)\n"
        f"    out[{k + 2}] = dt.base.itemsize\n"
        f"    out[{k + 3}] = dt.subdtype is None\n"
    )
    scope = {"dt": dt}
    exec(compile(source, "<dtype attributes>", "exec"), scope)
    return scope["kernel"]


def _expected(dt):
    return [
        *(int(getattr(dt, n)) for n in NUMBERS),
        *([1] * len(STRINGS)),
        dt.names is None,
        len(dt.shape),
        dt.base.itemsize,
        dt.subdtype is None,
    ]


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_a_captured_dtypes_attributes_are_numpys(name, simulator_or_gpu):
    dt = DTYPES[name]
    out = support.poisoned(len(NUMBERS) + len(STRINGS) + 4, np.int64)
    cuda.jit(_kernel(dt))[1, 1](out)
    np.testing.assert_array_equal(out, _expected(dt))


@cuda.jit(device=True)
def _described(dt, out):
    out[0] = dt.itemsize
    out[1] = len(dt.shape)
    out[2] = dt.base.alignment


@cuda.jit(device=True)
def _fields_of(dt, out):
    out[3] = dt.names[1] == "y"
    out[4] = len(dt.names)


def test_a_dtype_given_to_a_device_function(simulator_or_gpu):
    record, subarray = DTYPES["record"], DTYPES["subarray"]

    @cuda.jit
    def kernel(out):
        _described(record, out[0])
        _fields_of(record, out[0])
        _described(subarray, out[1])

    out = support.poisoned((2, 5), np.int64)
    out[1, 3:] = 0
    kernel[1, 1](out)
    np.testing.assert_array_equal(out, [[12, 0, 1, 1, 2], [24, 2, 4, 0, 0]])


def test_the_attributes_assemble_on_both_code_generators(backend):
    ptx, _ = cuda.compile_ptx(_kernel(DTYPES["record"]), "void(int64[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")


def test_an_attribute_numpy_has_but_kernels_do_not_read_is_a_typing_error():
    dt = DTYPES["record"]

    def kernel(out):
        out[0] = len(dt.fields)

    with pytest.raises(TypingError, match="fields"):
        cuda.compile_ptx(kernel, "void(int64[::1])", cc=(9, 0))
