"""The compile API on a machine without a GPU: device functions with the C and Numba ABIs,
PTX / LLVM IR / LTO-IR, raw pointers, link items, NVRTC and nvJitLink, and bad input."""

import ctypes
import io
import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda, linking
from cumlir.codegen import targets
from cumlir.linkable import LTOIR, Archive, Cubin, CUSource, Fatbin, LinkableCode, Object, PTXSource
from cumlir.nvrtc import NVRTCError

from . import support
from .cases import foreign_operators

ARCHS = [(8, 0), (9, 0)]
ARCH_IDS = [targets.chip(cc) for cc in ARCHS]
ALL_OPERATORS = [(op[0], op[1], op[2]) for op in foreign_operators.SCALAR_OPERATORS + foreign_operators.VOID_OPERATORS]


def _prototype(ptx, name):
    """The PTX declaration of the function *name* (up to its body)."""
    match = re.search(r"\.visible \.func\s+(\(.*?\)\s*)?" + re.escape(name) + r"\((.*?)\)", ptx, re.S)
    assert match, f"no .visible .func {name} in the PTX"
    return match


# ---- the C ABI --------------------------------------------------------------------------------


@pytest.mark.parametrize("cc", ARCHS, ids=ARCH_IDS)
@pytest.mark.parametrize("pyfunc, sig, name", ALL_OPERATORS, ids=[op[2] for op in ALL_OPERATORS])
def test_c_abi_symbol_and_ptxas(pyfunc, sig, name, cc):
    ptx, _ = cuda.compile(pyfunc, sig, cc=cc, abi_info={"abi_name": name})
    _prototype(ptx, name)
    assert f".target {targets.chip(cc)}" in ptx
    # one visible function: the helpers it calls are inlined or internal
    assert ptx.count(".visible") == 1
    support.ptxas(ptx, targets.chip(cc))


@pytest.mark.parametrize(
    "op", foreign_operators.SCALAR_OPERATORS, ids=[op[2] for op in foreign_operators.SCALAR_OPERATORS]
)
def test_c_abi_returns_the_result(op):
    pyfunc, sig, name, _, arg_cs, return_type = op
    ptx, restype = cuda.compile(pyfunc, sig, cc=(9, 0), abi_info={"abi_name": name})
    assert restype == return_type
    match = _prototype(ptx, name)
    assert match.group(1) and "func_retval0" in match.group(1)
    assert match.group(2).count(".param") == len(arg_cs)  # exactly the Python arguments


def test_default_name_is_the_python_name():
    ptx, restype = cuda.compile(foreign_operators.add, (types.float32, types.float32), cc=(9, 0))
    _prototype(ptx, "add")
    assert restype == types.float32


def test_void_operator_has_no_result():
    ptx, restype = cuda.compile(foreign_operators.void_add_int32, "void(voidptr, voidptr, voidptr)", cc=(9, 0))
    match = _prototype(ptx, "void_add_int32")
    assert match.group(1) is None and match.group(2).count(".param .b64") == 3
    assert restype == types.none


def test_declared_return_type_converts_the_result():
    ptx, restype = cuda.compile(
        foreign_operators.add, "float64(int32, int32)", cc=(9, 0), abi_info={"abi_name": "add_f64"}
    )
    assert restype == types.float64
    assert "cvt.rn.f64.s32" in ptx or "cvt.rn.f64.s64" in ptx


def test_compile_ptx_device_c_abi():
    ptx, restype = cuda.compile_ptx(foreign_operators.add, "int32(int32, int32)", device=True, abi="c", cc=(8, 0))
    _prototype(ptx, "add")
    assert restype == types.int32


def test_compile_accepts_a_device_dispatcher():
    ptx, restype = cuda.compile(foreign_operators._square, (types.int64,), cc=(9, 0), abi_info={"abi_name": "sq"})
    _prototype(ptx, "sq")
    assert restype == types.int64


def _divide(x, out):
    i = cuda.grid(1)
    out[i] = x[i] / x[i + 1]


_DIVIDE = "void(float32[::1], float32[::1])"


def _bounds_and_division(ptx):
    bounds = [line.strip() for line in ptx.splitlines() if ".maxntid" in line or ".minnctapersm" in line]
    return bounds, [line.split()[0] for line in ptx.splitlines() if line.strip().startswith("div.")]


def test_a_jit_function_compiles_with_its_own_options():
    kernel = cuda.jit(launch_bounds=(256, 2), fastmath=True)(_divide)
    ptx, _ = cuda.compile_ptx(kernel, _DIVIDE, cc=(9, 0))
    assert _bounds_and_division(ptx) == ([".maxntid 256, 1, 1", ".minnctapersm 2"], ["div.approx.ftz.f32"])
    # the Python function it wraps, compiled alone, has none of them
    assert _bounds_and_division(cuda.compile_ptx(_divide, _DIVIDE, cc=(9, 0))[0]) == ([], ["div.rn.f32"])


def test_options_given_to_the_call_override_the_functions():
    kernel = cuda.jit(launch_bounds=(256, 2), fastmath=True)(_divide)
    ptx, _ = cuda.compile_ptx(kernel, _DIVIDE, cc=(9, 0), launch_bounds=128)
    assert _bounds_and_division(ptx) == ([".maxntid 128, 1, 1"], ["div.approx.ftz.f32"])


# ---- the Numba ABI ----------------------------------------------------------------------------


def test_numba_abi_mangled_result_pointer_and_status():
    ptx, restype = cuda.compile_ptx(foreign_operators.add, "int32(int32, int32)", device=True, cc=(9, 0))
    assert restype == types.int32
    match = re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\)\s+(_ZN\w+)\((.*?)\)", ptx, re.S)
    assert match, ptx
    name, params = match.groups()
    assert "add" in name and name.endswith("Eii")
    assert params.count(".param") == 3 and params.split(",")[0].strip().startswith(".param .b64")
    support.ptxas(ptx)


def _multiply(x, y):
    return x * y


@pytest.mark.parametrize("output", ["ptx", "ltoir"])
def test_numba_abi_function_named_by_abi_name_links_into_a_kernel(output):
    code, _ = cuda.compile(
        _multiply, "float32(float32, float32)", abi="numba", abi_info={"abi_name": "my_mul"}, output=output, cc=(9, 0)
    )
    item = PTXSource(code.encode(), name="mul.ptx") if output == "ptx" else LTOIR(code, name="mul.ltoir")
    multiply = cuda.declare_device("my_mul", "float32(float32, float32)", link=[item])

    def kernel(a):
        a[0] = multiply(a[0], a[1])

    overload = cuda.jit("void(float32[:])", lto=output == "ltoir")(kernel).compile("void(float32[:])")
    assert overload.compilation((9, 0)).cubin  # nvJitLink found my_mul


def _complex_of(x):
    return complex(x, x * 0.5 - 1.0)


@pytest.mark.parametrize(
    "sig, dtype, part",
    [("complex128(float64)", np.complex128, ctypes.c_double), ("complex64(float32)", np.complex64, ctypes.c_float)],
)
def test_numba_abi_stores_a_complex_result_as_its_two_parts(sig, dtype, part):
    from . import nrt_harness

    ptx, restype = cuda.compile_ptx(_complex_of, sig, device=True, cc=(9, 0))
    assert restype == types.complex128 if dtype is np.complex128 else types.complex64
    support.ptxas(ptx)
    code, _ = cuda.compile(_complex_of, sig, abi="numba", abi_info={"abi_name": "complex_of"}, output="llvm", cc=(9, 0))
    function = nrt_harness.host_function(code, "complex_of", ctypes.c_int32, ctypes.c_void_p, part)
    result = np.full(1, np.nan, dtype)  # Numba's layout: the real part, then the imaginary one
    for x in (2.5, -3.0, 0.0):
        assert function(result.ctypes.data, x) == 0
        assert result[0] == dtype(complex(x, x * 0.5 - 1.0))


def test_abi_info_keys_are_checked():
    with pytest.raises(ValueError, match="unknown abi_info keys"):
        cuda.compile(_multiply, "float32(float32, float32)", abi="numba", abi_info={"name": "x"}, cc=(9, 0))


def test_numba_abi_names_differ_by_signature():
    a, _ = cuda.compile(foreign_operators.add, (types.int32, types.int32), abi="numba", cc=(9, 0))
    b, _ = cuda.compile(foreign_operators.add, (types.float32, types.float32), abi="numba", cc=(9, 0))
    name = lambda ptx: re.search(r"\.visible \.func.*?(_ZN\w+)\(", ptx, re.S).group(1)  # noqa: E731
    assert name(a) != name(b)


def test_compile_ptx_kernel_still_works():
    def k(a):
        a[0] = 1.0

    ptx, restype = cuda.compile_ptx(k, "void(float32[:])", cc=(9, 0))
    assert ".visible .entry k(" in ptx and restype == types.none


# ---- other outputs ----------------------------------------------------------------------------


def test_llvm_output_has_nvptx_layout_and_triple():
    ir, restype = cuda.compile(
        foreign_operators.clamp, (types.float64,) * 3, cc=(9, 0), output="llvm", abi_info={"abi_name": "clamp_f64"}
    )
    assert 'target triple = "nvptx64-nvidia-cuda"' in ir
    assert 'target datalayout = "e-' in ir
    assert re.search(r"define double @clamp_f64\(double", ir)
    assert "internal" not in ir.split("@clamp_f64")[0].splitlines()[-1]


@pytest.mark.parametrize("cc", ARCHS, ids=ARCH_IDS)
def test_ltoir_links_with_lto(cc):
    ltoir, _ = cuda.compile(
        foreign_operators.add, "int32(int32, int32)", cc=cc, output="ltoir", abi_info={"abi_name": "add_i32"}
    )
    assert isinstance(ltoir, bytes) and ltoir
    source = foreign_operators.scalar_caller("add_i32", "int", ["int", "int"])
    cubin = linking.link_cubin([LTOIR(ltoir, "add.ltoir"), CUSource(source, "caller.cu")], cc)
    assert b"call_add_i32" in cubin


# ---- linking with CUDA C++ through nvJitLink (no GPU needed) ----------------------------------


@pytest.mark.parametrize("cc", ARCHS, ids=ARCH_IDS)
def test_cxx_kernels_link_cumlir_operators(cc):
    items = []
    for pyfunc, sig, name, ret_c, arg_cs, _ in foreign_operators.SCALAR_OPERATORS:
        ptx, _ = cuda.compile(pyfunc, sig, cc=cc, abi_info={"abi_name": name})
        items += [
            PTXSource(ptx, f"{name}.ptx"),
            CUSource(foreign_operators.scalar_caller(name, ret_c, arg_cs), f"call_{name}.cu"),
        ]
    for pyfunc, sig, name, element_c, _ in foreign_operators.VOID_OPERATORS:
        ptx, _ = cuda.compile(pyfunc, sig, cc=cc, abi_info={"abi_name": name})
        items += [
            PTXSource(ptx, f"{name}.ptx"),
            CUSource(foreign_operators.void_caller(name, element_c), f"call_{name}.cu"),
        ]
    cubin = linking.link_cubin(items, cc)
    assert cubin[:4] == b"\x7fELF"
    for op in foreign_operators.SCALAR_OPERATORS + foreign_operators.VOID_OPERATORS:
        assert f"call_{op[2]}".encode() in cubin and op[2].encode() in cubin


@pytest.mark.parametrize("cc", ARCHS, ids=ARCH_IDS)
def test_lto_input_switches_on_lto(cc):
    """An LTO-IR input makes the whole link use -lto: CUDA C++ items become LTO-IR too."""
    from cumlir.nvrtc import compile_source

    callee = compile_source('extern "C" __device__ int add_i32(int x, int y) { return x + y; }', cc, output="ltoir")
    caller = CUSource(foreign_operators.scalar_caller("add_i32", "int", ["int", "int"]), "caller.cu")
    cubin = linking.link_cubin([LTOIR(callee, "add.ltoir"), caller], cc)
    assert b"call_add_i32" in cubin
    with pytest.raises(linking.LinkError, match="bad.ltoir"):
        linking.link_cubin([LTOIR(b"not LTO-IR", "bad.ltoir"), caller], cc)


def test_unresolved_symbol_is_named():
    source = foreign_operators.scalar_caller("missing_op", "int", ["int"])
    with pytest.raises(linking.LinkError, match="missing_op"):
        linking.link_cubin([CUSource(source, "caller.cu")], (9, 0))


def test_nvrtc_error_names_the_source():
    from cumlir.nvrtc import NVRTCError

    with pytest.raises(NVRTCError, match="broken.cu"):
        linking.link_cubin([CUSource("this is not C++", "broken.cu")], (9, 0))


# ---- kernels calling external device functions -------------------------------------------------

MUL_CXX = foreign_operators.MUL_CXX


@pytest.mark.parametrize("cc", ARCHS, ids=ARCH_IDS)
def test_kernel_calls_declared_cxx_function(cc):
    k = foreign_operators.multiply_kernel()
    compiled = k.compile("void(float32[:], float32[:], float32[:])").compilation(cc)
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\)\s+mul_f32", compiled.ptx)
    assert b"mul_f32" in compiled.cubin


def test_link_option_items_are_linked(tmp_path):
    path = tmp_path / "mul.cu"
    path.write_text(MUL_CXX)
    mul = cuda.declare_device("mul_f32", "float32(float32, float32)")

    @cuda.jit(link=[str(path)])
    def k(a, out):
        out[0] = mul(a[0], a[1])

    compiled = k.compile("void(float32[:], float32[:])").compilation((9, 0))
    assert compiled.link == list(k.options.link) and repr(compiled.link[0]) == repr(str(path))
    assert b"mul_f32" in compiled.cubin
    with pytest.raises(linking.LinkError, match="mul_f32"):
        linking.link_cubin([PTXSource(compiled.ptx, name="k.ptx")], (9, 0))


def test_declare_device_errors():
    with pytest.raises(ValueError, match="not a C identifier"):
        cuda.declare_device("not-a-name", "int32(int32)")
    with pytest.raises(TypeError, match="return type"):
        cuda.declare_device("f", "(int32,)")
    f = cuda.declare_device("f", "int32(int32)")
    with pytest.raises(RuntimeError, match="external device function"):
        f(1)


# ---- link items ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "suffix, kind",
    [
        (".cu", CUSource),
        (".ptx", PTXSource),
        (".ltoir", LTOIR),
        (".cubin", Cubin),
        (".fatbin", Fatbin),
        (".o", Object),
        (".a", Archive),
    ],
)
def test_from_path_guesses_the_kind(tmp_path, suffix, kind):
    path = tmp_path / f"code{suffix}"
    path.write_bytes(b"data")
    item = LinkableCode.from_path(path)
    assert type(item) is kind and item.name == str(path)


def test_unknown_link_suffix_names_the_item():
    with pytest.raises(ValueError, match="code.weird"):
        LinkableCode.from_path("code.weird")
    with pytest.raises(ValueError, match="lib.weird"):

        @cuda.jit(link=["lib.weird"])
        def k(a):
            a[0] = 1

    with pytest.raises(TypeError, match="link item"):
        cuda.jit(link=[42])


# ---- raw pointers -------------------------------------------------------------------------------


@pytest.mark.parametrize("cc", ARCHS, ids=ARCH_IDS)
def test_pointer_arithmetic_assembles(cc):
    sig = "void(CPointer(float32), CPointer(float32), int64)"
    ptx, _ = cuda.compile(foreign_operators.pointer_walk, sig, cc=cc)
    _prototype(ptx, "pointer_walk")
    support.ptxas(ptx, targets.chip(cc))


def test_farray_is_fortran_ordered():
    def corner(p):
        a = cuda.farray(p, (3, 4))
        return a[2, 1]

    ir, restype = cuda.compile(corner, (types.CPointer(types.float64),), cc=(9, 0), output="llvm")
    assert restype == types.float64
    # element [2, 1] of a 3x4 Fortran array is 2 + 1*3 = 5 elements (40 bytes) in
    assert re.search(r"getelementptr (inbounds )?(nuw )?(i8|double), ptr %\d+, i\d+ (40|5)\b", ir), ir


def test_carray_of_voidptr_needs_a_dtype():
    def f(p):
        return cuda.carray(p, 4)[0]

    with pytest.raises(TypingError, match="voidptr needs a dtype"):
        cuda.compile(f, "(voidptr,)", cc=(9, 0))


def test_carray_dtype_must_match_the_pointer():
    def f(p):
        return cuda.carray(p, 4, np.float64)[0]

    with pytest.raises(TypingError, match="does not match"):
        cuda.compile(f, (types.CPointer(types.int32),), cc=(9, 0))


def test_voidptr_cannot_be_indexed():
    def f(p):
        return p[0]

    with pytest.raises(TypingError):
        cuda.compile(f, "(voidptr,)", cc=(9, 0))


# ---- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"abi": "fortran"}, ValueError, "abi 'fortran'"),
        ({"output": "sass"}, ValueError, "output 'sass'"),
        ({"abi_info": {"abi_name": "1add"}}, ValueError, "'1add' is not a C identifier"),
        ({"abi_info": {"abi_name": "my-add"}}, ValueError, "'my-add' is not a C identifier"),
        ({"abi_info": {"abi_nam": "x"}}, ValueError, "abi_nam"),
        ({"cc": (5, 2)}, ValueError, "5.2"),
        ({"cc": "sm_99"}, ValueError, "9.9"),
    ],
)
def test_bad_arguments(kwargs, exc, message):
    kwargs.setdefault("cc", (9, 0))
    with pytest.raises(exc, match=re.escape(message)):
        cuda.compile(foreign_operators.add, "int32(int32, int32)", **kwargs)


def test_kernels_have_no_c_abi_but_compile_to_ltoir():
    def k(a):
        a[0] = 1

    with pytest.raises(NotImplementedError, match="abi='c'"):
        cuda.compile(k, "void(int32[:])", device=False, cc=(9, 0))
    ltoir, _ = cuda.compile(k, "void(int32[:])", device=False, abi="numba", output="ltoir", cc=(9, 0))
    cubin = linking.link_cubin([LTOIR(ltoir, name="k.ltoir")], (9, 0))
    assert b"k" in cubin and cubin[:4] == b"\x7fELF"


def test_returning_a_record_is_refused():
    def first(p):
        return p[0]

    with pytest.raises(Exception, match="cannot return a record"):
        cuda.compile(first, (foreign_operators.PTR_PAIR,), cc=(9, 0))


def test_device_function_link_items_reach_the_kernel():
    mul = cuda.declare_device("mul_f32", "float32(float32, float32)")

    @cuda.jit(device=True, link=[CUSource(MUL_CXX, "mul.cu")])
    def twice_product(x, y):
        return 2 * mul(x, y)

    @cuda.jit
    def k(a, out):
        out[0] = twice_product(a[0], a[1])

    compiled = k.compile("void(float32[:], float32[:])").compilation((9, 0))
    assert [item.name for item in compiled.link] == ["mul.cu"]
    assert b"mul_f32" in compiled.cubin


def test_device_function_ptx_follows_the_backend(monkeypatch):
    monkeypatch.setenv("CUMLIR_BACKEND", "nvvm")
    ptx, _ = cuda.compile(foreign_operators.add, "int32(int32, int32)", cc=(9, 0), abi_info={"abi_name": "add_nvvm"})
    assert "Generated by NVIDIA NVVM Compiler" in ptx and ".visible .func" in ptx
    support.ptxas(ptx)


# ---- compile_all: the code and that of everything it links -----------------------------------

_TRIPLE_CU = 'extern "C" __device__ int triple(int* result, int x) { *result = 3 * x; return 0; }'
_NEG_PTX_ITEM_NAME = "negate.ptx"


def _linking_function():
    from cumlir.linkable import CUSource, PTXSource

    negate_ptx, _ = cuda.compile_ptx(
        lambda x: -x, "int32(int32)", device=True, cc=(9, 0), abi="c", abi_info={"abi_name": "negate"}
    )
    triple = cuda.declare_device("triple", "int32(int32)", link=[CUSource(_TRIPLE_CU, "triple.cu")])
    negate_item = PTXSource(negate_ptx, _NEG_PTX_ITEM_NAME)
    negate = cuda.declare_device("negate", "int32(int32)", link=[negate_item])

    def both(x):
        return triple(negate(x))

    return both, negate_item


@pytest.mark.parametrize("output", ["ltoir", "ptx"])
def test_compile_all_returns_the_code_of_each_link_item(output):
    both, negate_item = _linking_function()
    codes, result = cuda.compile_all(both, "int32(int32)", cc=(9, 0), output=output, abi_info={"abi_name": "both"})
    assert str(result) == "int32" and len(codes) == 3
    main, negate, triple = codes  # in the order the function calls them
    if output == "ptx":
        assert ".visible .func" in main and "both" in main
        assert "triple" in triple and ".visible .func" in triple  # NVRTC's PTX of the CUDA C++
    else:
        assert isinstance(main, bytes) and isinstance(triple, bytes)  # LTO-IR of both
        cubin = linking.link_cubin([LTOIR(main, "both.ltoir"), LTOIR(triple, "triple.ltoir"), negate], (9, 0))
        assert cubin[:4] == b"\x7fELF"
    assert negate is negate_item  # items that need no compiling come back as they are


def test_compile_all_checks_its_output():
    both, _ = _linking_function()
    with pytest.raises(NotImplementedError, match="'ptx' or 'ltoir'"):
        cuda.compile_all(both, "int32(int32)", cc=(9, 0), output="llvm")
    with pytest.raises(ValueError, match="forceinline"):
        cuda.compile_all(both, "int32(int32)", cc=(9, 0), output="ptx", forceinline=True)


def test_a_stream_link_item_is_read_when_linked():
    """Code generated while kernels are lowered goes into one stream given before (Numba-CUDA's
    LinkableCode takes io.StringIO/io.BytesIO): what was written by link time is linked."""
    stream = io.StringIO()
    item = CUSource(stream, name="glue.cu")
    stream.write('extern "C" __device__ int placeholder(int x) { return x; }\n')
    stream.write('extern "C" __device__ int tripled(int x) { return 3 * placeholder(x); }\n')  # written later
    assert "tripled" in item.data and item.bytes.startswith(b'extern "C"')
    cubin = linking.link_cubin([item], (9, 0))
    assert cubin[:4] == b"\x7fELF"
    with pytest.raises(NVRTCError, match="glue.cu"):  # what is written now is compiled too
        stream.write("not C++\n")
        linking.link_cubin([item], (9, 0))
    assert PTXSource(io.BytesIO(b"// ptx")).bytes == b"// ptx"
    with pytest.raises(TypeError, match=r"holds bytes, text or an io.StringIO/io.BytesIO, not list"):
        CUSource(["not", "code"])
