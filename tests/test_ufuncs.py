"""GPU ufuncs on the CPU: signatures and the choice among them, broadcasting and the device
views kernels read, gufunc layouts, errors raised before any launch, and the PTX of the
generated kernels on both back ends (assembled by ptxas)."""

import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.runtime.devicearray import DeviceNDArray
from cumlir.runtime.ufunc_args import broadcast_shape, broadcast_view, coalesce
from cumlir.ufunc_kernels import choose_signature, parse_layout

from . import support
from .cases import ufunc_cases as cases

D = np.dtype


# ---- the ufunc objects ---------------------------------------------------------------------


def test_ufunc_attributes():
    assert cases.fused.__name__ == "fused"
    assert (cases.fused.nin, cases.fused.nout, cases.fused.nargs) == (3, 1, 4)
    assert cases.fused.types == ["fff->f", "ddd->d"]
    assert cases.fused.ntypes == 2
    assert cases.less.types == ["ll->?", "dd->?"]
    assert cases.lazy_hypot.ntypes == 0  # compiled per call
    assert (cases.matmul.nin, cases.matmul.nout) == (2, 1)
    assert cases.matmul.types == ["ff->f", "dd->d"]
    assert cases.dot.types == ["dd->d", "ll->l"]


def test_numba_spelling_with_target():
    ufunc = cuda.vectorize(["int32(int32)"], target="cuda")(lambda x: x + 1)
    assert ufunc.types == ["i->i"]
    with pytest.raises(ValueError, match="target='cuda'"):
        cuda.vectorize(["int32(int32)"], target="cpu")


def test_unknown_option():
    with pytest.raises(TypeError, match="vectorize"):
        cuda.vectorize(["int32(int32)"], bogus=True)


# ---- choosing a signature ------------------------------------------------------------------


SIGS = [(D("int32"), D("int32")), (D("int64"), D("int64")), (D("float32"), D("float32")), (D("float64"), D("float64"))]


@pytest.mark.parametrize(
    "operands, expected",
    [
        ([(D("int64"), None), (D("int64"), None)], SIGS[1]),  # exact
        ([(D("int8"), None), (D("int16"), None)], SIGS[0]),  # first safe: int32
        ([(D("uint32"), None), (D("int32"), None)], SIGS[1]),  # uint32 is not safe as int32
        ([(D("int32"), None), (D("float32"), None)], SIGS[3]),  # int32 -> float32 is not safe
        ([(D("float32"), None), (D("float16"), None)], SIGS[2]),
        ([(D("float32"), None), (D("int64"), 3)], SIGS[2]),  # a Python int fits float32
        ([(D("int32"), None), (D("int64"), 2**40)], SIGS[1]),  # 2**40 does not fit int32
        ([(D("int32"), None), (D("float64"), 0.5)], SIGS[3]),  # a Python float needs a float type
        ([(D("int32"), None), (D("bool"), True)], SIGS[0]),
    ],
)
def test_choose_signature(operands, expected):
    assert choose_signature(SIGS, operands) == expected


def test_choose_signature_none_fits():
    assert choose_signature(SIGS[:2], [(D("float32"), None), (D("float32"), None)]) is None
    assert choose_signature(SIGS, [(D("complex64"), None), (D("float32"), None)]) is None


def test_call_with_uncovered_dtypes_raises_before_launch():
    with pytest.raises(TypeError, match=r"no signature accepts inputs of dtypes \(complex64, complex64, float32\)"):
        cases.fused(np.ones(3, np.complex64), np.ones(3, np.complex64), np.ones(3, np.float32))
    with pytest.raises(TypeError, match="signatures: ll->\\?, dd->\\?"):
        cases.less(np.ones(3, np.complex128), np.ones(3))


def test_wrong_number_of_arguments():
    with pytest.raises(TypeError, match="takes 3 inputs, got 2"):
        cases.fused(np.ones(3, np.float32), np.ones(3, np.float32))


def test_function_that_does_not_type_fails_at_decoration():
    def bad(x):
        return x.no_such_attribute

    with pytest.raises(TypingError):
        cuda.vectorize(["float32(float32)"])(bad)


def test_function_returning_nothing_is_refused():
    def nothing(x):
        pass

    with pytest.raises(TypeError, match="returns nothing"):
        cuda.vectorize([(types.float32,)])(nothing)  # no declared result: inferred
    with pytest.raises(TypingError, match="No conversion from none to float32"):
        cuda.vectorize(["float32(float32)"])(nothing)


def test_signature_with_wrong_arity():
    with pytest.raises(TypeError, match="takes 2 arguments"):
        cuda.vectorize(["float32(float32)"])(lambda a, b: a + b)


# ---- broadcasting --------------------------------------------------------------------------


def test_broadcast_shape():
    assert broadcast_shape([(3, 1), (4,), ()]) == (3, 4)
    assert broadcast_shape([(2, 1, 5), (7, 1)]) == (2, 7, 5)
    with pytest.raises(ValueError, match=r"could not be broadcast together with shapes \(3,\) \(4,\)"):
        broadcast_shape([(3,), (4,)])


def test_non_broadcastable_call_raises_before_launch():
    with pytest.raises(ValueError, match="could not be broadcast"):
        cases.fused(np.ones((2, 3), np.float32), np.ones(4, np.float32), np.ones(1, np.float32))


def _fake_device_array(shape, dtype, strides=None):
    # a device array over made-up memory: views only compute shapes and strides
    return DeviceNDArray(shape, strides, dtype, gpu_data=object(), pointer=0x10000)


def test_broadcast_view_strides():
    a = _fake_device_array((3, 1), np.float32)
    view = broadcast_view(a, (2, 3, 4))
    assert view.shape == (2, 3, 4)
    assert view.strides == (0, 4, 0)
    assert view.device_pointer == a.device_pointer
    strided = _fake_device_array((5,), np.float64, strides=(24,))
    assert broadcast_view(strided, (2, 5)).strides == (0, 24)


def test_coalesce_merges_axes_every_operand_steps_over_as_one():
    a, c = _fake_device_array((2, 3, 4), np.float32), _fake_device_array((2, 3, 4), np.float32)
    assert [(v.shape, v.strides) for v in coalesce([a, c])] == [((24,), (4,))] * 2
    row = broadcast_view(_fake_device_array((4,), np.float32), (2, 3, 4))
    # the repeated row keeps its own innermost axis; the two outer axes merge
    assert [(v.shape, v.strides) for v in coalesce([a, row])] == [((6, 4), (16, 4)), ((6, 4), (0, 4))]
    transposed = _fake_device_array((4, 6), np.float32).transpose()
    assert coalesce([transposed, _fake_device_array((6, 4), np.float32)])[0].strides == (4, 24)


def test_out_of_wrong_shape_or_dtype_raises_before_launch():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"out has shape \(3, 2\)"):
        cases.fused(x, x, x, out=np.empty((3, 2), np.float32))
    with pytest.raises(TypeError, match="out has dtype int32"):
        cases.fused(x, x, x, out=np.empty((2, 3), np.int32))
    with pytest.raises(ValueError, match="read-only"):
        ro = np.empty((2, 3), np.float32)
        ro.flags.writeable = False
        cases.fused(x, x, x, out=ro)


# ---- generalized ufunc layouts -----------------------------------------------------------


def test_parse_layout():
    assert parse_layout("(m,n),(n,p)->(m,p)") == ([("m", "n"), ("n", "p")], [("m", "p")])
    assert parse_layout("(n),()->()") == ([("n",), ()], [()])
    assert parse_layout(" (n) , (n) -> () ") == ([("n",), ("n",)], [()])
    with pytest.raises(ValueError, match="no input has: q"):
        parse_layout("(n)->(q)")
    with pytest.raises(ValueError, match="looks like"):
        parse_layout("(n)")


def test_gufunc_signature_must_match_layout():
    with pytest.raises(TypeError, match="core axes"):
        cuda.guvectorize(["void(float64[:,:], float64[:])"], "(n)->(n)")(lambda a, b: None)


def test_gufunc_core_dimension_mismatch_raises_before_launch():
    with pytest.raises(ValueError, match="core dimension n is 3 in an earlier argument but 4 in argument 1"):
        cases.matmul(np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(ValueError, match="needs at least 2 core axes"):
        cases.matmul(np.ones(3), np.ones((3, 3)))


def test_gufunc_loop_dimensions_must_broadcast():
    with pytest.raises(ValueError, match="loop dimensions"):
        cases.dot(np.ones((2, 3)), np.ones((4, 3)))


def test_gufunc_uncovered_dtype():
    with pytest.raises(TypeError, match=r"no signature accepts inputs of dtypes \(complex128, complex128\)"):
        cases.dot(np.ones(3, np.complex128), np.ones(3, np.complex128))


# ---- PTX of the generated kernels ----------------------------------------------------------


def _compile(dispatcher, argtypes, backend, cc=(9, 0)):
    ptx, _ = cuda.compile_ptx(dispatcher.py_func, argtypes, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    return ptx


def _array(dtype, ndim, layout="C"):
    return types.Array(support.numba_type("bool" if dtype == "bool" else dtype), ndim, layout)


@pytest.mark.parametrize("dtype", cases.NUMERIC_DTYPES)
def test_vectorize_ptx_every_dtype(backend, dtype):
    kernel = cases.twice_plus.kernel((D(dtype), D(dtype)))
    _compile(kernel, (_array(dtype, 1), _array(dtype, 1), _array(dtype, 1)), backend)


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_vectorize_ptx_broadcast_strided_scalar_and_conversions(backend, cc):
    kernel = cases.fused.kernel((D("float32"),) * 3)
    # a 3-d broadcast view (layout A), an int16 array converted in the kernel, a scalar
    argtypes = (_array("float32", 3, "A"), _array("int16", 3, "C"), types.float32, _array("float32", 3, "A"))
    ptx = _compile(kernel, argtypes, backend, cc)
    assert "cvt.rn.f32.s16" in ptx
    # a grid-stride loop: every thread steps by the whole grid
    assert "%nctaid.x" in ptx


def _first_store_block(ptx):
    """The PTX of the kernel's first basic block holding a global store."""
    blocks = re.split(r"^\$L\w+:", ptx.split(".entry", 1)[1], flags=re.M)
    return next(block for block in blocks if "st.global" in block)


@pytest.mark.parametrize("ndim, layout", [(1, "C"), (2, "A")])
def test_vectorize_issues_four_iterations_loads_before_their_stores(backend, ndim, layout):
    # memory-bound ufuncs need loads in flight: the loop runs four elements a thread at a
    # time, the twelve loads of the three inputs before the first store
    kernel = cases.fused.kernel((D("float32"),) * 3)
    ptx = _compile(kernel, (_array("float32", ndim, layout),) * 4, backend)
    block = _first_store_block(ptx)
    assert block.count("st.global") == 4
    assert block[: block.index("st.global")].count("ld.global") == 12


def test_vectorize_ptx_boolean_result(backend):
    kernel = cases.less.kernel((D("float64"), D("float64")))
    _compile(kernel, (_array("float64", 2), _array("float64", 2), _array("bool", 2)), backend)


def test_vectorize_mlir_holds_linalg_then_grid_stride_loop():
    from cumlir import compiler

    kernel = cases.fused.kernel((D("float32"),) * 3)
    argtypes = [_array("float32", 2, "A")] * 4
    c = compiler.kernel(kernel.py_func, argtypes, (9, 0), until="mlir")
    assert "linalg.generic" in str(c.module)
    compiler.run(c, "optimized")
    text = str(c.module)
    assert "linalg.generic" not in text and "scf.parallel" not in text
    assert "nvvm.read.ptx.sreg.nctaid.x" in text


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_guvectorize_matmul_ptx(backend, dtype, cc):
    kernel = cases.matmul.kernel((D(dtype), D(dtype)), 2)
    _compile(kernel, (_array(dtype, 4, "A"),) * 3, backend, cc)


@pytest.mark.parametrize("layout", "ACF")  # launches from contiguous arrays type C or F operands
def test_guvectorize_dot_and_scalar_layout_ptx(backend, layout):
    _compile(cases.dot.kernel((D("int64"), D("int64")), 1), (_array("int64", 2, layout),) * 3, backend)
    _compile(
        cases.scaled.kernel((D("float64"), D("float64")), 2),
        (_array("float64", 3, layout), _array("float64", 2, layout), _array("float64", 3, layout)),
        backend,
    )
    _compile(cases.matmul.kernel((D("float32"), D("float32")), 1), (_array("float32", 3, layout),) * 3, backend)


@pytest.mark.parametrize("dtype", cases.NUMERIC_DTYPES + ["bool"])
def test_reduce_ptx(backend, dtype):
    from numba.np import numpy_support

    kernel = cases.sum_reduce._kernel(D(dtype))
    nb = numpy_support.from_dtype(D(dtype))
    ptx = _compile(kernel, (types.Array(nb, 1, "A"), types.int64, types.Array(nb, 1, "C"), nb, types.boolean), backend)
    assert "bar.sync" in ptx  # the block's tree in shared memory


def test_reduce_refuses_non_1d_and_bad_res():
    with pytest.raises(TypeError, match="1-d arrays"):
        cases.sum_reduce(np.ones((2, 2)))
    with pytest.raises(TypeError, match="1-d arrays"):
        cases.sum_reduce(3.0)


def test_reduce_of_empty_array_is_init():
    assert cases.sum_reduce(np.zeros(0, np.float32), init=2.5) == np.float32(2.5)


def test_package_level_spelling():
    import cumlir

    assert cumlir.vectorize is cuda.vectorize and cumlir.guvectorize is cuda.guvectorize
    dot = cumlir.guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),(n)->()", target="cuda")(cases.dot.py_func)
    assert dot.types == ["ii->i"]


CLI_SOURCE = """
from cumlir import cuda

@cuda.vectorize(["float32(float32, float32)"])
def axpy(a, b):
    return 2 * a + b

@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, out):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc
"""


@pytest.mark.parametrize(
    "name, sig, stage, marker",
    [
        ("axpy", "float32(float32, float32)", "mlir", "linalg.generic"),
        ("axpy", "float32(float32, float32)", "optimized", "nvvm.read.ptx.sreg.nctaid.x"),
        ("axpy", "float32(float32, float32)", "ptx", ".visible .entry vectorize_axpy("),
        ("dot", "void(float64[:], float64[:], float64[:])", "mlir", "scf.parallel"),
        ("dot", "void(float64[:], float64[:], float64[:])", "ptx", ".visible .entry guvectorize_dot("),
    ],
)
def test_command_line_emits_ufunc_kernels(tmp_path, capsys, name, sig, stage, marker):
    from cumlir.__main__ import main

    source = tmp_path / "ufuncs_cli.py"
    source.write_text(CLI_SOURCE)
    assert main([str(source), name, "--sig", sig, "--emit", stage]) == 0
    assert marker in capsys.readouterr().out


def test_ufunc_reduce_errors_before_launch():
    with pytest.raises(TypeError, match="binary ufunc"):
        cases.fused.reduce(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="empty"):
        cases.twice_plus.reduce(np.ones(0))
    with pytest.raises(TypeError, match="1-d array"):
        cases.twice_plus.reduce(np.ones((2, 2)))
    with pytest.raises(TypeError, match="no signature accepts"):
        cases.less.reduce(np.ones(4, np.complex64))


def test_the_gpu_tests_check_of_x_times_y_plus_z_tells_right_from_wrong():
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(1000).astype(np.float32) for _ in range(3))
    cases.check_fused(x * y + z, x, y, z, np.float32)  # two roundings
    cases.check_fused((x.astype(np.float64) * y + z).astype(np.float32), x, y, z, np.float32)  # one
    with pytest.raises(AssertionError):
        cases.check_fused(x * y - z, x, y, z, np.float32)
    with pytest.raises(AssertionError):
        cases.check_fused(np.nextafter(x * y + z, np.inf, dtype=np.float32) * 1.0001, x, y, z, np.float32)


# ---- the host side of calls, on an emulated device -------------------------------------------
# Device memory is host memory here and a launch runs the ufunc's Python function over the
# views the kernel would get, element by element (or loop position by position): this checks
# what the runtime hands the kernels (broadcast and merged views, scalars, outputs, copies
# back), not the kernels themselves (the gpu tests run those).


class _HostMemory:
    def __init__(self, nbytes):
        self.buffer = np.zeros(max(nbytes, 1), np.uint8)
        self.pointer = self.buffer.ctypes.data
        self.nbytes = nbytes


def _host_view(array):
    import ctypes

    from cumlir.runtime.layout import byte_extent

    low, high = byte_extent(array.shape, array.strides, array.itemsize)
    raw = (ctypes.c_char * max(high - low, 1)).from_address(array.device_pointer + low)
    return np.ndarray(array.shape, array.dtype, buffer=raw, offset=-low, strides=array.strides)


def _emulated_launch(dispatcher, args, nelem, stream, per_thread=1):
    glb = dispatcher.py_func.__globals__
    core = glb["core"].py_func
    views = [_host_view(a) if isinstance(a, DeviceNDArray) else a for a in args]
    if "elementwise" in glb:  # vectorize: convert the elements, call, convert the result
        *inputs, out = views
        conversions = [np.dtype(str(glb[f"t{k}"]).replace("bool", "bool_")).type for k in range(len(inputs))]
        for index in np.ndindex(out.shape):
            values = [c(v[index] if isinstance(v, np.ndarray) else v) for c, v in zip(conversions, inputs)]
            out[index] = core(*values)
    else:  # guvectorize: the function on the views of the core axes
        nloop = next(c for c in dispatcher.py_func.__code__.co_consts if isinstance(c, int))
        for index in np.ndindex(views[-1].shape[:nloop]):
            core(*[v[index] if v.ndim > nloop else v[index] for v in views])


@pytest.fixture
def emulated_device(monkeypatch):
    from cumlir.cuda import ufunc_api as ufuncs
    from cumlir.runtime import devicearray

    monkeypatch.setattr(devicearray, "DeviceMemory", _HostMemory)
    monkeypatch.setattr(
        devicearray, "_copy", lambda kind, dst, src, n, stream: __import__("ctypes").memmove(dst, src, n)
    )
    monkeypatch.setattr(ufuncs, "_launch", _emulated_launch)


def test_emulated_vectorize_host_operands(emulated_device):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 1, 5)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)
    result = cases.fused(x, y, 0.5)
    assert isinstance(result, np.ndarray) and result.shape == (3, 4, 5) and result.dtype == np.float32
    np.testing.assert_array_equal(result, x * y + np.float32(0.5))
    strided = rng.standard_normal((10, 12))[::2, ::-3]
    np.testing.assert_array_equal(cases.fused(strided, strided.T.T, strided), strided * strided + strided)
    assert cases.fused(np.float32(2), 3, 4) == 10 and np.ndim(cases.fused(2.0, 3.0, 4.0)) == 0
    out = np.full((2, 5), np.nan)
    assert cases.fused(x[0, 0], 2.0, 1.0, out=out) is out  # out broadcasts the input
    # the float32 loop (the scalars fit float32), its results widened into the float64 out
    np.testing.assert_array_equal(out, np.broadcast_to(x[0, 0] * np.float32(2) + np.float32(1), (2, 5)))
    a, b = rng.integers(-100, 100, (2, 7), dtype=np.int16)
    np.testing.assert_array_equal(cases.less(a, b), a < b)  # int16 converted to int64


def test_emulated_vectorize_device_operands_stay_on_device(emulated_device):
    x = np.arange(12.0).reshape(3, 4)
    d = cuda.to_device(x)
    result = cases.fused(d, d[:1], 1.0)
    assert isinstance(result, DeviceNDArray)
    np.testing.assert_array_equal(result.copy_to_host(), x * x[:1] + 1.0)
    cases.fused(d, d, d, d)  # in place, the output positional
    np.testing.assert_array_equal(d.copy_to_host(), x * x + x)


def test_emulated_guvectorize(emulated_device):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(cases.matmul(a, b), a @ b, rtol=1e-13)
    x, y = rng.integers(-9, 9, (4, 6)), rng.integers(-9, 9, 6)
    np.testing.assert_array_equal(cases.dot(x, y), x @ y)
    assert np.ndim(cases.dot(y, y)) == 0 and cases.dot(y, y) == y @ y
    np.testing.assert_array_equal(cases.scaled(a[0], 3.0), a[0] * 3.0)
    out = np.full(4, -1, np.int64)
    assert cases.dot(x, y, out=out) is out
    np.testing.assert_array_equal(out, x @ y)


@pytest.mark.parametrize("options", [{"debug": True}, {"lineinfo": True}, {"opt": False}, {"fastmath": True}])
def test_ufunc_kernels_with_options(backend, options):
    ufunc = cuda.vectorize(["int64(int64, int64)"], **options)(cases.checked_quotient)
    arr = _array("int64", 2, "A")
    ptx, _ = cuda.compile_ptx(
        ufunc.kernel((D("int64"),) * 2).py_func, (arr, arr, arr), cc=(9, 0), backend=backend, **options
    )
    support.ptxas(ptx, "sm_90")
    if "lineinfo" in options or "debug" in options:
        assert ".loc" in ptx
    gufunc = cuda.guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"], "(m,n),(n,p)->(m,p)", **options)(
        cases.matmul.py_func
    )
    g = _array("float64", 3, "A")
    ptx, _ = cuda.compile_ptx(
        gufunc.kernel((D("float64"),) * 2, 1).py_func, (g, g, g), cc=(9, 0), backend=backend, **options
    )
    support.ptxas(ptx, "sm_90")
