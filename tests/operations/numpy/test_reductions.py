"""NumPy's reductions in kernels (operations/numpy/reductions.py): every reduction compiled to PTX
that ptxas accepts on both code generators, results computed by the generated code on the
host (tests/nrt_harness.py) against NumPy, NumPy's result types, typing errors, the code of
a reduction of a slice; and on the GPU, every dtype, layout, NaN and empty arrays, shared and
local arrays, and NumPy's exceptions under debug=True."""

import re

import numba
import numpy as np
import pytest
from numba.core import errors, types

from cumlir import compiler, cuda
from cumlir.codegen import targets
from cumlir.lowering.module import ModuleBuilder
from cumlir.options import Options
from cumlir.typing.context import typing_context

from ... import nrt_harness, support
from ...cases import reduction_kernels as rk

ARCHS = [(8, 0), (9, 0)]
HOST_DTYPES = [d for d in rk.DTYPES if d != "float16"]  # the host's JIT has no float16 conversions


def _argtypes(*arrays):
    return tuple(numba.typeof(a) for a in arrays)


def _scalar_argtypes(a):
    return _argtypes(a, *rk.outputs(a.dtype).values())


# ---- PTX ---------------------------------------------------------------------------------------


# a dtype of each kind (assembling every reduction of all fourteen takes ptxas minutes)
PTX_DTYPES = ["bool", "int16", "uint64", "float16", "float32", "complex128"]


def _entries(rng):
    entries = [(rk.scalar_reductions, _scalar_argtypes(rk.values(d, 4, rng))) for d in PTX_DTYPES]
    entries.append((rk.scalar_reductions, _scalar_argtypes(dict(rk.layouts("float64", rng))["a3"])))
    entries.append((rk.views, _argtypes(rng.standard_normal((3, 4)), np.zeros(6))))
    entries.append((rk.shared_and_local, _argtypes(np.zeros(32, np.float32), np.zeros((32, 5)))))
    return entries


@pytest.mark.corpus
@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_every_reduction_assembles(backend, cc, rng):
    builder = ModuleBuilder(typing_context(), Options(backend=backend))
    entries = support.corpus(_entries(rng), every=2)
    symbols = [builder.add_kernel(compiler.type_function(f, args)) for f, args in entries]
    with builder.context:
        ptx = compiler.run(compiler.from_module(builder, cc), "codegen").ptx
    assert len(set(symbols)) == len(entries)
    assert "NRT_" not in ptx  # the scalar reductions need no device runtime
    support.ptxas(ptx, targets.chip(cc))


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_allocating_reductions_link_with_the_runtime(backend, cc):
    for dtype in ("bool", "int32", "float16", "complex64"):
        out = np.zeros(3, np.cumsum(np.ones(1, dtype)).dtype)
        argtypes = _argtypes(np.zeros((2, 3), dtype), out, out)
        c = compiler.kernel(rk.cumulative, argtypes, cc, Options(nrt=True, backend=backend), until="cubin")
        assert c.cubin


def test_allocating_reductions_need_the_runtime():
    argtypes = _argtypes(np.zeros(3), np.zeros(3), np.zeros(3))
    with pytest.raises(errors.LoweringError, match="np.cumsum in device code needs NRT"):
        compiler.kernel(rk.cumulative, argtypes, (9, 0), Options(nrt=False), until="mlir")


def _slice_sum(a, out):
    i = cuda.grid(1)
    out[i] = a[i * 8 : (i + 1) * 8].sum()


def test_the_sum_of_a_slice_is_a_plain_loop():
    ptx, _ = cuda.compile_ptx(_slice_sum, "void(float32[::1], float32[::1])", cc=(9, 0))
    body = ptx[ptx.index(".entry") :]
    # one load and one add per element, unrolled; no division, no call, no allocation
    assert body.count("add.f32") >= 8 and body.count("ld.global") >= 8
    for absent in ("div.", "rem.", "call", "NRT_", "local"):
        assert absent not in body, absent


def test_debug_records_numpy_s_exceptions_for_empty_arrays():
    a = np.zeros(3)
    typed = compiler.type_function(rk.scalar_reductions, _scalar_argtypes(a))
    debug = compiler.kernel_ptx(typed, (9, 0), options=Options(debug=True))
    messages = {(s.exc_class, s.args) for s in debug.raise_sites}
    for message in (
        "zero-size array to reduction operation minimum which has no identity",
        "zero-size array to reduction operation maximum which has no identity",
        "zero-size array to reduction operation fmin which has no identity",
        "zero-size array to reduction operation fmax which has no identity",
        "attempt to get argmin of an empty sequence",
        "attempt to get argmax of an empty sequence",
    ):
        assert (ValueError, (message,)) in messages
    support.ptxas(debug.ptx)
    assert compiler.kernel_ptx(typed, (9, 0)).raise_sites == []


# ---- results, computed by the generated code on the host ------------------------------------------


@pytest.mark.parametrize("dtype", HOST_DTYPES)
def test_scalar_reductions_match_numpy_on_the_host(dtype, rng):
    for name, a in rk.layouts(dtype, rng):
        kernel = nrt_harness.Kernel(rk.scalar_reductions, _scalar_argtypes(a))
        cases = [(name, a)]
        if a.flags.c_contiguous:
            cases.append(("empty", a.reshape(-1)[:0].reshape((0,) + a.shape[1:])))
            if a.dtype.kind in "fc":
                cases += [("NaN", rk.with_nans(a, rng)), ("all NaN", rk.with_nans(a, rng, every=True))]
        for case, x in cases:
            outputs = rk.outputs(dtype)
            kernel(x, *outputs.values()).check_balanced()
            assert rk.check(x, outputs) == [], f"{dtype} {case}"


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float32", "complex128"])
def test_cumulative_reductions_match_numpy_on_the_host(dtype, rng):
    for name, a in rk.layouts(dtype, rng):
        result_dtype = np.cumsum(a[:1]).dtype
        sums, products = np.full(a.size, 7, result_dtype), np.full(a.size, 7, result_dtype)
        runtime = nrt_harness.Kernel(rk.cumulative, _argtypes(a, sums, products))(a, sums, products)
        runtime.check_balanced()
        assert runtime.stats["alloc"] == 2
        if result_dtype.kind in "fc":
            np.testing.assert_allclose(sums, np.cumsum(_wide(a)), rtol=1e-5, atol=1e-5, err_msg=name)
            np.testing.assert_allclose(products, np.cumprod(_wide(a)), rtol=1e-5, err_msg=name)
        else:
            np.testing.assert_array_equal(sums, np.cumsum(a), err_msg=name)
            np.testing.assert_array_equal(products, np.cumprod(a), err_msg=name)


def _wide(a):
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def test_views_and_arrays_made_in_the_kernel_on_the_host(rng):
    a = rng.standard_normal((5, 6))
    out = np.full(6, np.nan)
    nrt_harness.Kernel(rk.views, _argtypes(a, out))(a, out)
    wanted = [a[::2].sum(), a.T.max(), a[1:, ::-1].argmin(), np.mean(a[:, 1]), a[1].var(), np.nanmin(a[::-1, ::2])]
    np.testing.assert_allclose(out, wanted, rtol=1e-12)
    made = np.full(5, np.nan)
    runtime = nrt_harness.Kernel(rk.made_in_kernel, _argtypes(made))(made)
    runtime.check_balanced()
    np.testing.assert_array_equal(made, [45.0, 1.0, 2.5**5, 0.0, 6.0])


# ---- typing ------------------------------------------------------------------------------------


def _results(a):
    return (
        np.sum(a),
        np.prod(a),
        np.mean(a),
        np.var(a),
        a.std(),
        np.min(a),
        np.argmax(a),
        a.all(),
        np.nansum(a),
        np.nanmean(a),
        np.nanmax(a),
    )


@pytest.mark.parametrize("dtype", rk.DTYPES)
def test_result_types_are_numpy_s(dtype):
    a = types.Array(support.numba_type(dtype), 2, "A")
    typed = compiler.type_function(_results, (a,)).return_type
    ones = np.ones((2, 2), dtype)
    with np.errstate(all="ignore"):
        wanted = [np.sum(ones), np.prod(ones), np.mean(ones), np.var(ones), ones.std(), np.min(ones)]
        wanted += [np.argmax(ones), ones.all(), np.nansum(ones)]
        wanted += [np.mean(ones) if dtype == "bool" else np.nanmean(ones), np.nanmax(ones)]
    assert [support.dtype_of(t) for t in typed] == [np.asarray(w).dtype for w in wanted]


def test_cumulative_results_are_one_dimensional_arrays():
    def cumulative(a):
        return np.cumsum(a), a.cumprod()

    for dtype, element in (("int8", types.int64), ("uint16", types.uint64), ("float16", types.float16)):
        a = types.Array(support.numba_type(dtype), 3, "F")
        result = compiler.type_function(cumulative, (a,)).return_type
        assert list(result) == [types.Array(element, 1, "C")] * 2


def _axis_zero(a, out):
    out[0] = np.sum(a, axis=0)


def _method_axis(a, out):
    out[0] = a.max(1)


def _scalar_sum(x, out):
    out[0] = np.sum(x)


def _dtype_keyword(a, out):
    out[0] = np.mean(a, dtype=np.float64)


def _float_ddof(a, out):
    out[0] = np.var(a, ddof=0.5)


def _records(a, out):
    out[0] = a.min()


BAD_CALLS = [
    (_axis_zero, "float32[:]", r"np.sum: only axis=None is supported"),
    (_method_axis, "float32[:, :]", r"array.max\(\): only axis=None is supported"),
    (_scalar_sum, "float32", r"np.sum needs an array, got float32"),
    (_dtype_keyword, "float32[:]", r"np.mean: got an unexpected keyword argument 'dtype'"),
    (_float_ddof, "float32[:]", r"np.var: ddof must be an integer, got float64"),
]


@pytest.mark.parametrize("fn, arg, message", BAD_CALLS, ids=lambda x: getattr(x, "__name__", None))
def test_unsupported_calls_are_typing_errors(fn, arg, message):
    with pytest.raises(errors.TypingError, match=message):
        cuda.compile_ptx(fn, f"void({arg}, float64[:])", cc=(9, 0))


def test_arrays_of_records_are_refused_by_name():
    record = numba.from_dtype(np.dtype([("x", np.float32), ("y", np.int32)]))
    argtypes = (types.Array(record, 1, "C"), types.float64[:])
    with pytest.raises(errors.TypingError, match=re.escape("array.min() of an array of Record")):
        compiler.type_function(_records, argtypes)


# ---- on the GPU --------------------------------------------------------------------------------

_scalar_kernel = cuda.jit(rk.scalar_reductions)
_cumulative_kernel = cuda.jit(nrt=True)(rk.cumulative)


def _gpu_results(a, dtype):
    outputs = rk.outputs(dtype)
    _scalar_kernel[1, 1](a, *outputs.values())  # host outputs come back after the launch
    return outputs


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", rk.DTYPES)
def test_scalar_reductions_match_numpy_on_the_gpu(dtype, rng):
    a = rk.values(dtype, 301, rng)
    cases = [("random", a), ("empty", a[:0]), ("one", a[:1])]
    if a.dtype.kind in "fc":
        cases += [("NaN", rk.with_nans(a, rng)), ("all NaN", rk.with_nans(a[:9], rng, every=True))]
    for case, x in cases:
        assert rk.check(x, _gpu_results(x, dtype)) == [], case


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_every_layout_on_the_gpu(dtype, rng):
    for name, a in rk.layouts(dtype, rng):
        # views travel as device arrays, which keep their strides (host arrays are copied contiguous)
        x = cuda.to_device(a) if a.flags.c_contiguous or a.flags.f_contiguous else _device_view(a, name, rng)
        assert rk.check(a, _gpu_results(x, dtype)) == [], name


def _device_view(a, name, rng):
    """A device view with *a*'s values and layout, sliced as rk.layouts slices its host arrays."""
    if name == "a3":
        base = np.zeros((4, 6, 5), a.dtype)
        base[::2, 1:5, ::-2] = a
        return cuda.to_device(base)[::2, 1:5, ::-2]
    base = np.zeros(40, a.dtype)
    base[3::3] = a
    return cuda.to_device(base)[3::3]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float16", "float64", "complex128"])
def test_cumulative_reductions_on_the_gpu(dtype, rng):
    a = np.asfortranarray(rk.values(dtype, (5, 7), rng))
    result_dtype = np.cumsum(a[:1]).dtype
    sums, products = rk.poisoned_like(a.size, result_dtype), rk.poisoned_like(a.size, result_dtype)
    _cumulative_kernel[1, 1](a, sums, products)
    if result_dtype.kind in "fc":
        tolerance = 1e-2 if dtype == "float16" else 1e-6
        np.testing.assert_allclose(sums, np.cumsum(a), rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(products, np.cumprod(a), rtol=tolerance)
    else:
        np.testing.assert_array_equal(sums, np.cumsum(a))
        np.testing.assert_array_equal(products, np.cumprod(a))


@pytest.mark.gpu
def test_views_and_arrays_made_in_the_kernel_on_the_gpu(rng):
    a = rng.standard_normal((5, 6))
    out = np.full(6, np.nan)
    cuda.jit(rk.views)[1, 1](a, out)
    wanted = [a[::2].sum(), a.T.max(), a[1:, ::-1].argmin(), np.mean(a[:, 1]), a[1].var(), np.nanmin(a[::-1, ::2])]
    np.testing.assert_allclose(out, wanted, rtol=1e-12)
    made = np.full(5, np.nan)
    cuda.jit(nrt=True)(rk.made_in_kernel)[1, 1](made)
    np.testing.assert_array_equal(made, [45.0, 1.0, 2.5**5, 0.0, 6.0])


@pytest.mark.gpu
def test_shared_and_local_arrays_on_the_gpu(rng):
    threads = rk.SHARED_SHAPE[0] * rk.SHARED_SHAPE[1]
    a = rng.uniform(-1.0, 1.0, threads).astype(np.float32)
    out = np.full((threads, 5), np.nan)
    cuda.jit(rk.shared_and_local)[1, threads](a, out)
    np.testing.assert_allclose(out, rk.shared_and_local_reference(a, threads), rtol=1e-5, atol=1e-5)


def _minimum(a, out):
    out[0] = a.min()


def _position(a, out):
    out[0] = np.argmax(a)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "fn, message",
    [
        (_minimum, "zero-size array to reduction operation minimum which has no identity"),
        (_position, "attempt to get argmax of an empty sequence"),
    ],
)
def test_empty_arrays_raise_numpy_s_error_with_debug(fn, message):
    out = np.zeros(1)
    with pytest.raises(ValueError, match=message):
        cuda.jit(debug=True, opt=False)(fn)[1, 1](np.zeros(0), out)
    cuda.jit(fn)[1, 1](np.zeros(0), out)  # without debug: the documented identity
    assert out[0] == (np.inf if fn is _minimum else 0)
