"""Cases for ``cuda.fp16`` and ``cuda.bf16``: a kernel per intrinsic (and one calling
them all), inputs, and host references that round exactly (with fractions) to float16
or bfloat16. Shared by the PTX tests and the GPU tests.

float16 values travel in float16 arrays; bfloat16 values, which NumPy lacks, travel as
their bits in uint16 arrays (``ushort_as_bfloat16`` / ``bfloat16_as_ushort`` in the
kernel), so every 16-bit result is compared bit for bit.
"""

import functools
import math
from fractions import Fraction

import numpy as np

from cumlir import cuda
from cumlir.operations.formats import bf16 as bf16_area
from cumlir.operations.formats import fp16 as fp16_area

AREAS = {"fp16": fp16_area, "bf16": bf16_area}
HALF = {"fp16": "float16", "bf16": "bfloat16"}
MODES = ("rn", "rz", "rd", "ru")


# ---- the 16-bit formats on the host -----------------------------------------------------


class Format:
    """A binary float format: *digits* significand bits (the leading one included),
    smallest normal exponent *emin*, largest finite value *max*."""

    def __init__(self, digits, emin, emax):
        self.digits, self.emin = digits, emin
        self.max = Fraction(2**digits - 1, 2 ** (digits - 1)) * Fraction(2) ** emax

    def ulp(self, magnitude):
        """The spacing of the format at the Fraction *magnitude* (> 0)."""
        exponent = max(_floor_log2(magnitude), self.emin)
        return Fraction(2) ** (exponent - self.digits + 1)

    def round(self, q, mode="rn"):
        """The Fraction *q* rounded to the format in *mode* ("rn", "rz", "rd", "ru"): a
        Fraction, or +-inf as a float. Zero results keep q's sign as -0.0 / 0.0."""
        if q == 0:
            return q
        sign = -1 if q < 0 else 1
        magnitude = abs(q)
        step = self.ulp(magnitude)
        low = (magnitude // step) * step
        rest = magnitude - low
        if rest == 0:
            result = low
        else:
            up = {
                "rn": rest > step / 2 or (rest == step / 2 and (low / step) % 2 == 1),
                "rz": False,
                "ru": sign > 0,
                "rd": sign < 0,
            }[mode]
            result = low + step if up else low
        if result > self.max:
            overflow_to_inf = mode == "rn" or (mode == "ru" and sign > 0) or (mode == "rd" and sign < 0)
            return sign * math.inf if overflow_to_inf else sign * self.max
        if result == 0:
            return math.copysign(0.0, sign)
        return sign * result


def _floor_log2(q):
    e = q.numerator.bit_length() - q.denominator.bit_length()
    return e if Fraction(2) ** e <= q else e - 1


FORMATS = {"fp16": Format(11, -14, 15), "bf16": Format(8, -126, 127)}


def to_host(kind, values):
    """The 16-bit values of an input array as float64 (bfloat16 arrays hold bits)."""
    if kind == "fp16":
        return values.astype(np.float64)
    return (values.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def from_host(kind, values):
    """float64 values exactly representable in the 16-bit type -> the kernel's array type."""
    values = np.asarray(values, dtype=np.float64)
    if kind == "fp16":
        return values.astype(np.float16)
    bits = values.astype(np.float32).view(np.uint32)
    nan = np.isnan(values)
    return np.where(nan, 0x7FFF, bits >> 16).astype(np.uint16)


def round_exact(kind, exact, fallback, mode="rn"):
    """Each element of *exact* (Fractions, or None where IEEE special values decide) rounded
    to the 16-bit type; *fallback* gives the float64 result where *exact* is None."""
    fmt = FORMATS[kind]
    out = np.empty(len(fallback))
    for i, (q, f) in enumerate(zip(exact, fallback)):
        if q is None:
            out[i] = f
        else:
            r = fmt.round(q, mode)
            out[i] = float(r) if not isinstance(r, float) else r
            if out[i] == 0 and q == 0:
                out[i] = math.copysign(0.0, f)  # an exact zero takes IEEE's sign
    return out


def exact_values(column):
    """The Fractions of a float64 column (None for infinities and NaN)."""
    return _exact(lambda q: q, column)


def _exact(fn, *columns):
    """fn applied to the Fractions of finite operands (None where an operand is not finite
    or fn raises ZeroDivisionError)."""
    results = []
    for values in zip(*columns):
        if not all(math.isfinite(v) for v in values):
            results.append(None)
            continue
        try:
            results.append(fn(*[Fraction(float(v)) for v in values]))
        except ZeroDivisionError:
            results.append(None)
    return results


# ---- the intrinsics and their references ------------------------------------------------

# operations IEEE defines exactly: name -> (exact on Fractions, float64 with IEEE's specials)
_ROUNDED = {
    "hadd": (lambda a, b: a + b, np.add),
    "hsub": (lambda a, b: a - b, np.subtract),
    "hmul": (lambda a, b: a * b, np.multiply),
    "hdiv": (lambda a, b: a / b, np.divide),
    "hfma": (lambda a, b, c: a * b + c, lambda a, b, c: a * b + c),
    "hrcp": (lambda a: 1 / a, lambda a: 1 / a),
}


def _sat(values):
    # [0, 1]; NaN and -0 give +0
    return np.where(values > 0, np.minimum(values, 1.0), 0.0)


def _relu(values):
    return np.where(np.isnan(values), np.nan, np.where(values <= 0, 0.0, values))


def _exactly_rounded(kind, name, args):
    base = name.lstrip("_")
    post = _sat if base.endswith("_sat") else _relu if base.endswith("_relu") else None
    exact, ieee = _ROUNDED[_root(base)]
    with np.errstate(all="ignore"):
        result = round_exact(kind, _exact(exact, *args), ieee(*args))
    return post(result) if post else result


def _sqrt(kind, args):
    # a float64 square root rounds to the 16-bit type correctly (53 >= 2 * 11 + 2 bits)
    with np.errstate(all="ignore"):
        root = np.sqrt(args[0])
    return round_exact(kind, exact_values(root), root)


def _minmax(fn, propagate):
    def reference(kind, args):
        a, b = args
        result = fn(a, b)
        return np.where(np.isnan(a) | np.isnan(b), np.nan, result) if propagate else result

    return reference


_INTEGRAL = {"hceil": np.ceil, "hfloor": np.floor, "htrunc": np.trunc, "hrint": np.rint}

# functions computed in float32 and rounded: float64 reference, allowed error in ulps
APPROXIMATE = {
    "hexp": np.exp,
    "hexp2": np.exp2,
    "hexp10": lambda x: np.power(10.0, x),
    "hlog": np.log,
    "hlog2": np.log2,
    "hlog10": np.log10,
    "hsin": np.sin,
    "hcos": np.cos,
    "htanh": np.tanh,
    "htanh_approx": np.tanh,
    "hrsqrt": lambda x: 1 / np.sqrt(x),
}
ULPS = 1

_COMPARE = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def _compare(op, unordered):
    def reference(kind, args):
        a, b = args
        nan = np.isnan(a) | np.isnan(b)
        result = op(a, b) & ~nan
        return result | nan if unordered else result

    return reference


INT_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
INT_RANGES = {t: (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in INT_TYPES}
_ROUND_INT = {"rn": lambda q: round(q), "rz": math.trunc, "rd": math.floor, "ru": math.ceil}


def _to_integer(mode, int_type):
    low, high = INT_RANGES[int_type]
    # CUDA's half and bfloat16 conversions give NaN as 0, but as 0x8000000000000000 in 64 bits
    nan = 1 << 63 if int_type == "uint64" else (low if int_type == "int64" else 0)

    def reference(kind, args):
        out = []
        for v in args[0]:
            if math.isnan(v):
                out.append(nan)
            elif math.isinf(v):
                out.append(high if v > 0 else low)
            else:
                out.append(min(max(_ROUND_INT[mode](Fraction(v)), low), high))
        return np.array(out, dtype=int_type)

    return reference


def _from_number(mode):
    def reference(kind, args):
        column = args[0]
        exact = [
            Fraction(int(v)) if isinstance(v, (int, np.integer)) else (Fraction(float(v)) if math.isfinite(v) else None)
            for v in column
        ]
        return round_exact(kind, exact, np.asarray(column, dtype=np.float64), mode or "rn")

    return reference


def _root(base):
    for suffix in ("_rn", "_sat", "_relu"):
        if base.endswith(suffix) and base[: -len(suffix)] in _ROUNDED:
            return base[: -len(suffix)]
    return base


def reference(kind, name):
    """The host reference of ``cuda.<kind>.<name>``: fn(kind, [float64 or integer columns])
    giving float64 values of the 16-bit type, bools or integers; None for the functions
    checked within ULPS instead (APPROXIMATE) and for bit reinterpretations."""
    base = name.lstrip("_")
    if base in APPROXIMATE or "_as_" in base:
        return None
    if _root(base) in _ROUNDED:
        return lambda kind, args: _exactly_rounded(kind, name, args)
    if base == "hsqrt":
        return _sqrt
    if base in _INTEGRAL:
        return lambda kind, args: _INTEGRAL[base](args[0])
    if base in ("hmax", "hmin", "hmax_nan", "hmin_nan"):
        return _minmax(np.fmax if base.startswith("hmax") else np.fmin, base.endswith("_nan"))
    simple = {
        "hneg": lambda kind, args: -args[0],
        "habs": lambda kind, args: np.abs(args[0]),
        "hisnan": lambda kind, args: np.isnan(args[0]),
        "hisinf": lambda kind, args: np.where(np.isinf(args[0]), np.sign(args[0]), 0).astype(np.int32),
    }
    if base in simple:
        return simple[base]
    for op, fn in _COMPARE.items():
        if base in ("h" + op, "h" + op + "u"):
            return _compare(fn, base.endswith("u"))
    sig = AREAS[kind].signature(name)
    result, arg = str(sig.return_type), str(sig.args[0])
    mode = base.rsplit("_", 1)[-1] if base.rsplit("_", 1)[-1] in ("rn", "rz", "rd", "ru") else None
    if arg == HALF[kind]:
        if result in INT_RANGES:
            return _to_integer(mode or "rz", result)
        return lambda kind, args: np.asarray(args[0], dtype=result)  # to float32: exact
    return _from_number(mode)


# ---- kernels ----------------------------------------------------------------------------


def _read(kind, ty, array):
    if ty == HALF[kind] and kind == "bf16":
        return f"cuda.bf16.ushort_as_bfloat16({array}[i])"
    return f"{array}[i]"


def _write(kind, ty, value):
    if ty == HALF[kind] and kind == "bf16":
        return f"cuda.bf16.bfloat16_as_ushort({value})"
    return value


def array_type(kind, ty):
    """The numba array element type holding values of the numba type name *ty*."""
    if ty == "bfloat16":
        return "uint16"
    return "boolean" if ty == "bool" else ty


def _compile(source, name):
    scope = {"cuda": cuda}
    exec(compile(source, f"<{name}>", "exec"), scope)
    return scope[name]


@functools.cache
def kernel(kind, name):
    """(kernel, signature string, argument types, result type) calling ``cuda.<kind>.<name>``
    once per element: arguments from arrays a, b, c, the result into out."""
    sig = AREAS[kind].signature(name)
    args = [str(t) for t in sig.args]
    result = str(sig.return_type)
    params = "abc"[: len(args)]
    call = f"cuda.{kind}.{name}({', '.join(_read(kind, t, p) for t, p in zip(args, params))})"
    ident = f"{kind}_{name.lstrip('_')}"
    source = (
        f"def {ident}({', '.join(params)}, out):\n"
        f"    i = cuda.grid(1)\n"
        f"    if i < out.size:\n"
        f"        out[i] = {_write(kind, result, call)}\n"
    )
    arrays = [f"{array_type(kind, t)}[:]" for t in args + [result]]
    return _compile(source, ident), f"void({', '.join(arrays)})", args, result


@functools.cache
def every_intrinsic(kind):
    """(kernel, signature): one kernel calling every intrinsic of ``cuda.<kind>`` once, its
    arguments read from one array per type and each result stored into one per type."""
    names = AREAS[kind].function_names()
    types_used = {}
    lines = []
    for name in names:
        sig = AREAS[kind].signature(name)
        args = [str(t) for t in sig.args]
        for t in args + [str(sig.return_type)]:
            types_used.setdefault(t, f"x{len(types_used)}")
        reads = [_read(kind, t, types_used[t]).replace("[i]", f"[{k}]") for k, t in enumerate(args)]
        call = f"cuda.{kind}.{name}({', '.join(reads)})"
        result = str(sig.return_type)
        lines.append(f"    {types_used[result]}[{len(lines) % 8 + 3}] = {_write(kind, result, call)}")
    params = list(types_used.values())
    source = f"def every_{kind}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    sig = f"void({', '.join(f'{array_type(kind, t)}[:]' for t in types_used)})"
    return _compile(source, f"every_{kind}"), sig


# signatures as Numba-CUDA's bindings give them
EXPECTED_SIGNATURES = [
    ("fp16", "hadd", "float16(float16, float16)"),
    ("fp16", "__hfma_relu", "float16(float16, float16, float16)"),
    ("fp16", "heq", "bool(float16, float16)"),
    ("fp16", "__hisinf", "int32(float16)"),
    ("fp16", "__half2int_rn", "int32(float16)"),
    ("fp16", "__half2uchar_rz", "uint8(float16)"),
    ("fp16", "__ll2half_rd", "float16(int64)"),
    ("fp16", "__double2half", "float16(float64)"),
    ("fp16", "__half_as_ushort", "uint16(float16)"),
    ("fp16", "hexp10", "float16(float16)"),
    ("bf16", "hadd", "bfloat16(bfloat16, bfloat16)"),
    ("bf16", "hfma_relu", "bfloat16(bfloat16, bfloat16, bfloat16)"),
    ("bf16", "hltu", "bool(bfloat16, bfloat16)"),
    ("bf16", "hisinf", "int32(bfloat16)"),
    ("bf16", "bfloat16_to_uint64_ru", "uint64(bfloat16)"),
    ("bf16", "ll2bfloat16_rz", "bfloat16(int64)"),
    ("bf16", "float64_to_bfloat16", "bfloat16(float64)"),
    ("bf16", "bfloat16_as_int16", "int16(bfloat16)"),
    ("bf16", "hexp2", "bfloat16(bfloat16)"),
]


def signature_text(kind, name):
    """``cuda.<kind>.<name>``'s signature written as ``result(arguments)``."""
    sig = AREAS[kind].signature(name)
    return f"{sig.return_type}({', '.join(map(str, sig.args))})"


def assembled_ptx(kernel_fn, sig, cc, backend="nvptx", **options):
    """The kernel's PTX for *cc*, checked by ptxas."""
    from .. import support

    ptx, _ = cuda.compile_ptx(kernel_fn, sig, cc=cc, backend=backend, **options)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    return ptx


@cuda.jit(device=True)
def store_comparisons(p, q, flags, i):
    """The six comparisons of p and q into flags[i, 0:6]."""
    flags[i, 0] = p == q
    flags[i, 1] = p != q
    flags[i, 2] = p < q
    flags[i, 3] = p <= q
    flags[i, 4] = p > q
    flags[i, 5] = p >= q


COMPARISONS = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


# ---- inputs -----------------------------------------------------------------------------

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, math.inf, -math.inf, math.nan]


def half_inputs(kind, n, rng, positive=False):
    """*n* values of the 16-bit type (float64), spread over its range, with its limits,
    subnormals and the special values among them."""
    if kind == "fp16":
        extra = [65504.0, -65504.0, 6.1035156e-05, 5.9604645e-08, 0.99951171875, 2048.0, 2050.0]
        values = rng.standard_normal(n) * 10.0 ** rng.integers(-4, 5, n)
        values = values.astype(np.float16).astype(np.float64)
    else:
        extra = [3.3895314e38, -3.3895314e38, 1.1754944e-38, 9.1835e-41, 0.99609375, 256.0, 258.0]
        values = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
        bits = values.astype(np.float32).view(np.uint32) >> 16
        values = (bits << 16).astype(np.uint32).view(np.float32).astype(np.float64)
    fixed = np.array(SPECIALS + extra, dtype=np.float64)
    fixed = to_host(kind, from_host(kind, fixed))  # limits as the type holds them
    values[: len(fixed)] = fixed[:n]
    if positive:
        values = np.abs(values)
    return values


def integer_inputs(int_type, n, rng):
    low, high = INT_RANGES[int_type]
    values = rng.integers(low, high, n, dtype=int_type, endpoint=True)
    small = rng.integers(max(low, -3000), min(high, 3000), n // 4, dtype=int_type, endpoint=True)
    values[: len(small)] = small
    edges = [v for v in (0, 1, -1, 255, 256, 257, low, high, 2**24 + 1, 2**31 + 2**23 + 1) if low <= v <= high]
    values[-len(edges) :] = np.array(edges, dtype=int_type)
    return values


def float_inputs(ty, n, rng):
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(ty)
    values[:4] = np.array([math.nan, math.inf, -0.0, 65520.0], dtype=ty)
    return values


# ---- running a case on the GPU and checking it --------------------------------------------


def inputs_for(kind, name, ty, n, rng):
    """(array for the kernel, float64 or integer column for the reference) of type *ty*."""
    if ty == HALF[kind]:
        positive = name.lstrip("_") in ("hsqrt", "hrsqrt", "hlog", "hlog2", "hlog10")
        values = half_inputs(kind, n, rng, positive=positive)
        return from_host(kind, values), values
    if ty in INT_RANGES:
        values = integer_inputs(ty, n, rng)
        return values, [int(v) for v in values]
    values = float_inputs(ty, n, rng)
    return values, values.astype(np.float64)


def ordered_bits(kind, values):
    """The 16-bit patterns of float64 *values* as integers ordered as the values are."""
    bits = from_host(kind, values).view(np.int16).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFF), bits)


def check_half_result(kind, name, got, expected):
    """Bit-for-bit equality of 16-bit results (any NaN equal to any NaN)."""
    got_nan, expected_nan = np.isnan(got), np.isnan(expected)
    assert np.array_equal(got_nan, expected_nan), f"{kind}.{name}: NaN at {np.nonzero(got_nan != expected_nan)[0][:5]}"
    keep = ~got_nan
    got_bits = from_host(kind, got[keep]).view(np.uint16)
    want_bits = from_host(kind, expected[keep]).view(np.uint16)
    bad = np.nonzero(got_bits != want_bits)[0]
    assert len(bad) == 0, (
        f"{kind}.{name}: {len(bad)} results differ, e.g. got {got[keep][bad[:5]]} expected {expected[keep][bad[:5]]}"
    )


def check_within_ulps(kind, name, got, exact, ulps=ULPS):
    """The 16-bit results *got* within *ulps* of the float64 *exact* rounded to the type."""
    with np.errstate(all="ignore"):
        rounded = round_exact(kind, exact_values(exact), exact)
    got_nan, expected_nan = np.isnan(got), np.isnan(rounded)
    assert np.array_equal(got_nan, expected_nan), f"{kind}.{name}: NaN at {np.nonzero(got_nan != expected_nan)[0][:5]}"
    keep = ~got_nan
    distance = np.abs(ordered_bits(kind, got[keep]) - ordered_bits(kind, rounded[keep]))
    bad = np.nonzero(distance > ulps)[0]
    assert len(bad) == 0, (
        f"{kind}.{name}: {len(bad)} results off by more than {ulps} ulp, "
        f"e.g. got {got[keep][bad[:5]]} expected {rounded[keep][bad[:5]]}"
    )


def _poisoned(n, dtype):
    """An output no kernel writes by accident: NaN, all True, or 0x5A in every byte."""
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype)
    if dtype.kind == "b":
        return np.ones(n, dtype)
    return np.full(n, 0x5A5A5A5A5A5A5A5A & ((1 << (8 * dtype.itemsize)) - 1), dtype=dtype.str.replace("i", "u")).view(
        dtype
    )


def run_case(kind, name, rng, n=4096, backend="nvptx"):
    """Run ``cuda.<kind>.<name>`` on the GPU over random inputs and check every result."""
    kernel_fn, _, arg_types, result_type = kernel(kind, name)
    arrays, columns = zip(*[inputs_for(kind, name, t, n, rng) for t in arg_types])
    out_dtype = np.dtype(array_type(kind, result_type) if result_type != "bool" else "bool")
    out = _poisoned(n, out_dtype)
    cuda.jit(kernel_fn, backend=backend)[(n + 127) // 128, 128](*arrays, out)
    base = name.lstrip("_")
    if "_as_" in base:
        # reinterpreting bits there and back: the kernel's result has the argument's bits
        assert np.array_equal(out.view(np.uint16), arrays[0].view(np.uint16)), f"{kind}.{name}"
        return
    if result_type == HALF[kind]:
        got = to_host(kind, out)
        if base in APPROXIMATE:
            with np.errstate(all="ignore"):
                check_within_ulps(kind, name, got, APPROXIMATE[base](columns[0]))
        else:
            check_half_result(kind, name, got, reference(kind, name)(kind, list(columns)))
        return
    expected = reference(kind, name)(kind, list(columns))
    if out_dtype.kind == "f":
        np.testing.assert_array_equal(out, expected.astype(out_dtype), err_msg=f"{kind}.{name}")
    else:
        bad = np.nonzero(out != expected)[0]
        inputs = [np.asarray(c)[bad[:3]] for c in columns]
        assert len(bad) == 0, (
            f"{kind}.{name}: {len(bad)} differ, e.g. inputs {inputs} got {out[bad[:3]]} expected {expected[bad[:3]]}"
        )
