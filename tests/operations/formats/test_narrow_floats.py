"""The narrow floats (types.f8E4M3FN ... f4E2M1FN, cuda.float8_e4m3fn ...): every conversion
checked bit for bit against ml_dtypes on the host (the kernels' LLVM IR JIT-compiled for the
CPU by tests/nrt_harness.py: the software conversions), PTX on both code generators (the
sm_90 cvt instructions where they are used), typing, kernel arguments, and (marked gpu) the
same checks on the device."""

import math
import re
import warnings

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda, types
from cumlir.runtime import arguments

from ... import support

ml_dtypes = pytest.importorskip("ml_dtypes")

NARROW = types.narrow_floats  # ml_dtypes name -> numba type
NAMES = list(NARROW)
HARDWARE = ("float8_e4m3fn", "float8_e5m2")


def _dtype(name):
    return np.dtype(getattr(ml_dtypes, name))


def _exec(source, **names):
    """Kernels made per narrow type: the type is a global of the kernel's source."""
    scope = {}
    exec(source, {"np": np, "cuda": cuda, **names}, scope)
    return scope


def float32_sweep():
    """Every float32 sign and exponent with 4096 leading mantissas, each with its last
    11 bits 0, 1, 0x3FF, 0x400 and 0x7FF (just below, at and above each rounding point of
    every narrow format), all float32 whose top 16 bits are zero (subnormals) and every
    float16 value; ±0, ±inf and NaNs are among them."""
    exponents = np.arange(512, dtype=np.int64) << 23
    leading = np.arange(4096, dtype=np.int64) << 11
    mantissas = np.concatenate([leading | low for low in (0, 1, 0x3FF, 0x400, 0x7FF)])
    bits = (exponents[:, None] | mantissas[None, :]).ravel()
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    return np.concatenate([bits, np.arange(1 << 16), halves]).astype(np.uint32).view(np.float32)


def float64_sweep(name):
    """float64 values float32 cannot hold beside each rounding point of the format: each
    midpoint between neighbours and the largest value, nudged by 2**-40 relative."""
    values = np.arange(256, dtype=np.uint8).view(_dtype(name)).astype(np.float64)
    values = np.unique(values[np.isfinite(values)])
    mids = np.concatenate([(values[1:] + values[:-1]) / 2, values])
    nudged = np.concatenate([mids * (1 + 2.0**-40), mids * (1 - 2.0**-40), mids])
    return np.concatenate([nudged, -nudged, [np.inf, -np.inf, np.nan, 1e300, -1e300]])


def codes(name):
    return np.arange(1 << NARROW[name].bitwidth, dtype=np.uint8).view(_dtype(name))


def _same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    bad = np.nonzero(got.view(unsigned) != expected.view(unsigned))[0]
    assert not len(bad), [(i, got[i], expected[i]) for i in bad[:5]]


def float32_to_odd(values):
    """float64 *values* as the float32 nearest toward zero with its last bit set where
    inexact: rounding that to a narrow format rounds the float64 once. (ml_dtypes' own
    float64 ``astype`` rounds to float32 to nearest first, so it rounds twice.)"""
    values = np.asarray(values, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        nearest = values.astype(np.float32)
        inexact = nearest.astype(np.float64) != values
        outward = np.abs(nearest.astype(np.float64)) > np.abs(values)
    bits = nearest.view(np.uint32).copy()
    bits[inexact & outward] -= 1
    bits[inexact] |= 1
    return np.where(np.isnan(values), nearest, bits.view(np.float32))


def _reference(values, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return values.astype(_dtype(name))


CONVERT = """
def convert(a, out):
    for i in range(a.size):
        out[i] = to(a[i])
"""


def _numba(dtype):
    return arguments.argument_type(np.zeros(1, dtype), 0).dtype


def _directed(mode):
    """An integer to float32 rounded toward zero, down or up: libdevice's
    ``__nv_int2float_rz`` and its kin, for the host."""

    def convert(value):
        nearest = np.float32(value)
        exact = int(nearest) if np.isfinite(nearest) else None
        if exact is None or exact == value:
            return float(nearest)
        up = {"ru": True, "rd": False, "rz": value < 0}[mode]
        if (exact < value) == up:
            return float(nearest)
        return float(np.nextafter(nearest, np.float32(np.inf if up else -np.inf)))

    return convert


def _integer_routines():
    import ctypes

    routines = []
    for family, c_type in (
        ("int", ctypes.c_int32),
        ("uint", ctypes.c_uint32),
        ("ll", ctypes.c_int64),
        ("ull", ctypes.c_uint64),
    ):
        for mode in ("rz", "rd", "ru"):
            callback = ctypes.CFUNCTYPE(ctypes.c_float, c_type)(_directed(mode))
            routines.append((f"__nv_{family}2float_{mode}", callback))
    return routines


_INTEGER_ROUTINES = []


def run_host(values, to, out_dtype):
    """``out[i] = to(a[i])`` run on the host (software paths: sm_80). float16 stays out: the
    host's LLVM converts it by library calls the harness does not bind (float16 values are
    among the float32 sweep's, and the GPU tests convert them)."""
    from ...nrt_harness import Kernel

    argtypes = (types.Array(_numba(values.dtype), 1, "C"), types.Array(_numba(out_dtype), 1, "C"))
    if not _INTEGER_ROUTINES:
        _INTEGER_ROUTINES.extend(_integer_routines())  # kept alive: the JIT code calls them
    kernel = Kernel(_exec(CONVERT, to=to)["convert"], argtypes, tuple(_INTEGER_ROUTINES), cc=(8, 0))
    out = np.zeros(values.size, out_dtype)
    kernel(np.ascontiguousarray(values), out)
    return out


# ---- exhaustive host checks of the software conversions ---------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_code_converts_up_exactly(name):
    values = codes(name)
    _same_bits(run_host(values, np.float32, np.dtype(np.float32)), values.astype(np.float32))
    _same_bits(run_host(values, np.float64, np.dtype(np.float64)), values.astype(np.float64))


@pytest.mark.parametrize("name", NAMES)
def test_float32_rounds_as_ml_dtypes(name):
    values = float32_sweep()
    _same_bits(run_host(values, NARROW[name], _dtype(name)), _reference(values, name))


@pytest.mark.parametrize("name", NAMES)
def test_bfloat16_rounds_once_and_float64_as_ml_dtypes(name):
    brains = np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16)
    _same_bits(run_host(brains, NARROW[name], _dtype(name)), _reference(brains.astype(np.float32), name))
    doubles = float64_sweep(name)
    _same_bits(run_host(doubles, NARROW[name], _dtype(name)), _reference(doubles, name))
    if name == "float8_e4m3fn":  # where rounding once would differ from ml_dtypes' float64 astype
        tie_and_more = np.array([-400 * (1 + 2.0**-40)])
        assert run_host(tie_and_more, NARROW[name], _dtype(name))[0] == _reference(tie_and_more, name)[0] == -384


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"])
def test_integers_round_once(name):
    ints = np.concatenate([np.arange(-70000, 70000, 7), [2**31 - 1, -(2**31), 2**24 + 1, 123456789]]).astype(np.int32)
    _same_bits(run_host(ints, NARROW[name], _dtype(name)), _reference(float32_to_odd(ints), name))
    wide = np.array([2**63 - 1, -(2**63), 2**40 + 3, 3 * 2**60 + 1, 2**41 + 2**37 + 1], dtype=np.int64)
    _same_bits(run_host(wide, NARROW[name], _dtype(name)), _reference(float32_to_odd(wide), name))
    values = codes(name)
    expected = np.nan_to_num(values.astype(np.float32), nan=0, posinf=0, neginf=0).astype(np.int32)
    finite = np.isfinite(values.astype(np.float32))
    got = run_host(values, np.int32, np.dtype(np.int32))
    assert (got[finite] == expected[finite]).all()


def test_narrow_to_narrow_rounds_once():
    values = codes("float8_e5m2")
    expected = _reference(values.astype(np.float32), "float8_e4m3fn")
    _same_bits(run_host(values, NARROW["float8_e4m3fn"], _dtype("float8_e4m3fn")), expected)


SATURATE = """
def saturate(a, out):
    for i in range(a.size):
        out[i] = cuda.to_narrow_satfinite(a[i], ty)
"""


def _clamped(values, name):
    top = float(ml_dtypes.finfo(_dtype(name)).max)
    return np.where(np.isnan(values), values, np.clip(values, -top, top))


@pytest.mark.parametrize("name", NAMES)
def test_satfinite_clamps_what_ml_dtypes_leaves_out_of_range(name):
    from ...nrt_harness import Kernel

    ty = NARROW[name]
    values = float32_sweep()
    clamped = _clamped(values, name)
    kernel = Kernel(_exec(SATURATE, ty=ty)["saturate"], (types.float32[::1], types.Array(ty, 1, "C")), cc=(8, 0))
    out = np.zeros(values.size, _dtype(name))
    kernel(values, out)
    _same_bits(out, _reference(clamped, name))


BINARY = """
def binary(a, b, out, less, equal):
    for i in range(a.size):
        out[i] = a[i] OP b[i]
        less[i] = a[i] < b[i]
        equal[i] = a[i] != b[i]
"""


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn"])
@pytest.mark.parametrize("op", ["+", "*", "/"])
def test_operators_compute_in_float32_and_round_back(name, op):
    from ...nrt_harness import Kernel

    ty = NARROW[name]
    every = codes(name)
    a, b = (np.ascontiguousarray(v.ravel()) for v in np.meshgrid(every, every))
    array = types.Array(ty, 1, "C")
    kernel = Kernel(
        _exec(BINARY.replace("OP", op))["binary"],
        (array, array, array, types.boolean[::1], types.boolean[::1]),
        cc=(8, 0),
    )
    out, less, equal = np.zeros(a.size, a.dtype), np.zeros(a.size, bool), np.zeros(a.size, bool)
    kernel(a, b, out, less, equal)
    x, y = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        exact = {"+": x + y, "*": x * y, "/": x / y}[op]
    # the sign of a NaN made of two NaNs is the hardware's choice (IEEE 754 leaves it open)
    expected = _reference(exact, name)
    nan = np.isnan(expected.astype(np.float32))
    assert np.isnan(out[nan].astype(np.float32)).all()
    _same_bits(out[~nan], expected[~nan])
    assert (less == (x < y)).all() and (equal == (x != y)).all()


def test_operator_result_types_follow_numba_cuda_mlir():
    from cumlir.compiler import type_function

    def f(a, b, c):
        return a + b, a < b, -a, a * c

    typed = type_function(f, (types.f8E4M3FN, types.f8E4M3FN, types.float32))
    assert str(typed.return_type) == "Tuple(f8E4M3FN, bool, f8E4M3FN, float32)"


# ---- PTX, both code generators ------------------------------------------------------------------

KERNEL = """
def kernel(a, b, out, flags, s):
    loc = cuda.local.array(8, ty)
    sh = cuda.shared.array(32, cuda.float8_e5m2)
    i = cuda.grid(1)
    loc[i % 8] = ty(a[i])
    sh[i % 32] = cuda.float8_e5m2(a[i] * 2.0)
    cuda.syncthreads()
    x = loc[i % 8] + ty(b[i])
    out[i] = -x * s
    flags[i] = x < s
    print(x, sh[i % 32])
    out[i] = cuda.to_narrow_satfinite(a[i], ty)
"""


@pytest.mark.parametrize("cc", [(8, 0), (8, 9), (9, 0), (10, 0)])
@pytest.mark.parametrize("name", NAMES)
def test_ptx_assembles_and_uses_cvt_from_sm_89(backend, cc, name):
    sig = f"void(float32[::1], {name}[::1], {NARROW[name].name}[::1], boolean[::1], {name})"
    ptx, _ = cuda.compile_ptx(_exec(KERNEL, ty=NARROW[name])["kernel"], sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    hardware = re.findall(r"cvt\.rn(?:\.satfinite)?\.(?:e4m3x2\.f32|e5m2x2\.f32|f16x2\.e4m3x2|f16x2\.e5m2x2)", ptx)
    if cc < (8, 9):
        assert not hardware
    else:
        # the shared array's float8_e5m2 is always converted by the hardware from sm_89
        # (on sm_89 in PTX ISA 8.1 at least, which the nvptx code generator raises itself)
        if backend == "nvptx" and cc == (8, 9):
            assert re.search(r"^\.version (8\.[1-9]|9\.)", ptx, re.M), ptx[:200]
        assert "cvt.rn.satfinite.e5m2x2.f32" in ptx
        assert ("cvt.rn.f16x2.e4m3x2" in ptx) == (name == "float8_e4m3fn")


def test_the_chip_condition_leaves_one_path():
    def kernel(a, out):
        out[0] = cuda.float8_e4m3fn(a[0])

    sig = "void(float32[::1], float8_e4m3fn[::1])"
    software, _ = cuda.compile_ptx(kernel, sig, cc=(8, 0))
    hardware, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0))
    assert "cvt.rn.satfinite.e4m3x2.f32" in hardware and "cvt.rn.satfinite" not in software
    assert "max.u32" in software and "max.u32" not in hardware  # the software path is gone


# ---- names, typing, arguments ---------------------------------------------------------------------


def test_names_as_numba_cuda_mlir_and_ml_dtypes_spell_them():
    assert [t.name for t in NARROW.values()] == [
        "f8E4M3FN",
        "f8E5M2",
        "f8E4M3FNUZ",
        "f8E5M2FNUZ",
        "f8E4M3",
        "f8E3M4",
        "f8E4M3B11FNUZ",
        "f8E8M0FNU",
        "f6E2M3FN",
        "f6E3M2FN",
        "f4E2M1FN",
    ]
    for name, ty in NARROW.items():
        assert getattr(cuda, name) is ty and getattr(types, ty.name) is ty
        assert ty.bitwidth == ml_dtypes.finfo(_dtype(name)).bits


def test_satfinite_needs_a_narrow_type_and_a_number():
    def to_float32(a, out):
        out[0] = cuda.to_narrow_satfinite(a[0], cuda.float32)

    with pytest.raises(TypingError, match="ty must be a narrow float type, got class\\(float32\\)"):
        cuda.compile_ptx(to_float32, "void(float32[::1], float32[::1])", cc=(9, 0))

    def of_a_tuple(a, out):
        out[0] = cuda.to_narrow_satfinite((a[0], a[1]), cuda.float8_e4m3fn)

    with pytest.raises(TypingError, match="converts a number"):
        cuda.compile_ptx(of_a_tuple, "void(float32[::1], float8_e4m3fn[::1])", cc=(9, 0))


def test_what_narrow_floats_do_not_do_is_a_typing_error():
    def atomic(a):
        cuda.atomic.add(a, 0, a[1])

    with pytest.raises(TypingError, match=r"atomic.add"):
        cuda.compile_ptx(atomic, "void(float8_e4m3fn[::1])", cc=(9, 0))


def test_math_takes_a_narrow_float_as_a_float32():
    from cumlir.compiler import type_function

    def f(x):
        return math.sin(x)

    assert type_function(f, (types.f8E5M2,)).return_type == types.float32


def test_arrays_and_scalars_of_ml_dtypes_are_kernel_arguments():
    for name, ty in NARROW.items():
        array = np.zeros((2, 3), _dtype(name))
        assert arguments.argument_type(array, 0) == types.Array(ty, 2, "C")
        assert arguments.argument_type(array[:, ::2], 0) == types.Array(ty, 2, "A")
        assert arguments.argument_type(_dtype(name).type(1.0), 0) == ty
    assert arguments.argument_type(np.zeros(3, ml_dtypes.bfloat16), 0) == types.Array(types.bfloat16, 1, "C")
    parameter = arguments._parameter(types.f8E4M3FN, 3)
    buffer = bytearray(8)
    parameter.pack(ml_dtypes.float8_e4m3fn(-1.5), buffer, 0, None)
    assert buffer[0] == np.array(-1.5, ml_dtypes.float8_e4m3fn).view(np.uint8)
    parameter.pack(1000.0, buffer, 0, None)  # rounded by ml_dtypes: NaN
    assert buffer[0] == 0x7F
    with pytest.raises(TypeError, match="argument 3: expected a number for f8E4M3FN"):
        parameter.pack("1.0", buffer, 0, None)


# ---- on the device ------------------------------------------------------------------------------

DEVICE_UP = """
def up(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = np.float32(a[i])
"""

DEVICE_SATURATE = """
def saturate(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.to_narrow_satfinite(a[i], ty)
"""

DEVICE_DOWN = """
def down(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = ty(a[i])
"""


def _nan_aware(got, expected, nan_signs=True):
    """Bit for bit, but any NaN for a NaN of the same sign (the hardware's payload differs);
    without *nan_signs*, any NaN for a NaN (the sign of a NaN that arithmetic makes is the
    machine's: positive on the GPU, negative on x86)."""
    nan = np.isnan(expected)
    assert (np.isnan(got) == nan).all()
    if nan_signs:
        assert (np.signbit(got[nan]) == np.signbit(expected[nan])).all()
    _same_bits(got[~nan], expected[~nan])


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_gpu_conversions_match_ml_dtypes(backend, name):
    ty = NARROW[name]
    every = codes(name)
    up = cuda.jit(backend=backend)(_exec(DEVICE_UP)["up"])
    out = np.zeros(every.size, np.float32)
    up[1, 256](every, out)
    _nan_aware(out, every.astype(np.float32))
    values = float32_sweep()
    down = cuda.jit(backend=backend)(_exec(DEVICE_DOWN, ty=ty)["down"])
    got = np.zeros(values.size, _dtype(name))
    down[(values.size + 255) // 256, 256](values, got)
    _same_bits(got, _reference(values, name))
    saturate = cuda.jit(backend=backend)(_exec(DEVICE_SATURATE, ty=ty)["saturate"])
    saturate[(values.size + 255) // 256, 256](values, got)
    _same_bits(got, _reference(_clamped(values, name), name))


MEMORY = """
def memory(a, s, out):
    local = cuda.local.array(4, ty)
    shared = cuda.shared.array(64, ty)
    i = cuda.threadIdx.x
    shared[i] = a[i]
    local[i % 4] = a[63 - i]
    cuda.syncthreads()
    out[i] = shared[63 - i] * s + local[i % 4]
"""


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn"])
def test_gpu_arrays_in_shared_and_local_memory_and_scalar_arguments(backend, name):
    ty = NARROW[name]
    rng = np.random.default_rng(7)
    a = rng.choice(codes(name)[np.isfinite(codes(name).astype(np.float32))], 64)
    s = _dtype(name).type(1.5)
    kernel = cuda.jit(backend=backend)(_exec(MEMORY, ty=ty)["memory"])
    out = cuda.to_device(np.zeros(64, _dtype(name)))  # a device array of the ml_dtypes dtype
    kernel[1, 64](a, s, out)
    out = out.copy_to_host()
    x = a.astype(np.float32)
    product = _reference(x[::-1] * np.float32(s), name).astype(np.float32)
    _nan_aware(out.astype(np.float32), _reference(product + x[::-1], name).astype(np.float32), nan_signs=False)


def _float_and_int(a, f, n):
    i = cuda.grid(1)
    if i < a.size:
        f[i] = float(a[i])
        n[i] = int(a[i]) if abs(float(a[i])) < 1e18 else 0


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float4_e2m1fn", "bfloat16"])
def test_float_and_int_of_cumlir_floats_compile(backend, name):
    ty = NARROW.get(name, types.bfloat16)
    # sm_100: the nvvm code generator has bfloat16 from there (LLVM 7 IR has no bfloat type)
    signature = (ty[::1], types.float64[::1], types.int64[::1])
    ptx, _ = cuda.compile_ptx(_float_and_int, signature, cc=(10, 0), backend=backend)
    support.ptxas(ptx, "sm_100")


@pytest.mark.gpu
@pytest.mark.parametrize("name", [*NAMES, "bfloat16"])
def test_gpu_float_and_int_of_every_code(backend, name):
    if name == "bfloat16" and backend == "nvvm" and cuda.get_current_device().compute_capability < (10, 0):
        pytest.skip("the nvvm code generator has bfloat16 from sm_100")
    # every code of the format (float6 and float4 use the low bits of their byte)
    a = codes(name) if name in NARROW else np.arange(1 << 16, dtype=np.uint16).view(_dtype(name))
    a = a[np.isfinite(a.astype(np.float64))]
    f, n = np.full(a.size, np.nan), np.full(a.size, -7, np.int64)
    cuda.jit(backend=backend)(_float_and_int)[(a.size + 255) // 256, 256](a, f, n)
    x = a.astype(np.float64)
    np.testing.assert_array_equal(f, x)
    np.testing.assert_array_equal(n, np.where(np.abs(x) < 1e18, np.trunc(x), 0).astype(np.int64))
