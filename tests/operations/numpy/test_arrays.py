"""Arrays without a GPU: every array kernel assembles, views keep their layouts, bad indexing is an error."""

import pytest
from numba.core import errors, types

from cumlir import compiler, cuda
from cumlir.codegen import targets

from ... import support
from ...cases import array_kernels
from ...test_codegen import ARCHS, _module_ptx

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
DTYPES += ["float16", "float32", "float64", "complex64", "complex128"]


def _array(dtype, ndim, layout="C", readonly=False):
    return types.Array(support.numba_type(dtype), ndim, layout, readonly=readonly)


def _all_entries():
    entries = [
        (array_kernels.COPY_KERNELS[ndim], (_array(dtype, ndim, layout), _array(dtype, ndim, layout)))
        for ndim in range(1, 5)
        for layout in "CFA"
        for dtype in DTYPES
    ]
    entries.append((array_kernels.scale_0d, (_array("float64", 0), _array("float64", 0))))
    f64 = _array("float64", 1)
    for layout in "CFA":
        entries.append((array_kernels.views_2d, (_array("float64", 2, layout), f64)))
        entries.append((array_kernels.views_4d, (_array("float32", 4, layout), f64)))
        entries.append((array_kernels.assign_views, (_array("float64", 2, layout), _array("float64", 2, layout))))
        entries.append((array_kernels.views_through_device_function, (_array("float64", 2, layout), f64)))
    entries.append((array_kernels.reshape_and_view, (_array("float32", 1), f64)))
    entries.append((array_kernels.tuple_of_arrays, (f64, _array("float64", 1, "A"), f64)))
    return entries


@pytest.mark.corpus
@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_array_kernels_assemble(cc):
    entries = support.corpus(_all_entries(), every=2)
    ptx, symbols = _module_ptx(entries, cc)
    assert len(symbols) == len(entries)
    support.ptxas(ptx, targets.chip(cc))


def test_view_types_follow_numba():
    typed = compiler.type_function(array_kernels.views_2d, (_array("float64", 2), _array("float64", 1)))
    assert typed.typemap["v"] == _array("float64", 2, "A")
    assert typed.typemap["t"] == _array("float64", 2, "F")
    assert typed.typemap["r"] == _array("float64", 1, "C")


def test_c_views_keep_a_unit_stride_in_mlir():
    mlir = compiler.emit(array_kernels.views_2d, (_array("float64", 2), _array("float64", 1)), "mlir", (9, 0))
    # a[2] of a C array is C: its memref has the static innermost stride 1
    assert "memref<?xf64, strided<[1], offset: ?>>" in mlir
    assert "memref.reinterpret_cast" in mlir


def test_debug_mode_checks_bounds():
    from cumlir.compiler import kernel_ptx, type_function
    from cumlir.options import Options

    typed = type_function(array_kernels.out_of_bounds_2d, (_array("float32", 2), types.int64))
    debug = kernel_ptx(typed, (9, 0), options=Options(debug=True))
    assert [s.exc_class for s in debug.raise_sites] == [IndexError, IndexError]
    support.ptxas(debug.ptx)
    assert kernel_ptx(typed, (9, 0)).raise_sites == []


def _typing_error(source, argtypes, match):
    namespace = {"np": __import__("numpy")}
    exec(source, namespace)
    with pytest.raises(errors.TypingError, match=match) as info:
        compiler.type_function(namespace["k"], argtypes)
    assert "<string>" in str(info.value) or "line" in str(info.value).lower()


def test_too_many_indices():
    _typing_error("def k(a):\n    a[0, 1, 2] = 1\n", (_array("float32", 2),), "setitem")


def test_float_index():
    _typing_error("def k(a, out):\n    out[0] = a[1.5, 0]\n", (_array("float32", 2), _array("float32", 1)), "getitem")


def test_write_to_readonly_array():
    _typing_error("def k(a):\n    a[0] = 1\n", (_array("float32", 1, readonly=True),), "readonly")


def test_copy_is_refused_with_a_reason():
    def k(a, out):
        b = a.copy()
        out[0] = b[0]

    # it allocates: refused where nrt=False turns the device runtime off
    with pytest.raises(errors.NumbaError, match=r"arr.copy\(\) in device code needs NRT, which nrt=False"):
        cuda.compile_ptx(k, (_array("float32", 1), _array("float32", 1)), cc=(9, 0), nrt=False)


def test_advanced_indexing_is_refused():
    def k(a, idx, out):
        b = a[idx]
        out[0] = b[0]

    with pytest.raises(errors.NumbaError, match="advanced indexing|getitem"):
        cuda.compile_ptx(k, (_array("float32", 1), _array("int64", 1), _array("float32", 1)), cc=(9, 0))


def test_reshape_of_a_fortran_array_is_refused():
    # NumPy and numba reshape in C order, which an F-ordered array cannot give without a copy
    with pytest.raises(errors.NumbaError, match="C order"):
        cuda.compile_ptx(array_kernels.reshape_fortran, (_array("float32", 2, "F"), _array("float32", 1)), cc=(9, 0))
