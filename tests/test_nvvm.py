"""The "nvvm" code-generation path without a GPU: the LLVM 7 printer's output, every kernel
family of the CPU tier through libNVVM to PTX accepted by ptxas, LTO-IR linked by
nvJitLink, and clear errors for what the printer does not know."""

import re

import numpy as np
import pytest
from mlir import ir
from numba.core import types

from cumlir import compiler, cuda
from cumlir.codegen import targets
from cumlir.codegen.nvvm import libnvvm, llvm7
from cumlir.codegen.nvvm.llvm7_errors import Llvm7Error
from cumlir.codegen.passes import pipeline
from cumlir.lowering.module import ModuleBuilder
from cumlir.mlir.contexts import mlir_context
from cumlir.options import Options
from cumlir.typing.context import typing_context

from . import support
from .cases import scalar_kernels

ARCHS = [(8, 0), (9, 0)]
NVVM = Options(backend="nvvm")


def _print(source):
    """LLVM 7 text of a gpu.module given as MLIR LLVM-dialect source."""
    with mlir_context():
        module = ir.Module.parse(f"module attributes {{gpu.container_module}} {{ gpu.module @m {{ {source} }} }}")
        return llvm7.print_module(pipeline.gpu_module_of(module))


def _typed(entries):
    return [compiler.type_function(f, args) for f, args in entries]


def _lower(typed, cc, options=NVVM):
    """A module holding several typed kernels, after the "llvm" stage."""
    builder = ModuleBuilder(typing_context(), options)
    symbols = [builder.add_kernel(t) for t in typed]
    compiler.run(compiler.from_module(builder, cc, options), "llvm")
    return builder.module, symbols


def _nvvm_ptx(typed, cc, options=NVVM):
    with mlir_context():
        module, symbols = _lower(typed, cc, options)
        ptx = libnvvm.compile_module(module, cc, options, "ptx").decode()
    assert ptx.count(".entry ") == len(typed)
    for symbol in symbols:
        assert f".entry {symbol}(" in ptx
    return ptx


def _array(name, ndim=1, layout="C"):
    return types.Array(support.numba_type(name), ndim, layout)


# -- the printer -------------------------------------------------------------------------
LOAD_STORE = """
llvm.func @k(%p: !llvm.ptr<1>, %i: i64) attributes {gpu.kernel, nvvm.kernel} {
  %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %v = llvm.load %q {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  %w = llvm.fneg %v : f32
  llvm.store %w, %q : f32, !llvm.ptr<1>
  llvm.return
}
"""


def test_pointers_are_typed_through_bitcasts():
    text = _print(LOAD_STORE)
    assert "define void @k(i8 addrspace(1)* %arg0, i64 %arg1)" in text
    assert re.search(r"bitcast i8 addrspace\(1\)\* %arg0 to float addrspace\(1\)\*", text)
    assert re.search(r"getelementptr float, float addrspace\(1\)\* %p\d+, i64 %arg1", text)
    assert re.search(r"load float, float addrspace\(1\)\* %p\d+, align 4", text)
    assert re.search(r"store float %v\d+, float addrspace\(1\)\* %p\d+", text)
    assert not re.search(r"\bptr\b", text)  # no opaque pointers
    # LLVM 7 has no fneg instruction
    assert re.search(r"fsub float 0x8000000000000000, %v\d+", text)


def test_kernels_are_annotated_and_kept_alive():
    text = _print(LOAD_STORE + "llvm.func @helper(%x: i32) -> i32 { llvm.return %x : i32 }")
    assert f'target datalayout = "{llvm7.NVVM_DATA_LAYOUT}"' in text
    assert 'target triple = "nvptx64-nvidia-cuda"' in text
    assert "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (i8 addrspace(1)*, i64)* @k to i8*)]" in text
    assert re.search(r'!\{void \(i8 addrspace\(1\)\*, i64\)\* @k, !"kernel", i32 1\}', text)
    assert "@helper" not in text.split("@llvm.used")[1]
    version = ", ".join(f"i32 {v}" for v in libnvvm._nvvm().ir_version())
    node = re.search(r"^!nvvmir.version = !\{!(\d+)\}$", text, re.M).group(1)
    assert f"\n!{node} = !{{{version}}}\n" in text


LOOP = """
llvm.func @count(%n: i64, %c: i1) -> i64 {
  %0 = llvm.mlir.constant(0 : i64) : i64
  %1 = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^loop(%0, %0 : i64, i64)
^loop(%i: i64, %s: i64):
  %more = llvm.icmp "slt" %i, %n : i64
  %next = llvm.add %i, %1 : i64
  %t = llvm.add %s, %i : i64
  llvm.cond_br %more, ^loop(%next, %t : i64, i64), ^done(%s : i64)
^done(%r: i64):
  llvm.cond_br %c, ^exit(%r : i64), ^exit(%0 : i64)
^exit(%x: i64):
  llvm.return %x : i64
}
"""


def test_block_arguments_become_phis():
    text = _print(LOOP)
    assert re.search(r"%v\d+ = phi i64 \[ 0, %bb0 \], \[ %v\d+, %bb1 \]", text)
    assert re.search(r"%v\d+ = phi i64 \[ %v\d+, %bb1 \]", text)
    # both arms of one branch reach ^exit: the second goes through a block of its own
    assert "br i1 %arg1, label %bb3, label %bb2.e1" in text
    assert re.search(r"phi i64 \[ %v\d+, %bb2 \], \[ 0, %bb2.e1 \]", text)
    assert "bb2.e1:\n  br label %bb3" in text
    assert libnvvm.compile_ir(text, ["-arch=compute_80"], link_libdevice=False)


SWITCH = """
llvm.func @pick(%x: i32, %a: f64) -> f64 {
  %one = llvm.mlir.constant(1.0 : f64) : f64
  llvm.switch %x : i32, ^other(%a : f64) [
    0: ^done(%one : f64),
    7: ^done(%a : f64)
  ]
^other(%y: f64):
  %z = llvm.fmul %y, %y {fastmathFlags = #llvm.fastmath<contract, nnan>} : f64
  llvm.br ^done(%z : f64)
^done(%r: f64):
  llvm.return %r : f64
}
llvm.module_flags [#llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 1 : i32>]
"""


def test_switch_edges_and_fastmath_flags():
    text = _print(SWITCH)
    assert "switch i32 %arg0, label %bb1 [ i32 0, label %bb2 i32 7, label %bb0.e2 ]" in text
    assert re.search(r"phi double \[ 0x3FF0000000000000, %bb0 \], \[ %arg1, %bb0.e2 \], \[ %v\d+, %bb1 \]", text)
    assert re.search(r"fmul nnan contract double", text)
    assert libnvvm.compile_ir(text, ["-arch=compute_90"], link_libdevice=False)


def test_a_call_through_a_function_pointer_casts_it_to_the_function_type():
    source = (
        "llvm.func @k(%f: !llvm.ptr, %p: !llvm.ptr<1>, %n: i64) -> f32 {\n"
        "  %0 = llvm.call %f(%p, %n) : !llvm.ptr, (!llvm.ptr<1>, i64) -> f32\n"
        "  llvm.call %f(%n) : !llvm.ptr, (i64) -> ()\n"
        "  llvm.return %0 : f32 }"
    )
    text = _print(source)
    assert re.search(
        r"(%f\d+) = bitcast i8\* %arg0 to float \(i8 addrspace\(1\)\*, i64\)\*\n\s+%v\d+ = call float \1\(i8 addrspace\(1\)\* %arg1, i64 %arg2\)",
        text,
    )
    assert re.search(r"(%f\d+) = bitcast i8\* %arg0 to void \(i64\)\*\n\s+call void \1\(i64 %arg2\)", text)


def test_unknown_intrinsic_is_rejected():
    source = 'llvm.func @k() { %0 = llvm.call_intrinsic "llvm.nvvm.made.up"() : () -> i32\n llvm.return }'
    with pytest.raises(Llvm7Error, match="does not know the intrinsic 'llvm.nvvm.made.up'"):
        _print(source)


def test_unknown_op_is_rejected():
    source = "llvm.func @k(%a: f32) -> f32 { %0 = llvm.intr.exp10(%a) : (f32) -> f32\n llvm.return %0 : f32 }"
    with pytest.raises(Llvm7Error, match="does not support the op 'llvm.intr.exp10' \\(in @k\\)"):
        _print(source)


def test_unknown_call_to_an_llvm_intrinsic_is_rejected():
    source = (
        "llvm.func @llvm.nvvm.made.up(i32) -> i32\n"
        "llvm.func @k(%a: i32) -> i32 { %0 = llvm.call @llvm.nvvm.made.up(%a) : (i32) -> i32\n llvm.return %0 : i32 }"
    )
    with pytest.raises(Llvm7Error, match="llvm.nvvm.made.up"):
        _print(source)


def test_integer_min_max_become_compare_and_select():
    source = "llvm.func @f(%a: i32, %b: i32) -> i32 { %0 = llvm.intr.umin(%a, %b) : (i32, i32) -> i32\n llvm.return %0 : i32 }"
    text = _print(source)
    assert "icmp ult i32 %arg0, %arg1" in text and "llvm.umin" not in text


# -- the CPU tier's kernels through libNVVM ----------------------------------------------
def _conversions():
    return [
        (scalar_kernels.conversion_kernel(target), (_array(source), _array(target)))
        for source in support.SCALAR_TYPES
        for target in support.SCALAR_TYPES
    ]


def _constructs():
    from .test_codegen import CONSTRUCTS

    entries = [(f, tuple(_array(t) for t in args)) for f, args in CONSTRUCTS]
    return entries + [
        (scalar_kernels.grid_2d, (_array("int64", 2),)),
        (scalar_kernels.grid_3d, (_array("int64", 3),)),
        (scalar_kernels.registers, (_array("int64", 2),)),
        (scalar_kernels.registers_3d, (_array("int64", 3),)),
    ]


def _math_and_language():
    from .cases import language_kernels, math_cases

    entries = [(k, tuple(_array(t) for t in types_)) for k, types_ in math_cases.all_kernels()]
    return entries + [(k, (_array("float64"), _array("float64"))) for k, _ in language_kernels.CASES.values()]


def _arrays():
    from .operations.numpy.test_arrays import _all_entries

    return _all_entries()


def _records():
    from .operations.python.test_records import ENTRIES

    return ENTRIES


def _memory():
    from .operations.cuda.test_memory import DTYPES, _entries

    return [e for dtype in DTYPES for e in _entries(dtype)]


def _differential_sample():
    """Every 10th scalar differential kernel of each left operand type (typing all takes minutes)."""
    from .cases import differential_cases
    from .test_differential_ptx import _entries

    return [e for left in differential_cases.TYPES for e in list(_entries(left))[::10]]


FAMILIES = {
    "conversions": _conversions,
    "constructs": _constructs,
    "math_language": _math_and_language,
    "arrays": _arrays,
    "records": _records,
    "memory": _memory,
    "differential": _differential_sample,
}


@pytest.mark.corpus
@pytest.mark.parametrize("family", FAMILIES)
def test_kernels_assemble_through_nvvm(family):
    typed = _typed(support.corpus(FAMILIES[family](), every=2))
    for cc in ARCHS:
        ptx = _nvvm_ptx(typed, cc)
        assert f".target {targets.chip(cc)}" in ptx and "NVVM" in ptx
        support.ptxas(ptx, targets.chip(cc))


def _vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i] * 2.0


def test_backend_option_selects_the_path(monkeypatch):
    typed = compiler.type_function(_vadd, (_array("float32"),) * 3)
    assert "NVVM" in compiler.kernel_ptx(typed, (8, 0), options=NVVM).ptx
    assert "NVVM" not in compiler.kernel_ptx(typed, (8, 0), options=Options()).ptx
    monkeypatch.setenv("CUMLIR_BACKEND", "nvvm")
    assert Options().backend == "nvvm"
    argtypes = (_array("float32"),) * 3
    assert re.search(r"bitcast i8\* %\w+ to float\*", compiler.emit(_vadd, argtypes, "llvm", (8, 0)))
    assert "NVVM" in compiler.emit(_vadd, argtypes, "ptx", (8, 0))
    options = cuda.jit(backend="nvptx")(_vadd).options
    assert options.backend == "nvptx"
    with pytest.raises(ValueError, match="unknown backend 'llvm'"):
        Options(backend="llvm")


def test_fastmath_and_opt_reach_libnvvm():
    import math

    def k(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = math.sqrt(a[i]) / out[i]

    typed = compiler.type_function(k, (_array("float32"),) * 2)
    fast = compiler.kernel_ptx(typed, (9, 0), options=Options(backend="nvvm", fastmath=True)).ptx
    precise = compiler.kernel_ptx(typed, (9, 0), options=NVVM).ptx
    assert "div.rn.f32" in precise and "sqrt.rn.f32" in precise
    assert "div.rn" not in fast and "sqrt.approx.ftz.f32" in fast
    assert libnvvm.nvvm_options((9, 0), Options(opt=False), "ltoir") == [
        "-arch=compute_90",
        "-opt=0",
        "-fma=0",
        "-gen-lto",
    ]
    unoptimized = compiler.kernel_ptx(typed, (9, 0), options=Options(backend="nvvm", opt=False))
    support.ptxas(unoptimized.ptx)
    support.ptxas(fast)


@pytest.mark.parametrize("cc", ARCHS + [(10, 0)], ids=lambda cc: targets.chip(cc))
def test_ltoir_links_into_a_cubin(cc):
    from cuda.bindings import nvjitlink

    with mlir_context():
        module, (symbol,) = _lower(_typed([(_vadd, (_array("float64"),) * 3)]), cc)
        ltoir = libnvvm.compile_module(module, cc, NVVM, "ltoir")
    assert not ltoir.startswith(b"//")  # not PTX
    options = [f"-arch={targets.chip(cc)}", "-lto"]
    handle = nvjitlink.create(len(options), options)
    try:
        nvjitlink.add_data(handle, nvjitlink.InputType.LTOIR, ltoir, len(ltoir), "vadd")
        nvjitlink.complete(handle)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
    finally:
        nvjitlink.destroy(handle)
    assert cubin[:4] == b"\x7fELF"
    # the kernel survived link-time optimisation (it is listed in @llvm.used)
    assert symbol.encode() in bytes(cubin)


def test_blackwell_takes_modern_ir():
    with mlir_context():
        module, (symbol,) = _lower(_typed([(_vadd, (_array("float32"),) * 3)]), (10, 0))
        text = libnvvm.llvm_ir(module, (10, 0))
        ptx = libnvvm.compile_module(module, (10, 0), NVVM, "ptx").decode()
    assert "ptr addrspace(1)" in text or "ptr %" in text  # opaque pointers, as MLIR writes them
    assert f'target datalayout = "{llvm7.NVVM_DATA_LAYOUT}"' in text
    assert f"@llvm.used = appending global [1 x ptr] [ptr @{symbol}]" in text
    assert "!nvvmir.version" in text
    assert ".target sm_100" in ptx
    support.ptxas(ptx, "sm_100")


def test_unknown_output_is_rejected():
    with mlir_context():
        module, _ = _lower(_typed([(_vadd, (_array("float64"),) * 3)]), (8, 0))
        with pytest.raises(ValueError, match="unknown output 'cubin'"):
            libnvvm.compile_module(module, (8, 0), NVVM, "cubin")


def test_libnvvm_errors_carry_its_log():
    with pytest.raises(libnvvm.NvvmError, match="compute_80"):
        libnvvm.compile_ir("this is not LLVM IR", ["-arch=compute_80"], link_libdevice=False)


def test_constants_are_spelled_exactly():
    from cumlir.codegen.nvvm import llvm7_constants, llvm7_types

    f32, f64 = llvm7_types.parse("f32"), llvm7_types.parse("f64")
    assert llvm7_constants.float_literal(0.1, f32) == f"0x{int(np.float64(np.float32(0.1)).view(np.uint64)):016X}"
    assert llvm7_constants.float_literal(float("inf"), f64) == "0x7FF0000000000000"
    assert llvm7_constants.int_literal(2**64 - 1, llvm7_types.parse("i64")) == "-1"
    assert llvm7_constants.float_literal(1.0, llvm7_types.parse("f16")) == "0xH3C00"
    assert (
        llvm7_types.parse("!llvm.struct<(ptr<3>, array<2 x vector<4xf32>>)>").text
        == "{ i8 addrspace(3)*, [2 x <4 x float>] }"
    )


def _lines(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * 2.0


def test_lineinfo_gives_line_tables():
    typed = compiler.type_function(_lines, (_array("float64"),) * 2)
    options = Options(backend="nvvm", lineinfo=True)
    with mlir_context():
        module, _ = _lower([typed], (8, 0), options)
        text = libnvvm.llvm_ir(module, (8, 0), options)
    assert re.search(r"define void @_lines\(.*\) !dbg !\d+ \{", text)
    line = _lines.__code__.co_firstlineno + 3
    assert re.search(rf"!DILocation\(line: {line}, column: \d+, scope: !\d+\)", text)
    assert "emissionKind: LineTablesOnly" in text and '!"Debug Info Version", i32 3' in text
    ptx = compiler.kernel_ptx(typed, (8, 0), options=options).ptx
    assert re.search(rf"\.loc\s+\d+ {line} ", ptx) and "test_nvvm.py" in ptx
    support.ptxas(ptx, "sm_80")
    assert ".loc" not in compiler.kernel_ptx(typed, (8, 0), options=NVVM).ptx


def test_launch_bounds_become_annotations():
    source = (
        "llvm.func @k() attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 128, 2, 1>,"
        " nvvm.minctasm = 4 : i32} { llvm.return }"
    )
    text = _print(source)
    assert '!{void ()* @k, !"maxntidx", i32 128}' in text and '!{void ()* @k, !"minctasm", i32 4}' in text
    ptx = libnvvm.compile_ir(text, ["-arch=compute_80"], link_libdevice=False).decode()
    assert ".maxntid 128, 2, 1" in ptx and ".minnctapersm 4" in ptx


def test_nvvm_ops_without_an_nvvm7_intrinsic_become_inline_ptx(monkeypatch):
    from .cases import extension_kernels

    monkeypatch.setenv("CUMLIR_BACKEND", "nvvm")
    array = types.Array(types.float32, 1, "C")
    ptx, _ = cuda.compile_ptx(extension_kernels.intrinsic_kernel, (array, array), cc=(8, 0))
    assert "rcp.approx.ftz.f32" in ptx
    support.ptxas(ptx, "sm_80")
