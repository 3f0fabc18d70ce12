"""PTX for every kernel of the GPU tests, compiled here (no GPU) and accepted by ptxas."""

import operator
import re

import pytest
from numba.core import types
from numba.core.errors import UnsupportedError

from cumlir import compiler, cuda
from cumlir.codegen import targets
from cumlir.codegen.passes import pipeline
from cumlir.lowering.module import ModuleBuilder
from cumlir.typing.context import typing_context

from . import support
from .cases import scalar_kernels

ARCHS = [(8, 0), (9, 0)]


def _array(name, ndim=1, layout="C"):
    return types.Array(support.numba_type(name), ndim, layout)


def _module_ptx(entries, cc):
    """One module holding several kernels: [(pyfunc, argtypes)] -> PTX."""
    builder = ModuleBuilder(typing_context())
    symbols = [builder.add_kernel(compiler.type_function(f, args)) for f, args in entries]
    with builder.context:
        compiled = compiler.run(compiler.from_module(builder, cc), "codegen")
        return compiled.ptx, symbols


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_conversion_kernels_assemble(cc):
    entries = [
        (scalar_kernels.conversion_kernel(target), (_array(source), _array(target)))
        for source in support.SCALAR_TYPES
        for target in support.SCALAR_TYPES
    ]
    ptx, symbols = _module_ptx(entries, cc)
    assert len(symbols) == len(support.SCALAR_TYPES) ** 2
    support.ptxas(ptx, targets.chip(cc))


CONSTRUCTS = [
    (scalar_kernels.unary_minus, ("float32", "float32")),
    (scalar_kernels.logical, ("int64", "int64", "bool")),
    (scalar_kernels.branches, ("float64", "int64")),
    (scalar_kernels.ranged_sums, ("int32", "int64")),
    (scalar_kernels.unsigned_ranges, ("uint64", "int64")),
    (scalar_kernels.loop_control, ("int64", "int64")),
    (scalar_kernels.early_return, ("int32", "int32")),
    (scalar_kernels.negative_index, ("float32", "float32")),
    (scalar_kernels.shapes, ("float64", "int64")),
]


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_construct_kernels_assemble(cc):
    entries = [(f, tuple(_array(t) for t in args)) for f, args in CONSTRUCTS]
    entries += [
        (scalar_kernels.grid_2d, (_array("int64", 2),)),
        (scalar_kernels.grid_3d, (_array("int64", 3),)),
        (scalar_kernels.registers, (_array("int64", 2),)),
        (scalar_kernels.registers_3d, (_array("int64", 3),)),
        (scalar_kernels.unary_minus, (_array("float64", 1, "A"), _array("float64", 1, "A"))),
    ]
    ptx, _ = _module_ptx(entries, cc)
    support.ptxas(ptx, targets.chip(cc))


def test_compile_ptx_without_a_gpu():
    from cumlir import cuda

    def vadd(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    ptx, restype = cuda.compile_ptx(vadd, "void(float32[:], float32[:], float32[:])", cc=(8, 0))
    assert restype == types.none
    assert ".target sm_80" in ptx and ".visible .entry vadd(" in ptx
    support.ptxas(ptx, "sm_80")


def test_thread_index_reads_special_registers():
    ptx = compiler.emit(scalar_kernels.registers, (_array("int64", 2),), "ptx", (9, 0))
    for register in ("%tid.x", "%ctaid.x", "%ntid.x", "%nctaid.x", "%tid.y", "%ntid.z"):
        assert register in ptx


def test_unsupported_cc_is_rejected():
    with pytest.raises(ValueError, match="compute capability 1.0 is not supported"):
        targets.parse_cc((1, 0))
    assert targets.parse_cc("sm_90") == (9, 0) == targets.parse_cc("9.0") == targets.parse_cc("90")


def test_operator_typing_sanity():
    # the reference used by the GPU tests is Numba's own typing
    assert str(support.result_signature(operator.add, "int32", "int32").return_type) == "int64"
    assert str(support.result_signature(operator.truediv, "int64", "int64").return_type) == "float64"


@pytest.mark.corpus
@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_math_and_language_kernels_assemble(cc):
    from .cases import language_kernels, math_cases

    entries = [(k, tuple(_array(t) for t in types_)) for k, types_ in math_cases.all_kernels()]
    entries += [(k, (_array("float64"), _array("float64"))) for k, _ in language_kernels.CASES.values()]
    entries = support.corpus(entries, every=2)
    ptx, symbols = _module_ptx(entries, cc)
    assert len(symbols) == len(entries)
    support.ptxas(ptx, targets.chip(cc))


def test_fastmath_uses_approximate_routines():
    import math

    def k(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = math.sin(a[i]) + math.exp(a[i]) + a[i] / out[i]

    from cumlir.compiler import kernel_ptx, type_function
    from cumlir.options import Options

    typed = type_function(k, (_array("float32"), _array("float32")))
    precise = kernel_ptx(typed, (9, 0)).ptx
    fast = kernel_ptx(typed, (9, 0), options=Options(fastmath=True)).ptx
    assert "sin.approx" in fast and "sin.approx" not in precise
    assert "div.approx.ftz.f32" in fast and "div.rn.f32" in precise
    assert "add.ftz.f32" in fast and "add.ftz.f32" not in precise
    support.ptxas(fast)


def test_debug_mode_records_raise_sites():
    from cumlir.compiler import kernel_ptx, type_function
    from cumlir.options import Options

    from .cases import language_kernels

    typed = type_function(language_kernels.checked, (_array("float64"), _array("float64")))
    debug = kernel_ptx(typed, (9, 0), options=Options(debug=True))
    asserts = [s for s in debug.raise_sites if s.exc_class is not IndexError]  # the rest check bounds
    assert [s.exc_class for s in asserts] == [AssertionError]
    assert asserts[0].args == ("negative input",)
    assert ".visible .global .align 8 .b8 cumlir_exception[16]" in debug.ptx
    support.ptxas(debug.ptx)
    plain = kernel_ptx(typed, (9, 0))
    assert plain.raise_sites == [] and "cumlir_exception" not in plain.ptx


def test_print_becomes_vprintf():
    ptx, _ = cuda.compile_ptx(_printer, "void(float32[:])", cc=(9, 0))
    assert "vprintf" in ptx
    support.ptxas(ptx)


def _printer(a):
    print("value", a[0], True, 3, a[0] > 0, (a[0], 1))


def test_print_formats_constants_as_numba_cuda(backend):
    # Numba-CUDA writes only string constants into the format: print(1.5) prints 1.500000
    def k(a):
        print("x%", 1.5, 3, -2, 1e20, (2.5, 7), a[0])

    ptx, _ = cuda.compile_ptx(k, "void(uint8[:])", cc=(9, 0), backend=backend)
    assert b"x%% %f %lld %lld %f (%f, %lld) %llu\n" in _ptx_byte_strings(ptx)
    support.ptxas(ptx)


def test_print_of_a_thread_indexing_register_is_its_x_y_z(backend):
    def k():
        print(cuda.blockIdx, "at", cuda.threadIdx)

    ptx, _ = cuda.compile_ptx(k, "void()", cc=(9, 0), backend=backend)
    assert b"(%lld, %lld, %lld) at (%lld, %lld, %lld)\n" in _ptx_byte_strings(ptx)
    assert all(register in ptx for register in ("%ctaid.x", "%ctaid.z", "%tid.x", "%tid.y", "%tid.z"))
    support.ptxas(ptx)


def test_print_of_an_array_is_refused_naming_it_and_its_line():
    def k(a):
        print(a)

    with pytest.raises(
        UnsupportedError,
        match=r"(?s)print\(\) of an array \(array\(float32, 2d, C\)\) is not "
        r"supported in kernels.*print\(a.shape\).*line \d+.*print\(a\)",
    ):
        cuda.compile_ptx(k, "void(float32[:, ::1])", cc=(9, 0))


def _ptx_byte_strings(ptx):
    """The contents of the PTX's global byte arrays (string constants), NULs dropped."""
    found = re.findall(r"\.b8 \S+\[\d+\] = \{([\d, ]+)\}", ptx)
    return [bytes(int(b) for b in body.split(",")).rstrip(b"\0") for body in found]


def test_64_bit_integers_are_loaded_whole():
    def k(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + 1

    ptx, _ = cuda.compile_ptx(k, "void(int64[:], int64[:])", cc=(9, 0))
    assert "ld.global.b64" in ptx and "st.global.b64" in ptx
    assert "ld.global.b32" not in ptx


def test_float32_sqrt_is_correctly_rounded_unless_fastmath():
    import math

    def k(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = math.sqrt(a[i])

    precise, _ = cuda.compile_ptx(k, "void(float32[:], float32[:])", cc=(9, 0))
    fast, _ = cuda.compile_ptx(k, "void(float32[:], float32[:])", cc=(9, 0), fastmath=True)
    assert "sqrt.rn.f32" in precise and "sqrt.approx" not in precise
    assert "sqrt.approx" in fast


def _llvm_dialect(pyfunc, sig, inliner):
    """The module of *pyfunc* after the llvm stage, its optimized stage run with or without
    the inliner."""
    from numba.core.sigutils import normalize_signature

    c = compiler.kernel(pyfunc, normalize_signature(sig)[0], (9, 0), until="mlir")
    chosen = pipeline.STAGES["optimized"] if inliner else pipeline.OPTIMIZED_WITHOUT_CALLS
    with c.builder.context:
        pipeline.set_target(c.module, c.cc, c.options)
        assert not pipeline._has_functions(c.module)  # what makes the compiler leave the inliner out
        pipeline.pass_manager(chosen).run(c.module.operation)
        pipeline.run_stage(c.module, "llvm", c.options)
        return str(c.module)


def test_kernels_calling_nothing_compile_the_same_without_the_inliner():
    from benchmarks.kernels import suite

    kernels = [
        (fn, sig)
        for name in ("matmul", "histogram", "stencil", "reduce_warp", "vadd", "math_loop", "black_scholes")
        for fn, sig in suite.load(name).KERNELS
    ]
    for fn, sig in kernels:
        assert _llvm_dialect(fn, sig, inliner=True) == _llvm_dialect(fn, sig, inliner=False), fn.__name__


def test_a_device_function_call_is_inlined():
    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    def k(a):
        a[0] = twice(a[0])

    ptx, _ = cuda.compile_ptx(k, "void(float32[:])", cc=(9, 0))
    assert ".func" not in ptx and "call" not in ptx
