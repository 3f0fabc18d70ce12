"""numpy.datetime64 and timedelta64 in kernels: the result unit of every operator on every
pair of units against NumPy's, refusals naming the units, the calendar conversion of years
and months, arguments packed as their counts, PTX of every operation on both code
generators, and on the GPU every operation compared element by element with NumPy."""

import operator
import warnings

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError
from numba.np.numpy_support import from_dtype

from cumlir import cuda

from ... import support

CCS = [(8, 0), (9, 0)]
UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", ""]
NAT = np.iinfo(np.int64).min
MS = np.dtype("m8[ms]")


def _dtype(kind, unit):
    return np.dtype(f"{kind}8[{unit}]" if unit else f"{kind}8")


def _numba(kind, unit):
    return types.NPDatetime(unit) if kind == "M" else types.NPTimedelta(unit)


def _typed(op, *argtypes):
    """numba's typing of ``op(*argtypes)`` in cumlir's context: the result type, or None when refused."""
    import cumlir.typing.frontend  # noqa: F401  (numba's overloads compile for cumlir's target)
    from cumlir.typing.context import typing_context
    from cumlir.typing.target import target_override

    ctx = typing_context()
    with target_override():
        try:
            return ctx.resolve_function_type(ctx.resolve_value_type(op), argtypes, {}).return_type
        except TypingError:
            return None


def _numpy_result(op, left, right):
    """The dtype NumPy gives ``op`` on arrays of these dtypes, None when it refuses them, and
    OverflowError where one unit in the other overflows an int64 (refused when lowered, see
    test_overflowing_unit_pair_refused)."""
    a, b = np.zeros(1, left), np.ones(1, right)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return op(a, b).dtype
    except TypeError:
        return None
    except OverflowError:
        return OverflowError


# (operator, left kind, right kind): the operators whose result dtype numba and NumPy share
_TYPED_OPERATORS = [
    (op, left, right)
    for op, left, right in [
        (operator.add, "m", "m"),
        (operator.sub, "m", "m"),
        (operator.mod, "m", "m"),
        (operator.truediv, "m", "m"),
        (operator.add, "M", "m"),
        (operator.add, "m", "M"),
        (operator.sub, "M", "m"),
        (operator.sub, "M", "M"),
        (operator.lt, "m", "m"),
        (operator.eq, "m", "m"),
        (operator.ge, "M", "M"),
        (operator.ne, "M", "M"),
    ]
]


@pytest.mark.parametrize("op,left,right", _TYPED_OPERATORS, ids=lambda v: getattr(v, "__name__", v))
def test_result_units_as_numpy(op, left, right):
    """Every pair of units: the result type is NumPy's result dtype, and what NumPy refuses
    (years or months with finer timedeltas) is a typing error."""
    for ua in UNITS:
        for ub in UNITS:
            expected = _numpy_result(op, _dtype(left, ua), _dtype(right, ub))
            got = _typed(op, _numba(left, ua), _numba(right, ub))
            if expected is OverflowError:
                continue
            if expected is None:
                assert got is None, (op, ua, ub, got)
            elif expected.kind in "mM":
                unit = np.datetime_data(expected)[0]
                assert got == _numba(expected.kind, "" if unit == "generic" else unit), (op, ua, ub, got, expected)
            else:
                assert got == from_dtype(expected), (op, ua, ub, got, expected)


@pytest.mark.parametrize("unit", UNITS)
def test_floordiv_of_timedeltas_is_a_float64_as_numba(unit):
    # NumPy's result is an int64; numba (and Numba-CUDA) type it as a float64 holding the same count
    assert _typed(operator.floordiv, types.NPTimedelta(unit), types.NPTimedelta(unit)) == types.float64


def _refused(fn, sig):
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(fn, sig, cc=(8, 0))
    return str(info.value)


def _add(out, a, b):
    out[0] = a + b


def _mod(out, a, b):
    out[0] = a % b


def test_years_with_days_refused_naming_both_units():
    message = _refused(_add, (types.NPTimedelta("D")[::1], types.NPTimedelta("Y"), types.NPTimedelta("D")))
    assert "timedelta64[Y]" in message and "timedelta64[D]" in message


def test_datetime_plus_datetime_refused_naming_the_types():
    message = _refused(_add, (types.NPDatetime("s")[::1], types.NPDatetime("s"), types.NPDatetime("D")))
    assert "datetime64[s]" in message and "datetime64[D]" in message


def test_remainder_of_months_by_days_refused_naming_both_units():
    message = _refused(_mod, (types.NPTimedelta("D")[::1], types.NPTimedelta("M"), types.NPTimedelta("D")))
    assert "timedelta64[M] % timedelta64[D]" in message


def test_overflowing_unit_pair_refused():
    with pytest.raises(Exception, match=r"timedelta64\[W\] to timedelta64\[as\].*more than an int64 holds"):
        cuda.compile_ptx(
            _add, (types.NPTimedelta("as")[::1], types.NPTimedelta("W"), types.NPTimedelta("as")), cc=(8, 0)
        )


def counts(out, td, dt, nat):
    out[0] = int(td)
    out[1] = np.int64(dt)
    out[2] = int(dt)
    out[3] = int(nat)


def test_counts_as_integers_on_the_host():
    from ...nrt_harness import Kernel

    sig = (types.int64[::1], types.NPTimedelta("ms"), types.NPDatetime("ns"), types.NPTimedelta("s"))
    out = np.zeros(4, np.int64)
    Kernel(counts, sig)(out, -1234, 1_700_000_000_000_000_000, NAT)
    assert list(out) == [-1234, 1_700_000_000_000_000_000, 1_700_000_000_000_000_000, NAT]


def test_int_of_a_datetime_needs_nanoseconds():
    def to_int(out, a):
        out[0] = int(a)

    message = _refused(to_int, (types.int64[::1], types.NPDatetime("s")))
    assert "datetime64[ns]" in message and "datetime64[s]" in message


def test_storing_another_unit_is_a_typing_error():
    # as in Numba-CUDA: no implicit conversion between units
    _refused(_add, (types.NPTimedelta("ms")[::1], types.NPTimedelta("s"), types.NPTimedelta("s")))


def test_calendar_days_of_years_and_months_as_numpy():
    from cumlir.operations.numpy.datetimes import days_of_months, days_of_years

    years = np.arange(-2500, 2500)
    assert [days_of_years(int(y)) for y in years] == list(years.astype("M8[Y]").astype("M8[D]").view(np.int64))
    months = np.arange(-30000, 30000, 7)
    assert [days_of_months(int(m)) for m in months] == list(months.astype("M8[M]").astype("M8[D]").view(np.int64))


@pytest.mark.parametrize(
    "value,ty,count",
    [
        (np.timedelta64(5, "s"), types.NPTimedelta("ms"), 5000),
        (np.timedelta64("NaT"), types.NPTimedelta("ns"), NAT),
        (np.datetime64("2026-01-01", "s"), types.NPDatetime("D"), 20454),
        (np.datetime64("2026-03", "M"), types.NPDatetime("s"), 1772323200),
        (np.timedelta64(7, "D"), types.NPTimedelta(""), 7),
    ],
)
def test_scalar_arguments_packed_as_counts(value, ty, count):
    from cumlir.runtime.arguments import _parameter

    buffer = bytearray(8)
    _parameter(ty, 0).pack(value, buffer, 0, None)
    assert np.frombuffer(buffer, np.int64)[0] == count


@pytest.mark.parametrize(
    "value,ty",
    [
        (np.timedelta64(5, "Y"), types.NPTimedelta("D")),
        (np.datetime64("2026-01-01"), types.NPTimedelta("D")),
        (5, types.NPTimedelta("s")),
    ],
)
def test_scalar_arguments_of_another_kind_refused(value, ty):
    from cumlir.runtime.arguments import _parameter

    with pytest.raises(TypeError, match="argument 0"):
        _parameter(ty, 0).pack(value, bytearray(8), 0, None)


def test_argument_types_from_values():
    from cumlir.runtime.arguments import argument_type

    assert argument_type(np.timedelta64(5, "ms"), 0) == types.NPTimedelta("ms")
    assert argument_type(np.datetime64("2026-01-01", "s"), 0) == types.NPDatetime("s")
    assert argument_type(np.zeros(3, "M8[D]"), 0) == types.Array(types.NPDatetime("D"), 1, "C")


# ---- every operation in one kernel ------------------------------------------------------------


@cuda.jit(device=True)
def operations_at(i, a, b, x, y, n, f, td_ab, td_a, floats, flags, dt_xa, td_xy):
    """a, b: timedeltas; x, y: datetimes; n: int64; f: float64. Each output row is one operation."""
    td_ab[0, i] = a[i] + b[i]
    td_ab[1, i] = a[i] - b[i]
    td_ab[2, i] = b[i] - a[i]
    td_ab[3, i] = a[i] % b[i]
    td_a[0, i] = -a[i]
    td_a[1, i] = abs(a[i])
    td_a[2, i] = a[i] * n[i]
    td_a[3, i] = n[i] * a[i]
    td_a[4, i] = a[i] * f[i]
    td_a[5, i] = a[i] / n[i]
    td_a[6, i] = a[i] // n[i]
    td_a[7, i] = a[i] / f[i]
    td_a[8, i] = +a[i]
    floats[0, i] = a[i] / b[i]
    floats[1, i] = a[i] // b[i]
    flags[0, i] = a[i] == b[i]
    flags[1, i] = a[i] != b[i]
    flags[2, i] = a[i] < b[i]
    flags[3, i] = a[i] <= b[i]
    flags[4, i] = a[i] > b[i]
    flags[5, i] = a[i] >= b[i]
    flags[6, i] = x[i] == y[i]
    flags[7, i] = x[i] != y[i]
    flags[8, i] = x[i] < y[i]
    flags[9, i] = x[i] <= y[i]
    flags[10, i] = x[i] > y[i]
    flags[11, i] = x[i] >= y[i]
    flags[12, i] = np.isnat(a[i])
    flags[13, i] = np.isnat(x[i])
    dt_xa[0, i] = x[i] + a[i]
    dt_xa[1, i] = a[i] + x[i]
    dt_xa[2, i] = x[i] - a[i]
    td_xy[0, i] = x[i] - y[i]


def every_operation(a, b, x, y, n, f, td_ab, td_a, floats, flags, dt_xa, td_xy):
    i = cuda.grid(1)
    if i < a.size:
        operations_at(i, a, b, x, y, n, f, td_ab, td_a, floats, flags, dt_xa, td_xy)


def every_operation_in_one_thread(a, b, x, y, n, f, td_ab, td_a, floats, flags, dt_xa, td_xy):
    for i in range(a.size):
        operations_at(i, a, b, x, y, n, f, td_ab, td_a, floats, flags, dt_xa, td_xy)


def numpy_every_operation(a, b, x, y, n, f):
    """The host's answers, row by row as the kernel writes them."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        td_ab = np.stack([a + b, a - b, b - a, a % b])
        td_a = np.stack([-a, abs(a), a * n, n * a, a * f, a / n, a // n, a / f, +a])
        floats = np.stack([a / b, (a // b).astype(np.float64)])
        flags = np.stack(
            [a == b, a != b, a < b, a <= b, a > b, a >= b, x == y, x != y, x < y, x <= y, x > y, x >= y]
            + [np.isnat(a), np.isnat(x)]
        )
        dt_xa = np.stack([x + a, a + x, x - a])
        td_xy = np.stack([x - y])
    return td_ab, td_a, floats, flags, dt_xa, td_xy


# (unit of a, of b, of x, of y): linear units, calendar units, weeks, generic
UNIT_CASES = [
    ("ms", "s", "D", "s"),
    ("D", "h", "Y", "D"),
    ("M", "Y", "M", "Y"),
    ("ns", "us", "W", "ms"),
    ("", "m", "h", "Y"),
]


def _inputs(units, size=257, seed=0):
    ua, ub, ux, uy = units
    rng = np.random.default_rng(seed)

    def counts(limit):
        values = rng.integers(-limit, limit, size)
        values[rng.random(size) < 0.1] = NAT
        values[:3] = [0, 1, -1]
        return values

    a = counts(10_000).view(_dtype("m", ua))
    b_counts = counts(10_000)
    b_counts[5] = 0  # a zero divisor
    b = b_counts.view(_dtype("m", ub))
    x = counts(10_000).view(_dtype("M", ux))
    y = counts(10_000).view(_dtype("M", uy))
    n = rng.integers(-1000, 1000, size)
    n[4] = 0
    f = rng.uniform(-100.0, 100.0, size)
    f[4], f[6] = 0.0, np.nan
    return a, b, x, y, n, f


def _outputs(expected):
    # poisoned counts, so that a row the kernel never writes cannot match
    return [
        np.full(e.shape, 0x5A5A, np.int64).view(e.dtype) if e.dtype.kind in "mM" else np.full_like(e, 1)
        for e in expected
    ]


def _signature(units):
    inputs = _inputs(units, size=8)
    arrays = (*inputs, *numpy_every_operation(*inputs))
    return tuple(types.Array(from_dtype(v.dtype), v.ndim, "C") for v in arrays)


@pytest.mark.parametrize("units", UNIT_CASES, ids="-".join)
@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_every_operation_compiles(units, cc, backend):
    ptx, _ = cuda.compile_ptx(every_operation, _signature(units), cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def _check(units, outputs, expected):
    names = ["td_ab", "td_a", "floats", "flags", "dt_xa", "td_xy"]
    for name, got, want in zip(names, outputs, expected):
        if want.dtype.kind in "mM":
            np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64), err_msg=f"{units} {name}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{units} {name}")


@pytest.mark.parametrize("units", UNIT_CASES, ids="-".join)
def test_every_operation_as_numpy_on_the_host(units):
    """The kernel's own LLVM IR (the nvptx path's), run on the CPU in one thread, against NumPy."""
    from ...nrt_harness import Kernel

    inputs = _inputs(units)
    expected = numpy_every_operation(*inputs)
    outputs = _outputs(expected)
    kernel = Kernel(every_operation_in_one_thread, _signature(units))
    kernel(*(v.view(np.int64) if v.dtype.kind in "mM" else v for v in (*inputs, *outputs)))
    _check(units, outputs, expected)


def scalar_arguments(out, dates, start, step):
    """Scalar datetime and timedelta arguments, arrays of them in local and shared memory,
    a device function returning a timedelta and a constant captured from a global."""
    local = cuda.local.array(4, MS)
    shared = cuda.shared.array(4, MS)
    i = cuda.grid(1)
    local[0] = _twice(step)
    shared[i % 4] = local[0] + ONE_MS
    cuda.syncthreads()
    if i < dates.size:
        out[i] = (dates[i] - start) + shared[i % 4]


@cuda.jit(device=True)
def _twice(step):
    return step * 2


ONE_MS = np.timedelta64(1, "ms")
SCALAR_SIG = (types.NPTimedelta("ms")[::1], types.NPDatetime("s")[::1], types.NPDatetime("D"), types.NPTimedelta("ms"))


def scalars_in_one_thread(out, dates, start, step):
    local = cuda.local.array(4, MS)
    local[1] = _twice(step)
    for i in range(dates.size):
        out[i] = (dates[i] - start) + (local[1] + ONE_MS)


def _scalar_case():
    dates = np.arange("2026-01-01", "2026-01-09", dtype="M8[D]").astype("M8[s]")
    dates[3] = np.datetime64("NaT")
    start, step = np.datetime64("2025-12-31"), np.timedelta64(3, "ms")
    expected = (dates - start) + (2 * step + ONE_MS)
    return dates, start, step, expected


def test_scalars_as_numpy_on_the_host():
    from ...nrt_harness import Kernel

    dates, start, step, expected = _scalar_case()
    out = np.full(dates.size, 0x5A, np.int64)
    Kernel(scalars_in_one_thread, SCALAR_SIG)(out, dates.view(np.int64), start.astype(np.int64), step.astype(np.int64))
    np.testing.assert_array_equal(out, expected.view(np.int64))


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_scalar_arguments_compile(cc, backend):
    ptx, _ = cuda.compile_ptx(scalar_arguments, SCALAR_SIG, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_print_refused_by_name():
    def show(out, a):
        print(a)

    from numba.core.errors import UnsupportedError

    with pytest.raises(UnsupportedError, match=r"print\(\) of a value of type timedelta64\[ms\]"):
        cuda.compile_ptx(show, (types.int64[::1], types.NPTimedelta("ms")), cc=(8, 0))


# ---- on the GPU -----------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("units", UNIT_CASES, ids="-".join)
def test_gpu_every_operation_as_numpy(units, backend):
    inputs = _inputs(units)
    expected = numpy_every_operation(*inputs)
    outputs = _outputs(expected)
    kernel = cuda.jit(backend=backend)(every_operation)
    kernel[3, 96](*inputs, *outputs)
    _check(units, outputs, expected)


@pytest.mark.gpu
def test_gpu_scalar_arguments(backend):
    dates, start, step, expected = _scalar_case()
    out = np.full(dates.size, 0x5A, np.int64).view("m8[ms]")
    cuda.jit(backend=backend)(scalar_arguments)[1, 8](out, dates, start, step)
    np.testing.assert_array_equal(out.view(np.int64), expected.view(np.int64))
