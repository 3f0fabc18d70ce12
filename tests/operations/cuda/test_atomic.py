"""cuda.atomic on the CPU: every operation on every dtype Numba-CUDA accepts, on global and
shared arrays, indexed by an integer and by a tuple, compiled by both code generators for
sm_80 and sm_90 and assembled by ptxas; the instruction each must become; typing errors."""

import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ...support import ptxas

SIGNED, UNSIGNED, FLOATS = ("int32", "int64"), ("uint32", "uint64"), ("float32", "float64")
INTS = SIGNED + UNSIGNED
ALL = INTS + FLOATS

CAS = r"cas\.b{w}"


def _rmw(name, kinds="[usb]"):
    return rf"{name}\.{kinds}{{w}}"


# op -> (the dtypes Numba-CUDA accepts, {kind of dtype: the PTX instruction's operation})
OPS = {
    "add": (ALL, {"int": _rmw("add", "[us]"), "float": r"add\.f{w}"}),
    "sub": (ALL, {"int": r"(add|sub)\.[us]{w}", "float": r"add\.f{w}"}),  # sub is add of the negated value
    "and_": (INTS, {"int": _rmw("and", "b")}),
    "or_": (INTS, {"int": _rmw("or", "b")}),
    "xor": (INTS, {"int": _rmw("xor", "b")}),
    "exch": (INTS, {"int": _rmw("exch", "b")}),
    "max": (ALL, {"int": r"max\.[su]{w}", "float": CAS}),
    "min": (ALL, {"int": r"min\.[su]{w}", "float": CAS}),
    "nanmax": (ALL, {"int": r"max\.[su]{w}", "float": CAS}),
    "nanmin": (ALL, {"int": r"min\.[su]{w}", "float": CAS}),
    "inc": (UNSIGNED, {"int32": r"inc\.u32", "int64": CAS}),
    "dec": (UNSIGNED, {"int32": r"dec\.u32", "int64": CAS}),
    "cas": (INTS, {"int": CAS}),
    "compare_and_swap": (INTS, {"int": CAS}),
}
VARIANTS = {"compare_and_swap": 2}  # the arrays each kernel below applies the op to (else 4)
CCS = [(8, 0), (9, 0)]


def _expected(op, dtype):
    kind = "float" if dtype.startswith("float") else "int"
    width = np.dtype(dtype).itemsize * 8
    patterns = OPS[op][1]
    pattern = patterns.get(f"{kind}{width}", patterns.get(kind))
    return pattern.format(w=width)


def _kernel(op, dtype):
    """A kernel applying *op* to a 1-D and a 2-D global array and to a 1-D and a 2-D shared
    array, storing each old value."""
    fn = getattr(cuda.atomic, op)
    nb = getattr(types, dtype)
    if op == "compare_and_swap":  # 1-D only: the first element

        def kernel(a1, a2, out, v, i, j):
            s1 = cuda.shared.array(8, nb)
            out[0] = fn(a1, v, v)
            out[1] = fn(s1, v, v)

    elif op == "cas":

        def kernel(a1, a2, out, v, i, j):
            s1 = cuda.shared.array(8, nb)
            s2 = cuda.shared.array((4, 4), nb)
            out[0] = fn(a1, i, v, v)
            out[1] = fn(a2, (i, j), v, v)
            out[2] = fn(s1, i, v, v)
            out[3] = fn(s2, (i, j), v, v)

    else:

        def kernel(a1, a2, out, v, i, j):
            s1 = cuda.shared.array(8, nb)
            s2 = cuda.shared.array((4, 4), nb)
            out[0] = fn(a1, i, v)
            out[1] = fn(a2, (i, j), v)
            out[2] = fn(s1, i, v)
            out[3] = fn(s2, (i, j), v)

    return kernel, (nb[:], nb[:, :], nb[:], nb, types.int64, types.int64)


CASES = [(op, dtype) for op, (dtypes, _) in OPS.items() for dtype in dtypes]


@pytest.mark.parametrize("op,dtype", CASES)
def test_every_op_and_dtype(op, dtype, backend):
    kernel, sig = _kernel(op, dtype)
    instruction = re.compile(r"^\s*atom\.([\w.]*\.)?" + _expected(op, dtype) + r"\s", re.M)
    shared = re.compile(r"^\s*atom\.([\w.]*\.)?shared\.", re.M)
    for cc in CCS:
        ptx, restype = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
        ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
        # one per array (a compare-and-swap loop has one compare-and-swap)
        found = len(instruction.findall(ptx))
        where = f"cuda.atomic.{op} on {dtype} ({backend}, sm_{cc[0]}{cc[1]})"
        assert found >= VARIANTS.get(op, 4), f"{where}: {found} of {instruction.pattern} in\n{ptx}"
        # both back ends infer the shared address space from the shared arrays
        assert shared.search(ptx), f"{where}: no atomic on shared memory"


def test_literal_values_negative_indices_and_debug(backend):
    # a literal int converts to the array's dtype; indices of every integer type, negative ones wrap
    def kernel(a, b, out):
        out[0] = cuda.atomic.add(a, -1, 1)
        out[1] = cuda.atomic.max(a, np.uint8(0), 2.5)
        out[2] = cuda.atomic.add(b, (np.int32(-1), np.uint32(0)), 3)

    sig = (types.float32[:], types.float32[:, ::1], types.float32[:])
    for debug in (False, True):
        ptx, _ = cuda.compile_ptx(kernel, sig, cc=(8, 0), backend=backend, debug=debug, opt=not debug)
        ptxas(ptx, "sm_80")
        assert len(re.findall(r"atom\.[\w.]*add\.f32", ptx)) == 2


def test_non_contiguous_and_3d_arrays(backend):
    def kernel(a, b, out):
        out[0] = cuda.atomic.xor(a, 3, 1)
        out[1] = cuda.atomic.exch(b, (1, 2, 3), 7)

    sig = (types.Array(types.int64, 1, "A"), types.Array(types.uint32, 3, "F"), types.int64[:])
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend=backend)
    ptxas(ptx, "sm_90")
    assert re.search(r"atom\.[\w.]*xor\.b64", ptx) and re.search(r"atom\.[\w.]*exch\.b32", ptx)


def test_old_value_is_the_result_type():
    def kernel(a, out):
        out[0] = cuda.atomic.inc(a, 0, 10)

    _, restype = cuda.compile_ptx(kernel, (types.uint64[:], types.float64[:]), cc=(8, 0))
    assert restype == types.none


# ---- typing errors: each names the operation ----------------------------------------------

REJECTED = [
    (op, dtype)
    for op, (dtypes, _) in OPS.items()
    for dtype in ("int8", "uint16", "float16", "bool", "complex64") + ALL
    if dtype not in dtypes
]


def _compile(kernel, sig):
    return cuda.compile_ptx(kernel, sig, cc=(8, 0))


@pytest.mark.parametrize("op,dtype", REJECTED)
def test_unsupported_dtype(op, dtype):
    fn = getattr(cuda.atomic, op)
    nb = getattr(types, "boolean" if dtype == "bool" else dtype)
    if op == "compare_and_swap":

        def kernel(a, v):
            fn(a, v, v)

    elif op == "cas":

        def kernel(a, v):
            fn(a, 0, v, v)

    else:

        def kernel(a, v):
            fn(a, 0, v)

    with pytest.raises(TypingError, match=rf"cuda\.atomic\.{op} does not support arrays of {nb}"):
        _compile(kernel, (nb[:], nb))


def _kernel_2d_int_index(a):
    cuda.atomic.add(a, 0, 1)


def _kernel_1d_pair_index(a):
    cuda.atomic.max(a, (0, 1), 1)


def _kernel_float_index(a):
    cuda.atomic.sub(a, 1.5, 1)


def _kernel_complex_index(a):
    cuda.atomic.sub(a, 1j, 1)


def _kernel_array_value(a):
    cuda.atomic.exch(a, 0, a)


def _kernel_cas_2d(a):
    cuda.atomic.compare_and_swap(a, 0, 1)


def _kernel_not_an_array(x):
    cuda.atomic.and_(x, 0, 1)


CONSTANT = np.arange(4, dtype=np.int32)


def _kernel_read_only():
    cuda.atomic.add(cuda.const.array_like(CONSTANT), 0, 1)


@pytest.mark.parametrize(
    "kernel,sig,message",
    [
        (
            _kernel_2d_int_index,
            (types.int32[:, :],),
            r"cuda\.atomic\.add on the 2-D array .* needs a tuple of 2 integers",
        ),
        (_kernel_1d_pair_index, (types.int32[:],), r"cuda\.atomic\.max on the 1-D array .* needs an integer"),
        (_kernel_complex_index, (types.float32[:],), r"cuda\.atomic\.sub .* as its index, got complex128"),
        (_kernel_array_value, (types.int32[:],), r"cuda\.atomic\.exch: val must be a number"),
        (_kernel_cas_2d, (types.int32[:, :],), r"cuda\.atomic\.compare_and_swap needs a 1-D array"),
        (_kernel_not_an_array, (types.int32,), r"cuda\.atomic\.and_ needs an array"),
        (_kernel_read_only, (), r"cuda\.atomic\.add cannot write to the read-only array"),
    ],
)
def test_bad_arguments(kernel, sig, message):
    with pytest.raises(TypingError, match=message) as info:
        _compile(kernel, sig)
    assert "test_atomic.py" in str(info.value)  # reported at the kernel's source line


def test_host_call_and_namespace():
    names = {"add", "sub", "and_", "or_", "xor", "max", "min", "nanmax", "nanmin", "exch", "inc", "dec", "cas"}
    assert all(callable(getattr(cuda.atomic, n)) for n in names | {"compare_and_swap"})
    with pytest.raises(RuntimeError, match="cuda.atomic.add"):
        cuda.atomic.add(np.zeros(1), 0, 1)


def test_a_float_index_is_converted_to_an_integer_as_numba_cuda_does():
    ptx, _ = cuda.compile_ptx(_kernel_float_index, (types.float32[:],), cc=(9, 0))
    ptxas(ptx)


@pytest.mark.gpu
def test_a_float_index_truncates():
    a = np.zeros(3, np.float32)
    cuda.jit(_kernel_float_index)[1, 4](a)
    np.testing.assert_array_equal(a, [0, -4, 0])  # a[int(1.5)] -= 1, by each of 4 threads
