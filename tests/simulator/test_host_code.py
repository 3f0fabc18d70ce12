"""What the CPU code generator and the simulator's runtime make of kernels, checked against
NumPy without a GPU: warps released by the runtime and by the host's scheduler agree,
float16 and bfloat16 conversions round as IEEE 754 says (to nearest and directed), print
comes out in the order of the threads, and memory the simulator did not make is refused."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime.simulator.errors import SimulatorError

pytestmark = pytest.mark.usefixtures("simulated")


def warp_sums(x, out, mask):
    i = cuda.grid(1)
    v = x[i]
    if (mask >> cuda.laneid) & 1:
        for delta in (16, 8, 4, 2, 1):
            v += cuda.shfl_xor_sync(mask, v, delta)
        out[i] = v


@pytest.mark.parametrize("mask", [0xFFFFFFFF, 0x7FFFFFFF])
def test_warp_sums_from_both_schedulers(mask, rng):
    """A full mask is released by the runtime, a partial one by scheduling.py; both give a
    butterfly's sums, a lane outside the mask read as the reading lane's own value (the GPU
    leaves it undefined: docs/simulator.md) and keeping its poison."""
    x = rng.integers(-1000, 1000, 256).astype(np.int64)
    poison = -(2**62)
    out = np.full(256, poison, np.int64)
    cuda.jit(warp_sums)[2, 128](x, out, np.uint32(mask))
    expected = np.full((8, 32), poison, np.int64)
    lanes = [lane for lane in range(32) if (mask >> lane) & 1]
    for w, warp in enumerate(x.reshape(8, 32)):
        v = warp.copy()
        for delta in (16, 8, 4, 2, 1):
            v = v + np.array([v[lane ^ delta] if (mask >> (lane ^ delta)) & 1 else v[lane] for lane in range(32)])
        expected[w, lanes] = v[lanes]
    expected = expected.reshape(256)
    np.testing.assert_array_equal(out, expected)


def convert_float16(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = np.float16(x[i])


def test_float16_conversions_round_to_nearest_even(rng):
    x = np.concatenate(
        [
            rng.standard_normal(4000) * 10.0 ** rng.integers(-9, 6, 4000),
            [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.0, 65520.0, 2.0**-24, 2.0**-25, 3 * 2.0**-26],
        ]
    ).astype(np.float32)
    out = np.zeros(x.size, np.float16)
    cuda.jit(convert_float16)[(x.size + 127) // 128, 128](x, out)
    np.testing.assert_array_equal(out.view(np.uint16)[~np.isnan(x)], x.astype(np.float16).view(np.uint16)[~np.isnan(x)])
    assert np.isnan(out[np.isnan(x)]).all()


def directed(values, out_rz, out_rd, out_ru):
    i = cuda.grid(1)
    if i < values.shape[0]:
        out_rz[i] = cuda.fp16.__int2half_rz(values[i])
        out_rd[i] = cuda.fp16.__int2half_rd(values[i])
        out_ru[i] = cuda.fp16.__int2half_ru(values[i])


def test_integers_to_float16_in_each_rounding_mode(rng):
    values = np.concatenate([rng.integers(-70000, 70000, 3000), [0, 1, -1, 2049, -2049, 65519, 65520, 65536]])
    values = values.astype(np.int32)
    outs = [np.zeros(values.size, np.float16) for _ in range(3)]
    cuda.jit(directed)[(values.size + 127) // 128, 128](values, *outs)
    nearest = values.astype(np.float16).astype(np.float64)
    steps = {
        "up": np.nextafter(values.astype(np.float16), np.float16(np.inf)).astype(np.float64),
        "down": np.nextafter(values.astype(np.float16), np.float16(-np.inf)).astype(np.float64),
    }
    exact = values.astype(np.float64)
    up = np.where(nearest >= exact, nearest, steps["up"])
    down = np.where(nearest <= exact, nearest, steps["down"])
    toward_zero = np.where(exact >= 0, down, up)
    for got, want, name in zip(outs, (toward_zero, down, up), ("rz", "rd", "ru")):
        np.testing.assert_array_equal(got.astype(np.float64), want, err_msg=name)


def speak(out):
    i = cuda.grid(1)
    print("thread", i, "says", out[i])


def test_print_follows_the_threads(capfd):
    out = np.arange(6, dtype=np.int64) * 10
    cuda.jit(speak)[1, 6](out)
    cuda.synchronize()
    lines = capfd.readouterr().out.strip().splitlines()
    assert lines == [f"thread {i} says {10 * i}" for i in range(6)]


def where_am_i():
    print(cuda.threadIdx, cuda.blockIdx, "of", cuda.blockDim, cuda.gridDim)


def test_print_of_the_thread_indexing_registers_shows_x_y_z(capfd):
    # printed as Numba-CUDA prints a Dim3, which is how Python prints the tuple
    cuda.jit(where_am_i)[(2, 1, 3), (2, 3, 1)]()
    cuda.synchronize()
    lines = sorted(capfd.readouterr().out.strip().splitlines())
    as_python = [
        f"{tuple(map(int, t))} {tuple(map(int, b))} of (2, 3, 1) (2, 1, 3)"
        for t in np.ndindex(2, 3, 1)
        for b in np.ndindex(2, 1, 3)
    ]
    assert lines == sorted(as_python)


class _ForeignArray:
    """An array whose ``__cuda_array_interface__`` names memory the simulator did not make
    (as a CuPy or PyTorch array in a GPU's memory would)."""

    def __init__(self, host):
        self._host = host
        self.__cuda_array_interface__ = {
            "shape": host.shape,
            "typestr": host.dtype.str,
            "data": (host.ctypes.data, False),
            "version": 3,
            "strides": None,
        }


def fill(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = i


def test_memory_the_simulator_did_not_make_is_refused():
    foreign = _ForeignArray(np.zeros(64, np.float32))
    with pytest.raises(SimulatorError, match="parameter 0 points to .* memory the simulator did not make"):
        cuda.jit(fill)[1, 64](foreign)


def constant_vectors_in_shared_memory(out):
    s = cuda.shared.array(2, cuda.float32x4)
    s[0] = cuda.float32x4(1.0, 2.0, 3.0, 4.0)  # store <4 x float> <float 1.0, float 2.0, ...>
    s[1] = cuda.float32x4(0.5)
    v, w = s[0], s[1]
    out[0], out[1], out[2], out[3] = v.x + w.x, v.y, v.z, v.w


def test_a_constant_vector_stored_to_shared_memory_is_seen_written():
    """The check of a store reads the stored value's type whole (a vector constant's value
    holds commas): the reads after it read bytes written, as the checks must see them."""
    out = np.zeros(4, np.float32)
    cuda.jit(constant_vectors_in_shared_memory)[1, 1](out)
    np.testing.assert_array_equal(out, [1.5, 2.0, 3.0, 4.0])


def test_a_store_checks_the_bytes_of_its_whole_value():
    from cumlir.codegen.cpu import accesses

    lanes = ", ".join(f"float {x:e}" for x in (1.0, 2.0, 3.0, 4.0))
    vector = f"  store <4 x float> <{lanes}>, ptr %p, align 16"
    assert accesses._checks_of(vector) == [("ptr %p", "16", accesses.WRITE)]
    assert accesses._checks_of("  store i16 7, ptr %q, align 2") == [("ptr %q", "2", accesses.WRITE)]


def fused_float16(a, b, c, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = cuda.fp16.hfma(a[i], b[i], c[i])


def fused_bfloat16(a, b, c, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = cuda.bf16.hfma(a[i], b[i], c[i])


def _nearest_even(exact, bits, width):
    """The code of the float (its *bits*: uint16 codes of a float16 or bfloat16 near each
    *exact* Fraction, *width* their mantissa's bits) nearest each, ties to even."""
    from fractions import Fraction

    def value(code):
        sign = -1 if code >> 15 else 1
        exponent, mantissa = (code >> width) & ((1 << (15 - width)) - 1), code & ((1 << width) - 1)
        bias = (1 << (14 - width)) - 1
        if exponent == 0:
            return sign * Fraction(mantissa, 1 << width) * Fraction(2) ** (1 - bias)
        return sign * (1 + Fraction(mantissa, 1 << width)) * Fraction(2) ** (exponent - bias)

    out = []
    for x, code in zip(exact, bits.tolist()):
        candidates = [c for c in (code - 1, code, code + 1) if (c & 0x7FFF) < (0x7FFF ^ ((1 << width) - 1)) and c >= 0]
        candidates += [c ^ 0x8000 for c in candidates if (c & 0x7FFF) < 2]  # across zero
        best = min(candidates, key=lambda c: (abs(value(c) - x), c & 1))
        out.append(best)
    return np.array(out, np.uint16)


@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
def test_narrow_fused_multiply_adds_round_once(kind, rng):
    """A product on a midpoint of the narrow type plus a tiny addend: rounding the exact sum
    once goes past the midpoint, rounding it to float32 first lands on it and ties to even;
    random operands besides."""
    from fractions import Fraction

    import ml_dtypes

    dtype, width = (np.float16, 10) if kind == "float16" else (ml_dtypes.bfloat16, 7)
    n = 3000
    a = rng.uniform(-4, 4, n).astype(dtype)
    b = rng.uniform(-4, 4, n).astype(dtype)
    c = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-30, 3, n)).astype(dtype)
    # products on a midpoint of the type: an odd number of width + 2 bits, made of two factors
    # of at most width + 1 bits each, plus an addend far below it (or none: a tie)
    midpoints = [
        (p, m // p)
        for m in range(2 ** (width + 1) + 1, 2 ** (width + 2), 2)
        for p in range(3, 2 ** (width + 1), 2)
        if m % p == 0 and m // p < 2 ** (width + 1) and p < m // p
    ]
    picked = rng.integers(0, len(midpoints), 400)
    a[:400] = [midpoints[k][0] for k in picked]
    b[:400] = [midpoints[k][1] * 2.0 ** -(width + 2) for k in picked]
    c[:400] = (2.0 ** rng.integers(-30, -12, 400) * rng.choice([-1, 1], 400)).astype(dtype)
    c[:100] = 0
    out = np.zeros(n, dtype)
    cuda.jit(fused_float16 if kind == "float16" else fused_bfloat16)[(n + 127) // 128, 128](a, b, c, out)
    exact = [
        Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        for x, y, z in zip(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64))
    ]
    near = np.array([float(e) for e in exact]).astype(dtype).view(np.uint16)
    expected = _nearest_even(exact, near, width)
    got = out.view(np.uint16)
    zero = expected & 0x7FFF == 0  # the sign of an exact zero sum is the rounding mode's
    np.testing.assert_array_equal(got[~zero], expected[~zero])
    np.testing.assert_array_equal(got[zero] & 0x7FFF, 0)
