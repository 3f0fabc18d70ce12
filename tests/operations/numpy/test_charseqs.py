"""NumPy's fixed-width strings on the CPU (operations/numpy/charseqs.py): their data model,
every kernel of the GPU tests compiled to PTX that ptxas accepts from both code generators,
and what typing refuses, naming the problem and the line."""

import numpy as np
import pytest
from numba import from_dtype
from numba.core import errors, types

from cumlir import cuda
from cumlir.mlir.contexts import mlir_context
from cumlir.models import default_manager

from ... import support
from ...cases import charseq_kernels as K


def _strings(kind, width, ndim=1, layout="C"):
    element = types.UnicodeCharSeq(width) if kind == "U" else types.CharSeq(width)
    return types.Array(element, ndim, layout)


def test_values_are_vectors_of_code_units_and_arrays_count_bytes():
    from mlir import ir

    with mlir_context(), ir.Location.unknown():
        assert str(default_manager.value_type(types.UnicodeCharSeq(4))) == "vector<4xi32>"
        assert str(default_manager.value_type(types.CharSeq(3))) == "vector<3xi8>"
        array = default_manager.value_type(_strings("U", 3))
        assert str(array) == "memref<?xi8, strided<[12], offset: ?>>"


_I64 = types.int64[::1]
ENTRIES = [
    (K.compare, (_strings("U", 4), _strings("U", 7, 1, "A"), types.boolean[:, ::1], _I64)),
    (K.compare, (_strings("S", 3), _strings("S", 3), types.boolean[:, ::1], _I64)),
    (K.copy, (_strings("U", 5), _strings("U", 2))),
    (K.copy, (_strings("S", 2), _strings("S", 9, 1, "A"))),
    (K.copy_2d, (_strings("U", 3, 2, "A"), _strings("U", 3, 2))),
    (K.unicode_literals, (_strings("U", 4), types.boolean[::1], types.boolean[::1])),
    (K.bytes_literals, (_strings("S", 2), types.boolean[::1])),
    (K.characters, (_strings("U", 4), _strings("U", 1), _strings("U", 1), _strings("S", 3), types.uint32[::1])),
    (K.record_fields, (types.Array(from_dtype(np.dtype([("x", np.int32), ("y", "<U12")])), 1, "C"), _I64)),
    (K.bytes_record_fields, (types.Array(from_dtype(np.dtype([("x", np.float32), ("y", "S12")])), 1, "C"),)),
]


@pytest.mark.parametrize("kernel, argtypes", ENTRIES, ids=lambda e: getattr(e, "__name__", ""))
def test_kernels_assemble(kernel, argtypes, backend):
    support.checked_ptx(kernel, argtypes, backend, (9, 0))


def _refusal(body, argtypes, match):
    namespace = {"cuda": cuda}
    exec(f"def kernel(a, b):\n    {body}\n", namespace)
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(namespace["kernel"], argtypes, cc=(9, 0))
    assert 'File "<string>", line 2' in str(info.value)


U3, S3 = _strings("U", 3), _strings("S", 3)


@pytest.mark.parametrize(
    "body, argtypes, match",
    [
        (
            "if a[0] < b[0]: b[0] = b[0]",
            (U3, S3),
            r"cannot compare \[unichr x 3\] with \[char x 3\]: bytes compare with bytes",
        ),
        ("b[0] = a[0] < 3", (U3, types.boolean[:]), "cannot compare .* with Literal\\[int\\]\\(3\\)"),
        (
            "b[0] = len(str(a[0]))",
            (U3, types.int64[:]),
            "str\\(\\) of the fixed-width string .* would make a new string",
        ),
        ("b[0] = a[0][1:]", (U3, U3), "slicing the fixed-width string .* is not supported"),
        ("b[0] = a[0][1.0]", (U3, U3), "indexed by an integer, got float64"),
    ],
)
def test_refusals_name_the_problem(body, argtypes, match):
    _refusal(body, argtypes, match)


def _length_of_argument(s, out):
    out[0] = len(s)


def test_a_string_scalar_argument_is_refused():
    with pytest.raises(errors.UnsupportedError, match="kernel arguments of type \\[unichr x 3\\] are not supported"):
        cuda.compile_ptx(_length_of_argument, (types.UnicodeCharSeq(3), types.int64[::1]), cc=(9, 0))


def _str_with_bytes(a, b, out):
    out[0] = a[0] == b[0]
    out[1] = a[0] != b[0]
    out[2] = b[0] == a[0]


@pytest.mark.gpu
def test_a_str_never_equals_bytes_as_in_python():
    a, b = np.array(["abc"], "U3"), np.array([b"abc"], "S3")
    out = np.array([True, False, True])
    cuda.jit(_str_with_bytes)[1, 1](a, b, out)
    assert out.tolist() == [a[0] == b[0], a[0] != b[0], b[0] == a[0]] == [False, True, False]
