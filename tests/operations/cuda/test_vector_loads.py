"""``cuda.vector.load``/``store`` on the CPU: an aligned access is one vector instruction
(``ld.global.v4.f32`` for four float32s at ``alignment=16``), an unaligned one a load per
lane, on both code generators, assembled by ptxas; what typing refuses, naming the call."""

import re

import pytest
from numba.core import errors, types

from cumlir import cuda

from ... import support


def _copy4(a, b):
    i = cuda.grid(1)
    v = cuda.vector.load(a, 4 * i, 4, alignment=16)
    cuda.vector.store(b, 4 * i, v, alignment=16)


def _copy4_lane_by_lane(a, b):
    i = cuda.grid(1)
    cuda.vector.store(b, 4 * i, cuda.vector.load(a, 4 * i, 4))


def _accesses(ptx):
    return re.findall(r"\b(?:ld|st)\.global(?:\.nc)?\.[\w.]+", ptx)


@pytest.mark.parametrize("dtype, pattern", [(types.float32, r"v4\.(f32|b32)"), (types.float64, r"v2\.(f64|b64)")])
def test_aligned_accesses_are_vector_instructions(dtype, pattern, backend):
    ptx = support.checked_ptx(_copy4, (dtype[::1], dtype[::1]), backend, (9, 0))
    accesses = _accesses(ptx)
    width = 4 if dtype == types.float32 else 2  # float64: two 16-byte halves
    assert len(accesses) == 2 * (4 // width) and all(re.search(pattern, a) for a in accesses), accesses


def test_unaligned_accesses_are_one_per_lane(backend):
    ptx = support.checked_ptx(_copy4_lane_by_lane, (types.float32[::1], types.float32[::1]), backend, (9, 0))
    accesses = _accesses(ptx)
    assert len(accesses) == 8 and not any(".v" in a for a in accesses), accesses


def test_2d_and_pointer_forms_assemble(backend):
    def kernel(m, p, out):
        v = cuda.vector.load(m, (1, 2), 2)
        w = cuda.vector.load(p, 6, 2, alignment=8)
        cuda.vector.store(out, (0, 0), cuda.int32x2(v.x + w.x, v.y + w.y), 8)

    argtypes = (types.int32[:, :], types.CPointer(types.int32), types.int32[:, ::1])
    support.checked_ptx(kernel, argtypes, backend, (9, 0))


def _refused(body, argtypes, match):
    namespace = {"cuda": cuda}
    exec(f"def kernel(a, b):\n    {body}\n", namespace)
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(namespace["kernel"], argtypes, cc=(9, 0))
    return str(info.value)


F1 = (types.float32[::1], types.float32[::1])


@pytest.mark.parametrize(
    "body, argtypes, match",
    [
        ("b[0] = cuda.vector.load(a, 0, 8).x", F1, r"CUDA's vector types, 1 to 4 lanes .* \(8,\) elements of float32"),
        ("b[0] = cuda.vector.load(a, 0, (2, 2)).x", F1, r"\(2, 2\) elements of float32 is not one"),
        ("b[0] = cuda.vector.load(a, 0, 4, alignment=6).x", F1, "alignment must be a power of 2 of at least 4 bytes"),
        ("b[0] = cuda.vector.load(a, 0, 4, alignment=2).x", F1, "alignment must be a power of 2 of at least 4 bytes"),
        ("b[0] = cuda.vector.load(a, 0, 4).x", (types.float32[:, :], F1[1]), "a 2-d array takes 2 integer indices"),
        ("b[0] = cuda.vector.load(a, 0, 4).x", (types.CPointer(types.float32), F1[1]), "needs alignment=N"),
        ("cuda.vector.store(b, 0, a[0])", F1, "stores a vector"),
        ("b[0] = cuda.vector.load(a, 0, 2).x", (types.complex64[::1], F1[1]), "elements of complex64 is not one"),
    ],
)
def test_refused_calls_say_why(body, argtypes, match):
    text = _refused(body, argtypes, match)
    assert re.search(match, text.splitlines()[0])  # the reason first
    assert 'File "<string>", line 2' in text  # the call's line


def test_a_read_only_array_is_not_stored_into():
    readonly = types.Array(types.float32, 1, "C", readonly=True)

    def kernel(a, b):
        cuda.vector.store(a, 0, cuda.vector.load(b, 0, 2))

    with pytest.raises(errors.TypingError, match="cuda.vector.store into a read-only array"):
        cuda.compile_ptx(kernel, (readonly, types.float32[::1]), cc=(9, 0))
