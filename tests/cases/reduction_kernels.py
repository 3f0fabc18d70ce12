"""NumPy's reductions in kernels (operations/reductions.py): one kernel computing every
scalar reduction of its argument, kernels for cumsum/cumprod, arrays made in the kernel,
views, shared and local arrays; the inputs each dtype is tested with, and the results
NumPy gives (computed in float64 or complex128), with the tolerances they are held to.
Used by operations/numpy/test_reductions.py (PTX, and runs on the host) and its GPU tests."""

import warnings

import numpy as np

from cumlir import cuda

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DTYPES += ["float16", "float32", "float64", "complex64", "complex128"]

# the slots of each output of scalar_reductions, in the order the kernel writes them
SUMS = ["np.sum", "a.sum", "np.prod", "a.prod", "np.nansum", "np.nanprod"]
MEANS = ["np.mean", "a.mean", "np.nanmean"]
SPREADS = ["np.var", "a.var", "np.std", "a.std", "np.var ddof=1", "a.std ddof=1"]
EXTREMES = ["np.min", "a.min", "np.amin", "np.max", "a.max", "np.amax", "np.nanmin", "np.nanmax"]
POSITIONS = ["np.argmin", "a.argmin", "np.argmax", "a.argmax"]
TRUTHS = ["np.all", "a.all", "np.any", "a.any"]
GROUPS = {"sums": SUMS, "means": MEANS, "spreads": SPREADS, "extremes": EXTREMES, "positions": POSITIONS}
GROUPS["truths"] = TRUTHS


def scalar_reductions(a, sums, means, spreads, extremes, positions, truths):
    sums[0] = np.sum(a)
    sums[1] = a.sum()
    sums[2] = np.prod(a)
    sums[3] = a.prod()
    sums[4] = np.nansum(a)
    sums[5] = np.nanprod(a)
    means[0] = np.mean(a)
    means[1] = a.mean(axis=None)
    means[2] = np.nanmean(a)
    spreads[0] = np.var(a)
    spreads[1] = a.var()
    spreads[2] = np.std(a)
    spreads[3] = a.std()
    spreads[4] = np.var(a, ddof=1)
    spreads[5] = a.std(ddof=1)
    extremes[0] = np.min(a)
    extremes[1] = a.min()
    extremes[2] = np.amin(a)
    extremes[3] = np.max(a, None)
    extremes[4] = a.max()
    extremes[5] = np.amax(a)
    extremes[6] = np.nanmin(a)
    extremes[7] = np.nanmax(a)
    positions[0] = np.argmin(a)
    positions[1] = a.argmin()
    positions[2] = np.argmax(a)
    positions[3] = a.argmax()
    truths[0] = np.all(a)
    truths[1] = a.all()
    truths[2] = np.any(a)
    truths[3] = a.any()


def cumulative(a, sums, products):
    s = np.cumsum(a)
    p = a.cumprod()
    for k in range(s.size):
        sums[k] = s[k]
        products[k] = p[k]


def views(a, out):
    # a is 2-d: reductions of views made in the kernel
    out[0] = a[::2].sum()
    out[1] = a.T.max()
    out[2] = a[1:, ::-1].argmin()
    out[3] = np.mean(a[:, 1])
    out[4] = a[1].var()
    out[5] = np.nanmin(a[::-1, ::2])


def made_in_kernel(out):
    out[0] = np.arange(10.0).sum()
    out[1] = np.ones((3, 4)).mean()
    out[2] = np.full(5, 2.5).prod()
    out[3] = np.zeros((2, 3), np.int32).max()
    out[4] = np.arange(7).argmax()


SHARED_SHAPE = (4, 8)
LOCAL_SIZE = 16


def shared_and_local(a, out):
    shared = cuda.shared.array(SHARED_SHAPE, np.float32)
    local = cuda.local.array(LOCAL_SIZE, np.float32)
    i = cuda.threadIdx.x
    shared[i // SHARED_SHAPE[1], i % SHARED_SHAPE[1]] = a[i]
    for k in range(LOCAL_SIZE):
        local[k] = a[k] * (i + 1)
    cuda.syncthreads()
    out[i, 0] = local.sum()
    out[i, 1] = shared.max()
    out[i, 2] = np.argmin(shared)
    out[i, 3] = shared.mean()
    out[i, 4] = np.std(local)


def shared_and_local_reference(a, threads):
    out = np.empty((threads, 5), np.float64)
    shared = a[:threads].astype(np.float64)
    for i in range(threads):
        local = a[:LOCAL_SIZE].astype(np.float32) * np.float32(i + 1)
        local = local.astype(np.float64)
        out[i] = [local.sum(), shared.max(), np.argmin(shared), shared.mean(), local.std()]
    return out


# ---- inputs ----------------------------------------------------------------------------------


def values(dtype, shape, rng):
    """Random elements of *dtype*: integers over their whole range (sums and products wrap as
    NumPy's do), floats and complex numbers near 1 in magnitude with both signs (products stay finite in float16)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if dtype.kind == "f":
        return (rng.uniform(0.8, 1.25, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)
    # parts near 1/sqrt(2): magnitudes near 1, so that products of hundreds stay finite
    real = rng.uniform(0.8, 1.25, shape) * rng.choice([-1.0, 1.0], shape) * 0.5**0.5
    imag = rng.uniform(0.8, 1.25, shape) * rng.choice([-1.0, 1.0], shape) * 0.5**0.5
    return (real + 1j * imag).astype(dtype)


def layouts(dtype, rng):
    """(name, array) of every layout: C and F, 1- to 3-d, strided and reversed views."""
    yield "c1", values(dtype, 37, rng)
    yield "c2", values(dtype, (5, 7), rng)
    yield "f2", np.asfortranarray(values(dtype, (6, 4), rng))
    yield "a3", values(dtype, (4, 6, 5), rng)[::2, 1:5, ::-2]
    yield "s1", values(dtype, 40, rng)[3::3]


def with_nans(array, rng, every=False):
    """A copy of a C-contiguous float or complex array with NaN at a few places (everywhere
    with every=True)."""
    array = array.copy()
    flat = array.reshape(-1)
    flat[np.arange(flat.size) if every else rng.choice(flat.size, 3, replace=False)] = np.nan
    return array


# ---- what NumPy gives ------------------------------------------------------------------------


def output_dtypes(dtype):
    """The dtype of each output of scalar_reductions, as NumPy types the results."""
    one = np.ones(2, dtype)
    return {
        "sums": np.sum(one).dtype,
        "means": np.mean(one).dtype,
        "spreads": np.var(one).dtype,
        "extremes": one.dtype,
        "positions": np.dtype(np.int64),
        "truths": np.dtype(bool),
    }


def outputs(dtype):
    """Poisoned outputs of scalar_reductions for an input of *dtype*."""
    result = {}
    for group, out_dtype in output_dtypes(dtype).items():
        n = len(GROUPS[group])
        if out_dtype.kind in "fc":
            result[group] = np.full(n, np.nan, out_dtype)
        elif out_dtype.kind == "b":
            result[group] = np.array([True, False] * (n // 2), bool)
        else:
            result[group] = np.full(n, 0x5A, out_dtype)
    return result


def _wide(a):
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    return a


def _empty_extreme(dtype, largest):
    # without debug=True the min of nothing is the largest value (max: the smallest)
    if dtype.kind == "b":
        return largest
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    edge = np.inf if largest else -np.inf
    return complex(edge, edge) if dtype.kind == "c" else edge


def _extremes(a):
    if a.size:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nanmin of all NaN
            return [np.min(a)] * 3 + [np.max(a)] * 3 + [np.nanmin(a), np.nanmax(a)]
    low, high = _empty_extreme(a.dtype, True), _empty_extreme(a.dtype, False)
    if a.dtype.kind in "biu":
        return [low] * 3 + [high] * 3 + [low, high]
    return [low] * 3 + [high] * 3 + [np.nan, np.nan]


def expected(a):
    """{group: (the values NumPy gives, each slot's scale for its tolerance or None: exact)}."""
    wide = _wide(a)
    magnitude = np.abs(wide).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the means of nothing, the all-NaN slices
        sums = [np.sum(wide), np.sum(wide), np.prod(wide), np.prod(wide), np.nansum(wide), np.nanprod(wide)]
        nanmean = np.nanmean(wide) if a.dtype.kind != "b" else np.mean(wide)
        means = [np.mean(wide), np.mean(wide), nanmean]
        variances = [np.var(wide), np.var(wide), np.std(wide), np.std(wide), np.var(wide, ddof=1)]
        spreads = variances + [np.std(wide, ddof=1)]
        size = np.nansum(magnitude)
        product = np.abs(np.nanprod(magnitude))
        mean = np.nanmean(magnitude) if a.size else 0.0
        square = np.nanmean(magnitude**2) if a.size else 0.0
    positions = [np.argmin(a)] * 2 + [np.argmax(a)] * 2 if a.size else [0] * 4
    root = np.sqrt(square)
    return {
        "sums": (sums, [size, size, product, product, size, product]),
        "means": (means, [mean] * 3),
        "spreads": (spreads, [square, square, root, root, square, root]),
        "extremes": (_extremes(a), None),
        "positions": (positions, None),
        "truths": ([np.all(a), np.all(a), np.any(a), np.any(a)], None),
    }


def check(a, results):
    """Compare the outputs of scalar_reductions for input *a* with NumPy's; a message per mismatch."""
    problems = []
    n = max(a.size, 1)
    for group, (wanted, scales) in expected(a).items():
        got = results[group]
        for k, name in enumerate(GROUPS[group]):
            value, want = got[k], wanted[k]
            if scales is None or got.dtype.kind not in "fc":
                same = value == want or (_isnan(value) and _isnan(want))
                if not same:
                    problems.append(f"{name}: got {value!r}, NumPy gives {want!r}")
                continue
            real = np.finfo(got.dtype).eps
            tolerance = 8 * (n + 2) * real * scales[k] + np.finfo(got.dtype).tiny
            if _isnan(want) or _isnan(value):
                ok = _isnan(want) and _isnan(value)
            else:
                ok = abs(complex(value) - complex(want)) <= tolerance
            if not ok:
                problems.append(f"{name}: got {value!r}, NumPy gives {want!r} (tolerance {tolerance:.3g})")
    return problems


def _isnan(x):
    return bool(np.isnan(x)) if np.asarray(x).dtype.kind in "fc" else False


def poisoned_like(n, dtype):
    """An output of *n* elements of *dtype* holding what no reduction gives by accident."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.full(n, np.nan, dtype)
    return np.full(n, 0x5A, dtype) if dtype.kind != "b" else np.ones(n, bool)
