"""Arithmetic on CUDA vector types: every operator on vectors of every base type and lane
count, run (on the simulator in the CPU tier, on the GPU in the GPU tier) and compared with
the reference computed in Python's integers or NumPy's float64; the result types numba's
unification gives; the combinations refused, each naming its operands and line; and PTX of
every base type's kernel on both code generators."""

import numpy as np
import pytest
from numba.core import errors, types

from cumlir import cuda
from cumlir.types import BASE_TYPES, vector_types
from cumlir.typing.signatures import parse_signature

from ... import support
from ...cases import vector_arithmetic_kernels as K


def _scalars(base):
    return K.SCALARS if np.dtype(base).kind != "f" else ("random",)


def _run(kernel, base, a, b, k):
    out = support.poisoned(K.OUT_LANES, base)
    quot = support.poisoned(K.QUOT_LANES, K.quotient_dtype(base))
    kernel[1, 1](a, b, k, out, quot)
    return out, quot


@pytest.mark.parametrize("base", BASE_TYPES)
def test_every_operator_on_every_lane_count(base, simulator_or_gpu, rng):
    kernel = cuda.jit(K.arithmetic_kernel(base))
    for scalar in _scalars(base):
        a, b, k = K.draw_operands(base, rng, scalar)
        out, quot = _run(kernel, base, a, b, k)
        expected_out, expected_quot = K.arithmetic_reference(a, b, k)
        np.testing.assert_array_equal(out, expected_out, err_msg=f"{base}, s {scalar}: {K.RESULTS}")
        np.testing.assert_array_equal(quot, expected_quot, err_msg=f"{base}, s {scalar}: {K.QUOTIENTS}")


@pytest.mark.parametrize("base", BASE_TYPES)
def test_every_base_types_kernel_assembles(base, backend):
    ty = getattr(types, base)
    quotient = getattr(types, str(K.quotient_dtype(base)))
    support.checked_ptx(K.arithmetic_kernel(base), (ty[::1],) * 4 + (quotient[::1],), backend, (8, 0))


# ---- result types ---------------------------------------------------------------------------------


def _typed(fn, sig):
    from cumlir import compiler

    argtypes, _ = parse_signature(sig)
    return compiler.type_function(fn, argtypes).typemap


def _promotions(x16, i32, u64, i64):
    r1 = cuda.float32x4(1.0, 2.0, 3.0, 4.0) + 1.0
    r2 = cuda.int32x2(7, 8) // 2
    r3 = cuda.int8x3(1, 2, 3) + cuda.int16x3(4, 5, 6)
    r4 = cuda.uint8x2(1, 2) * 300
    r5 = cuda.float16x2(x16, x16) * x16
    r6 = cuda.int16x4(1, 2, 3, 4) / cuda.int16x1(2).x
    r7 = cuda.int64x2(i64, i64) / 3
    r8 = cuda.uint64x2(u64, u64) + i64
    r9 = cuda.float32x2(1.0, 2.0) - cuda.int32x2(i32, i32)
    r10 = i32 - cuda.uint32x3(1, 2, 3)
    r11 = cuda.float32x2(1.0, 2.0) * cuda.float32x1(3.0).x
    r12 = -cuda.uint16x3(1, 2, 3)
    r13 = abs(cuda.float16x4(x16, x16, x16, x16))
    return r1.x + r2.x + r3.x + r4.x + r5.x + r6.x + r7.x + r8.x + r9.x + r10.x + r11.x + r12.x + r13.x


# the lane types numba's unification gives (a float32 with a float64 is a float64, an integer
# literal an int64), and / of integer lanes floats of at least 32 bits
PROMOTIONS = {
    "r1": "float64x4",
    "r2": "int64x2",
    "r3": "int16x3",
    "r4": "int64x2",
    "r5": "float16x2",
    "r6": "float32x4",
    "r7": "float64x2",
    "r8": "float64x2",
    "r9": "float64x2",
    "r10": "int64x3",
    "r11": "float32x2",
    "r12": "uint16x3",
    "r13": "float16x4",
}


def test_result_types_are_numbas_unification_of_the_lanes():
    typemap = _typed(_promotions, "float64(float16, int32, uint64, int64)")
    assert {name: str(typemap[name]) for name in PROMOTIONS} == PROMOTIONS
    assert all(typemap[name] == vector_types[t] for name, t in PROMOTIONS.items())


def _mixed(a, k, out):
    v = cuda.float32x2(a[0], a[1])
    wide = v + k  # float64 lanes: each lane computed in float64
    narrow = cuda.int8x2(100, -100) + cuda.int16x2(100, -100)  # int16 lanes: no wrap at 8 bits
    grown = cuda.uint8x2(200, 3) * 300  # int64 lanes
    out[0], out[1] = wide.x, wide.y
    out[2], out[3] = narrow.x, narrow.y
    out[4], out[5] = grown.x, grown.y


def test_mixed_lane_types_compute_in_the_unified_type(simulator_or_gpu, rng):
    a = rng.standard_normal(2).astype(np.float32)
    k = rng.standard_normal()
    out = support.poisoned(6, np.float64)
    cuda.jit(_mixed)[1, 1](a, k, out)
    expected = [np.float64(a[0]) + k, np.float64(a[1]) + k, 200, -200, 60000, 900]
    np.testing.assert_array_equal(out, expected)


# ---- what is refused ------------------------------------------------------------------------------


def _typing_error(body, match):
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(body, "void(float32[::1])", cc=(9, 0))
    return str(info.value)


def test_vectors_of_different_lane_counts_are_refused():
    def kernel(out):
        v = cuda.float32x2(1.0, 2.0) + cuda.int32x3(1, 2, 3)
        out[0] = v.x

    message = _typing_error(kernel, r"float32x2 \+ int32x3: the vectors have 2 and 3 lanes")
    assert "test_vector_arithmetic.py" in message and "cuda.float32x2(1.0, 2.0) + cuda.int32x3(1, 2, 3)" in message


@pytest.mark.parametrize("symbol", ["*", "/", "//", "%"])
def test_only_sums_and_differences_take_two_vectors(symbol):
    source = f"b[0] = (cuda.float32x4(1.0, 2.0, 3.0, 4.0) {symbol} cuda.float32x4(a[0], a[1], a[2], a[3])).x"
    escaped = symbol.replace("*", r"\*").replace("/", r"\/")
    with pytest.raises(errors.TypingError, match=rf"float32x4 {escaped} float32x4: between two vectors only \+ and -"):
        support.compiling(source, "void(float32[::1], float32[::1])")()


def test_numbers_no_vector_holds_are_refused():
    def with_complex(out):
        v = cuda.float32x2(1.0, 2.0) * 1j
        out[0] = v.x

    def with_bool(out):
        v = True + cuda.int32x2(1, 2)
        out[0] = v.x

    def with_bfloat16(out):
        v = cuda.float32x2(1.0, 2.0) - cuda.bf16.bfloat16(1.0)
        out[0] = v.x

    takes = (
        r"a vector's arithmetic takes a number of a vector's lane types \(int8 ... uint64, float16, float32, float64\)"
    )
    _typing_error(with_complex, rf"float32x2 \* complex128: {takes} or a vector of 2 lanes, not a complex128")
    _typing_error(with_bool, rf"bool \+ int32x2: {takes}")
    _typing_error(with_bfloat16, rf"float32x2 - bfloat16: {takes}")


def test_comparisons_are_refused_naming_the_lanes_to_compare():
    def kernel(out):
        v = cuda.float32x2(1.0, 2.0)
        out[0] = v <= v

    message = _typing_error(kernel, r"float32x2 <= float32x2: vectors have no comparisons; compare their lanes")
    assert "out[0] = v <= v" in message


def _widened_in_place(a, out):
    v = cuda.float32x2(a[0], a[1])
    v += a[2]  # a float64 added: v becomes a float64x2, as a float32 would become a float64
    out[0], out[1] = v.x, v.y


def test_an_in_place_operation_may_widen_the_variable(simulator_or_gpu, rng):
    assert str(_typed(_widened_in_place, "void(float64[::1], float64[::1])")["v.1"]) == "float64x2"
    a = rng.standard_normal(3)
    out = support.poisoned(2, np.float64)
    cuda.jit(_widened_in_place)[1, 1](a, out)
    np.testing.assert_array_equal(out, np.float64(np.float32(a[:2])) + a[2])
