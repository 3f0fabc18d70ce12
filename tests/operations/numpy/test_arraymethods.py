"""Array methods and NumPy functions in device code: typing as NumPy's, PTX on both code
generators, the generated code run on the host (tests/nrt_harness.py) against NumPy,
bad inputs refused by name, and (``gpu``) the kernels against NumPy on the GPU."""

import functools

import numpy as np
import pytest
from numba import typeof
from numba.core import types
from numba.core.errors import TypingError
from numba.np import numpy_support

from cumlir import compiler, cuda
from cumlir.types import bfloat16

from ... import support
from ...cases import array_method_kernels as am

ARCHS = [(8, 0), (9, 0)]


# ---- the launches both tiers check -----------------------------------------------------------


def _launch(case, inputs, outputs=None, tolerance=0.0):
    """A case, its outputs (NumPy's results' shapes and dtypes where not given) and inputs."""
    if outputs is None:
        outputs = am.shaped_outputs(*_numpy_results(case, inputs))
    return am.Launch(case, outputs, list(inputs), tolerance)


def _numpy_results(case, inputs):
    """The arrays NumPy's own expressions of the case give (they size the outputs)."""
    probes = {
        am.where_arrays: lambda c, x, y: [np.where(c, x, y)],
        am.where_scalar: lambda x, y: [np.where(x > y, x, 3)],
        am.where_expression: lambda x: [np.where(x[::2] != 0, 1.5, x[::2])],
        am.clip_both: lambda a, lo, hi: [np.clip(a, lo, hi)] * 2,
        am.clip_one_side: lambda a, b: [np.clip(a, b, None)] * 2,
        am.ravel_flatten: lambda a: [a.ravel()] * 3,
        am.ravel_strided: lambda big: [big[::2, 1::2].ravel()] * 2,
        am.array_from_tuples: lambda xs, k: [
            np.array((xs[0], 2.5, k)),
            np.zeros((3, 2), np.float32),
            np.array((k, 3, k)),
        ],
    }
    return probes[case](*inputs)


ASTYPE_TARGETS = ("int32", "uint8", "float32", "float64", "complex128", "bool")


def launches(rng, dtypes, fewer=False):
    """Every case over *dtypes*: C, F and strided inputs, 1-d and 2-d, scalars and arrays.
    *fewer*: each dtype converted to two targets, one layout of each (the GPU compiles less)."""
    out = []
    for position, d in enumerate(dtypes):
        a = am.values(d, (5, 6), rng)

        def some(options, count=1, position=position):
            return [options[(position + k) % len(options)] for k in range(count)] if fewer else list(options)

        for layout in some(am.layouts(a)):
            out.append(_launch(am.fill_whole, [layout.copy(order="K"), am.fill_value(d)], outputs=[]))
            out.append(_launch(am.ravel_flatten, [layout]))
        out.append(_launch(am.fill_views, [a.copy(), am.fill_value(d)], outputs=[]))
        out.append(_launch(am.ravel_flatten, [a[1]]))
        out.append(_launch(am.ravel_strided, [a]))
        out.append(_launch(am.ravel_writes_through, [a.copy(), a.ravel()[:1]], outputs=[]))
        real_targets = [t for t in ASTYPE_TARGETS if np.dtype(d).kind != "c" or np.dtype(t).kind == "c"]
        for target in some(real_targets, 2):  # complex to real: NumPy warns and drops the imaginary part; numba refuses
            source = np.abs(a) if np.dtype(target).kind == "u" else a
            for layout in some(am.layouts(source)):
                out.append(_launch(am.astype_to(target), [layout], outputs=[np.empty(a.shape, target)]))
        if np.dtype(d).kind != "c":
            out.append(_launch(am.astype_strided_to_string, [a], outputs=[np.empty((2, 2), np.float64)]))
        c = am.values("bool", (5, 6), rng)
        y = am.values(d, (6,), rng)
        for layout in some(am.layouts(a)):
            out.append(_launch(am.where_arrays, [c, layout, y]))
        out.append(_launch(am.where_arrays, [c[::2, ::2], a[::2, ::2], y[::2]]))
        out.append(_launch(am.where_expression, [a[0]]))
        if np.dtype(d).kind in "iuf":
            out.append(_launch(am.where_scalar, [a, y]))
            lo, hi = am.values(d, (6,), rng, -20, 5), 20
            for layout in some(am.layouts(a)):
                out.append(_launch(am.clip_both, [layout, lo, hi]))
            out.append(_launch(am.clip_both, [a[::2, 1::2], lo[1::2], hi]))
            for bound in some([(a, 10), (a.T, lo[:5])]):
                out.append(_launch(am.clip_one_side, list(bound)))
        b = am.values(d, (9,), rng, -5, 5, integral=True)
        for other in some(("float64", "int32", d), 2):
            v = am.values(other, (9,), rng, -5, 5, integral=True)
            out.append(_launch(am.dot_1d, [b, v], outputs=[np.empty(4, np.result_type(b.dtype, v.dtype))]))
    out.append(_launch(am.array_from_tuples, [np.array([0.25]), 7]))
    for a in am.layouts(am.values("float64", (3, 4), rng)):
        results = [np.empty(a.shape, np.int16), np.empty(a.shape), np.empty((), np.float64)]
        out.append(_launch(am.array_from_arrays, [a, 9], outputs=results))
    eps = float(np.finfo(np.float64).eps)
    for start, stop, n in ((0.0, 1.0, 7), (-3, 11.5, 13), (2.5, 2.5, 4), (1.0, -1.0, 1), (0.0, 1.0, 0)):
        bounds = np.array([start, stop], np.float64)
        out.append(_launch(am.linspace_rows, [bounds, n], outputs=[np.zeros((3, 50))], tolerance=4 * eps))
    return out


def _run_and_compare(launch, run):
    """Run the launch by *run(outputs, inputs)* on poisoned outputs and copies of its inputs,
    and compare with NumPy's run on the same."""
    poisoned = [support.poisoned(o.size, o.dtype).reshape(o.shape) for o in launch.outputs]
    expected_outputs, expected_inputs = am.host_run(launch.case, poisoned, launch.inputs)
    outputs = [o.copy() for o in poisoned]
    inputs = [i.copy(order="K") if isinstance(i, np.ndarray) else i for i in launch.inputs]
    run(outputs, inputs)
    _compare(launch, outputs, expected_outputs)
    for got, expected in zip(inputs, expected_inputs):  # fill and ravel write into their input
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, expected, err_msg=launch.case.__name__)


def _compare(launch, got, expected):
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, (launch.case.__name__, g.dtype, e.dtype)
        if launch.tolerance:
            magnitudes = np.abs(np.asarray(e, np.complex128))
            scale = magnitudes.max(initial=1.0, where=np.isfinite(magnitudes))
            np.testing.assert_allclose(g, e, rtol=0, atol=launch.tolerance * scale, err_msg=launch.case.__name__)
        else:
            np.testing.assert_array_equal(g, e, err_msg=launch.case.__name__)


def _argtypes(launch):
    return tuple(typeof(v) for v in launch.outputs + launch.inputs)


def _distinct(all_launches):
    """One launch per (case, argument types): what compiling needs to see."""
    seen = {}
    for launch in all_launches:
        seen.setdefault((launch.case, _argtypes(launch)), launch)
    return list(seen.values())


# ---- PTX -------------------------------------------------------------------------------------


@functools.cache
def _typed_cases():
    rng = np.random.default_rng(1)
    cases = _distinct(launches(rng, ["int8", "float16", "complex64"]))
    return [compiler.type_function(launch.case, _argtypes(launch)) for launch in cases]


@pytest.mark.corpus
@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_every_case_assembles(cc, backend):
    from cumlir.lowering.module import ModuleBuilder
    from cumlir.options import Options
    from cumlir.typing.context import typing_context

    builder = ModuleBuilder(typing_context(), Options(nrt=True, backend=backend))
    assert len(_typed_cases()) > 80
    symbols = [builder.add_kernel(typed) for typed in support.corpus(_typed_cases(), every=2)]
    with builder.context:
        ptx = compiler.run(compiler.from_module(builder, cc), "codegen").ptx
    assert len(set(symbols)) == len(symbols)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}", relocatable=True)  # the runtime is linked later


MEMORY_ARGTYPES = (types.float32[::1], types.int16[::1], types.int32[::1], types.float64)


def test_shared_and_local_arrays_assemble(backend):
    ptx, _ = cuda.compile_ptx(am.memory_arrays, MEMORY_ARGTYPES, cc=(9, 0), nrt=True, backend=backend)
    support.ptxas(ptx, relocatable=True)


def test_fill_and_ravel_of_shared_and_local_arrays_need_no_nrt():
    def k(out, value):
        s = cuda.shared.array((4, 8), np.float32)
        t = cuda.local.array((3, 5), np.int16)
        s.fill(value)
        t.fill(value)
        out[0, :] = s.ravel()[:15]
        out[1, :] = t.ravel()

    ptx, _ = cuda.compile_ptx(k, (types.float64[:, ::1], types.float64), cc=(9, 0), nrt=False)
    support.ptxas(ptx)
    assert "NRT_MemInfo_alloc" not in ptx


# ---- the generated code run on the host ------------------------------------------------------


@pytest.mark.corpus
def test_generated_code_gives_numpy_results(rng):
    from ... import nrt_harness

    kernels = {}
    for launch in support.corpus(launches(rng, am.HOST_DTYPES), every=2):
        key = (launch.case, _argtypes(launch))
        if key not in kernels:
            kernels[key] = nrt_harness.Kernel(launch.case, key[1])

        def run(outputs, inputs, kernel=kernels[key]):
            kernel(*outputs, *inputs).check_balanced()

        _run_and_compare(launch, run)


def test_ravel_of_c_arrays_is_a_view_without_nrt():
    def k(out, a):
        out[...] = a.ravel()

    ptx, _ = cuda.compile_ptx(k, (types.float32[::1], types.float32[:, ::1]), cc=(9, 0), nrt=False)
    assert "NRT_MemInfo_alloc" not in ptx
    for argtype in (types.float32[::1, :], types.float32[:, :]):
        with pytest.raises(Exception, match="NRT"):
            cuda.compile_ptx(k, (types.float32[::1], argtype), cc=(9, 0), nrt=False)


def test_fill_needs_no_nrt():
    ptx, _ = cuda.compile_ptx(am.fill_views, (types.int8[:, :], types.float64[:]), cc=(9, 0), nrt=False)
    support.ptxas(ptx)


# ---- typing: NumPy's result types ------------------------------------------------------------


def _typed(source, argtypes):
    from cumlir import compiler

    namespace = {"np": np}
    exec(f"def f({', '.join(f'a{k}' for k in range(len(argtypes)))}):\n    r = {source}\n", namespace)
    return compiler.type_function(namespace["f"], argtypes).typemap["r"]


@pytest.mark.parametrize(
    "source, argtypes, host",
    [
        ("np.where(a0, a1, a2)", (types.bool_[:], types.int8[:], types.uint16[:]), lambda: np.int32),
        ("np.where(a0, a1, 0)", (types.bool_[:, :], types.float32[:]), lambda: np.float32),
        ("np.where(a0, a1, a2)", (types.bool_[:], types.float16[:], types.complex64[:]), lambda: np.complex64),
        ("np.clip(a0, 0, 1)", (types.float32[:],), lambda: np.float32),
        ("np.clip(a0, 0.5, 2.5)", (types.int32[:],), lambda: np.float64),
        ("np.clip(a0, a1, 3)", (types.uint8[:], types.int16[:]), lambda: np.int16),
        ("np.dot(a0, a1)", (types.int8[:], types.uint8[:]), lambda: np.int16),
        ("a0 @ a1", (types.float32[:], types.complex64[:]), lambda: np.complex64),
        ("a0.astype(np.uint16)", (types.float32[:, :],), lambda: np.uint16),
        ("a0.astype('float16')", (types.int32[:],), lambda: np.float16),
        ("np.array((1, 2.0, True))", (), lambda: np.float64),
        ("np.array((a0, 1))", (types.float32,), lambda: np.float64),
        ("np.asarray(((1, 2), (3, 4)), dtype=np.uint8)", (), lambda: np.uint8),
        ("np.linspace(0, 1, 5)", (), lambda: np.float64),
    ],
)
def test_result_dtypes_are_numpys(source, argtypes, host):
    result = _typed(source, argtypes)
    dtype = result.dtype if isinstance(result, types.Array) else result
    assert numpy_support.as_dtype(dtype) == np.dtype(host()), (source, result)


def test_result_shapes_and_layouts():
    assert _typed("a0.astype(np.int32)", (types.float64[::1, :],)) == types.int32[::1, :]
    assert _typed("a0.astype(np.int32)", (types.float64[:, :],)) == types.int32[:, ::1]
    assert _typed("a0.ravel()", (types.float64[:, :, ::1],)) == types.float64[::1]
    assert _typed("a0.flatten()", (types.float64[::1, :],)) == types.float64[::1]
    assert _typed("np.where(a0, a1, a2)", (types.bool_, types.float64[:, :, :], types.float64[:])).ndim == 3
    assert _typed("np.where(a0, a1, a2)", (types.bool_, types.float64, types.int64)) == types.float64
    assert _typed("np.asarray(((1, 2), (3, 4)))", ()) == types.int64[:, ::1]
    assert _typed("np.asarray(a0)", (types.float32[:, :],)) == types.float32[:, :]
    assert _typed("np.asarray(a0, dtype=np.int8)", (types.float32[::1, :],)) == types.int8[::1, :]
    assert _typed("np.array(a0)", (types.float32[:, :],)) == types.float32[:, ::1]
    assert _typed("np.array(a0)", (types.float32,)) == types.Array(types.float32, 0, "C")
    assert _typed("np.dot(a0, a1)", (types.float32[:], types.float64[::1])) == types.float64


# ---- bad inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, argtypes, match",
    [
        ("a0.astype(a1.dtype)", (types.float64[:], types.Array(typeof(np.zeros(1, "i4,f8")[0]), 1, "C")), "astype"),
        ("np.where(a0)", (types.bool_[:],), "np.where\\(condition\\) with one argument"),
        ("np.where(a0, a1, a2)", (types.UniTuple(types.int64, 2), types.float64[:], types.float64), "condition"),
        ("np.dot(a0, a1)", (types.float64[:, :], types.float64[:]), "np.dot of a 2-d and a 1-d array"),
        ("a0.dot(a1)", (types.float64[:], types.float64), "array.dot takes two 1-d arrays"),
        ("np.linspace(0, 1, a0)", (types.float64,), "np.linspace: num must be an integer"),
        ("np.clip(a0, None, None)", (types.float64[:],), "np.clip: give a_min, a_max or both"),
        ("np.clip(a0, 0, 1, a0)", (types.float64[:],), "np.clip: out= is not supported"),
        ("np.clip(a0, 0, 1)", (types.complex64[:],), "np.clip of complex numbers"),
        ("a0.fill(a0)", (types.float64[:],), "array.fill\\(\\) takes a number"),
        ("a0.fill(a1)", (types.float64[:], types.complex64), "array.fill\\(\\) of a complex value"),
        ("np.array(((1, 2), (3,)))", (), "np.array: the rows"),
        ("np.where(a0, a1, a1)", (types.bool_[:], types.Array(bfloat16, 1, "C")), "np.where of bfloat16"),
        ("np.array((1j, 2), dtype=np.float64)", (), "np.array: complex values into dtype float64"),
        ("np.asarray(a0, dtype=np.int8)", (types.complex64[:],), "np.asarray: complex values into dtype int8"),
        ("a0.astype(np.int32, copy=False)", (types.float64[:],), "array.astype\\(\\) does not take the arguments"),
        ("a0.ravel('K')", (types.float64[:, :],), "array.ravel: order='K' of array\\(float64, 2d, A\\)"),
        ("a0.ravel('C', 1)", (types.float64[:, :],), "array.ravel: too many positional arguments"),
        ("np.array(())", (), "np.array in device code takes an array, a number or a non-empty tuple"),
    ],
)
def test_bad_inputs_are_typing_errors_naming_the_function(source, argtypes, match):
    with pytest.raises(TypingError, match=match):
        _typed(source, argtypes)


def test_astype_to_a_record_dtype_names_it():
    record = np.dtype([("x", np.int32), ("y", np.float64)])

    def k(out, a):
        out[0] = a.astype(record)[0].x

    with pytest.raises(TypingError, match="astype"):
        cuda.compile_ptx(k, (types.int32[:], types.float64[:]), cc=(9, 0), nrt=True)


# ---- on the GPU ------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.numba_cuda_differs  # result dtypes by NumPy 2's rules for Python scalars, numba's differ
def test_kernels_match_numpy_on_the_gpu(rng):
    kernels = {}
    for launch in launches(rng, am.GPU_DTYPES, fewer=True):
        if launch.case not in kernels:
            kernels[launch.case] = cuda.jit(nrt=True)(launch.case)
        kernel = kernels[launch.case]
        _run_and_compare(launch, lambda outputs, inputs, kernel=kernel: kernel[1, 1](*outputs, *inputs))


@pytest.mark.gpu
def test_shared_and_local_arrays_on_the_gpu():
    expected = am.memory_arrays_reference(2.5)
    outputs = [support.poisoned(e.size, e.dtype) for e in expected]
    cuda.jit(nrt=True)(am.memory_arrays)[1, 1](*outputs, 2.5)
    for got, want in zip(outputs, expected):
        np.testing.assert_array_equal(got, want)
