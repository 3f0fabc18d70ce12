"""The extension API without a GPU: the docs page's code runs, every proof kernel compiles to
PTX that ptxas accepts, errors inside extensions name them, and the lowering utilities."""

import inspect
import re

import numpy as np
import pytest

from cumlir import cuda, extending, types
from cumlir.codegen import targets

from . import support
from .cases import extending_docs
from .cases import extension_kernels as ek

ARCHS = [(8, 0), (9, 0)]
F32 = types.float32[::1]
POINTS = types.Array(types.from_dtype(ek.Point.dtype), 1, "C")

PROOFS = [
    (ek.boxed_kernel, (types.int64[::1], types.int64[::1])),
    (ek.struct_kernel, (POINTS, types.float32[:, ::1])),
    (ek.high_level_kernel, (F32, F32)),
    (ek.overload_kernel, (F32, F32)),
    (ek.method_kernel, (F32, F32)),
    (ek.jitable_kernel, (F32, F32)),
    (ek.intrinsic_kernel, (F32, F32)),
]


def _ptx(kernel, argtypes, cc):
    return cuda.compile_ptx(kernel.py_func, argtypes, cc=cc)[0]


def test_docs_code_blocks_run():
    blocks = extending_docs.code_blocks()
    assert len(blocks) >= 3
    ns = extending_docs.namespace()
    for name in ("boxed_kernel", "struct_kernel", "high_level_kernel", "MyBoxedIntType", "gpu_struct"):
        assert name in ns


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
@pytest.mark.parametrize("kernel, argtypes", PROOFS, ids=[k.__name__ for k, _ in PROOFS])
def test_proof_kernels_assemble(kernel, argtypes, cc):
    support.ptxas(_ptx(kernel, argtypes, cc), targets.chip(cc))


def test_boxed_int_unifies_through_the_cast():
    ptx = _ptx(ek.boxed_kernel, (types.int64[::1], types.int64[::1]), (8, 0))
    assert "42" in ptx and "99" in ptx


def test_intrinsic_emits_its_nvvm_op():
    assert "rcp.approx.ftz.f32" in _ptx(ek.intrinsic_kernel, (F32, F32), (8, 0))


def test_struct_operator_to_ltoir_with_c_abi():
    point = ek.Point.numba_type

    def add(a, b):
        return a + b

    code, restype = cuda.compile(add, point(point, point), device=True, abi="c", output="ltoir", cc=(9, 0))
    assert restype == point
    assert isinstance(code, (bytes, bytearray)) and len(code) > 0
    ptx, _ = cuda.compile(add, point(point, point), device=True, abi="c", cc=(9, 0))
    assert ".visible .func" in ptx and " add(" in ptx


# ---- errors inside extensions ------------------------------------------------------------

from cumlir.errors import LoweringError, TypingError  # noqa: E402
from cumlir.extending import intrinsic, lowering_registry, type_callable, typing_registry  # noqa: E402
from cumlir.numba_cuda.typing.templates import AbstractTemplate, signature  # noqa: E402


def broken_lowering(x):
    pass


@type_callable(broken_lowering)
def _type_broken_lowering(context):
    return lambda x: types.int64


@lowering_registry.lower(broken_lowering, types.Any)
def _lower_broken(builder, target, args, kwargs):
    raise ValueError("this lowering is broken")


def broken_typing(x):
    pass


@typing_registry.register_global(broken_typing)
class BrokenTemplate(AbstractTemplate):
    def generic(self, args, kws):
        raise KeyError("this template is broken")


@intrinsic
def broken_codegen(typingctx, x):
    def codegen(context, builder, sig, args):
        raise RuntimeError("this codegen is broken")

    return signature(types.int64, x), codegen


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _lowering_kernel(a):
    a[0] = broken_lowering(a[1])


def _typing_kernel(a):
    a[0] = broken_typing(a[1])


def _codegen_kernel(a):
    a[0] = broken_codegen(a[1])


@pytest.mark.parametrize(
    "kernel, callee, error, extension",
    [
        (_lowering_kernel, "broken_lowering", LoweringError, "_lower_broken"),
        (_typing_kernel, "broken_typing", TypingError, "BrokenTemplate.generic"),
        (_codegen_kernel, "broken_codegen", LoweringError, "broken_codegen.<locals>.codegen"),
    ],
)
def test_errors_name_the_extension_and_the_kernel_line(kernel, callee, error, extension):
    with pytest.raises(error) as info:
        cuda.compile_ptx(kernel, (types.int64[::1],), cc=(8, 0))
    message = str(info.value)
    assert extension in message
    assert __file__.rsplit("/", 1)[-1] in message  # where the extension is defined
    line = _line_of(kernel, callee)
    assert f"line {line}" in message or f"({line})" in message


# ---- lowering utilities ------------------------------------------------------------------


def _in_function(build):
    """Run *build* inside a fresh func.func body; returns the verified module's text."""
    from mlir import ir
    from mlir.dialects import func

    from cumlir.mlir.contexts import mlir_context

    with mlir_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ir.FunctionType.get([], []))
            with ir.InsertionPoint(fn.add_entry_block()):
                build()
                func.ReturnOp([])
        assert module.operation.verify()
        return str(module)


def test_convert_picks_the_cast_for_each_pair():
    from mlir import ir

    from cumlir import lowering_utilities as lu

    def build():
        i64, i32, i1 = (ir.IntegerType.get_signless(n) for n in (64, 32, 1))
        f32, f64, index = ir.F32Type.get(), ir.F64Type.get(), ir.IndexType.get()
        assert lu.convert(lu.i32_of(-5), i64).owner.name == "arith.extsi"
        assert lu.convert(lu.i64_of(7), i32).owner.name == "arith.trunci"
        assert lu.convert(lu.constant(1, i1), i32).owner.name == "arith.extui"
        assert lu.convert(lu.i32_of(3), f64).owner.name == "arith.sitofp"
        assert lu.convert(lu.f64_of(2.5), i64).owner.name == "arith.fptosi"
        assert lu.convert(lu.f32_of(1.5), f64).owner.name == "arith.extf"
        assert lu.convert(lu.int_of(4), index).owner.name == "arith.index_cast"
        assert lu.convert(lu.index_of(4), i64).owner.name == "arith.index_cast"
        same = lu.f32_of(1.0)
        assert lu.convert(same, f32) is same
        with pytest.raises(TypeError, match="no conversion"):
            lu.convert(lu.f32_of(1.0), ir.ComplexType.get(f32))

    text = _in_function(build)
    assert "-5 : i32" in text and "2.500000e+00 : f64" in text


def test_constant_of_unsigned_range_wraps_to_the_bit_pattern():
    from mlir import ir

    from cumlir import lowering_utilities as lu

    def build():
        value = lu.constant(2**64 - 1, ir.IntegerType.get_signless(64))
        assert str(value.owner.attributes["value"]).startswith("-1")

    _in_function(build)


def test_get_or_insert_function_declares_once():
    from mlir import ir
    from mlir.dialects import gpu

    from cumlir import lowering_utilities as lu
    from cumlir.mlir.contexts import mlir_context

    with mlir_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            gpu_module = gpu.GPUModuleOp("m")
        gpu_module.bodyRegion.blocks.append()
        f32 = ir.F32Type.get()
        fn_type = ir.FunctionType.get([f32], [f32])
        first = lu.get_or_insert_function("__nv_expf", fn_type, gpu_module)
        again = lu.get_or_insert_function("__nv_expf", fn_type, gpu_module)
        assert first.operation == again.operation
        assert str(module).count("__nv_expf") == 1
        with pytest.raises(TypeError, match="already declared"):
            lu.get_or_insert_function("__nv_expf", ir.FunctionType.get([f32], []), gpu_module)


def test_memref_tensor_round_trip_and_broadcast():
    from mlir import ir
    from mlir.dialects import memref

    from cumlir import lowering_utilities as lu

    def build():
        f32 = ir.F32Type.get()
        a = memref.alloca(ir.MemRefType.get([4, 1], f32), [], [])
        b = memref.alloca(ir.MemRefType.get([3], f32), [], [])
        tensor = lu.memref_to_tensor(a)
        assert str(tensor.type) == "tensor<4x1xf32>"
        assert str(lu.tensor_to_memref(tensor).type) == "memref<4x1xf32>"
        left, right = lu.broadcast_shapes_for_binary_op(a, b)
        assert str(left.type) == str(right.type) == "tensor<4x3xf32>"
        with pytest.raises(ValueError, match="cannot be broadcast"):
            lu.broadcast_shapes_for_binary_op(a, memref.alloca(ir.MemRefType.get([3, 2], f32), [], []))

    _in_function(build)


def test_types_module_reexports_numba_types():
    assert types.Conversion.safe < types.Conversion.unsafe
    assert issubclass(types.Integer, types.Type)
    assert types.from_dtype(np.dtype(np.float32)) == types.float32


def _pick(a, which):
    raise NotImplementedError


@extending.overload(_pick)
def _pick_overload(a, which):
    # asks numba for the literal value of `which`, then picks the element at compile time
    extending.SentryLiteralArgs(["which"]).for_function(_pick_overload).bind(a, which)
    position = which.literal_value
    return lambda a, which: a[position]


def _picking_kernel(a, out):
    out[0] = _pick(a, 3)


def test_numba_extending_helpers_for_literal_arguments_and_python_types():
    ptx, _ = cuda.compile_ptx(_picking_kernel, "void(float32[::1], float32[::1])", cc=(9, 0))
    assert re.search(r"\+12\]", ptx)  # a[3] of float32: a fixed byte offset, not a computed index
    assert extending.as_numba_type(int) == types.int64
    assert extending.is_jitted(cuda.jit(_picking_kernel)) and not extending.is_jitted(_picking_kernel)


# ---- what libraries written for numba-cuda-mlir call -------------------------------------

from mlir.dialects import arith  # noqa: E402
from numba.core import ir as numba_ir  # noqa: E402


def doubled_plus_one(x):
    pass


@type_callable(doubled_plus_one)
def _type_doubled_plus_one(context):
    return lambda x: x if isinstance(x, types.Integer) else None


seen_variables = []


@lowering_registry.lower(doubled_plus_one, types.Integer)
def _lower_doubled_plus_one(builder, target, args, kwargs):
    # numba's lowering hands callbacks ir.Var objects: libraries read .name and the types by it
    seen_variables.append((type(target), [type(a) for a in args]))
    argtype = builder.get_numba_type(args[0].name)
    assert builder.get_numba_type(target.name) == argtype
    value = builder.load_var(args[0])
    doubled = arith.addi(value, value)
    builder.store_var(target, arith.addi(doubled, arith.constant(builder.get_mlir_type(argtype), 1)))


def _doubled_kernel(a):
    a[0] = doubled_plus_one(a[1])


def test_call_lowering_receives_numba_variables():
    seen_variables.clear()
    ptx, _ = cuda.compile_ptx(_doubled_kernel, "void(int32[::1])", cc=(9, 0))
    assert seen_variables == [(numba_ir.Var, [numba_ir.Var])]
    assert re.search(r"shl\.b32|add\.s32", ptx)  # x + x, then + 1
    support.ptxas(ptx, "sm_90")


def test_refresh_registries_makes_late_declarations_visible():
    def late(x):
        pass

    def kernel(a):
        a[0] = late(a[1])

    cuda.compile_ptx(_doubled_kernel, "void(int32[::1])", cc=(9, 0))  # the typing context exists

    @type_callable(late)
    def _type_late(context):
        return lambda x: x

    @lowering_registry.lower(late, types.Any)
    def _lower_late(builder, target, args, kwargs):
        builder.store_var(target, builder.load_var(args[0]))

    extending.refresh_registries()
    extending.refresh_registries(typing=False, target=True, include_uninitialized_cuda=False)
    ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1])", cc=(9, 0))
    support.ptxas(ptx, "sm_90")
    with pytest.raises(TypeError, match=r"refresh_registries\(typing=...\) must be True or False"):
        extending.refresh_registries(typing="yes")


def test_numba_cuda_typing_module_names():
    from numba.core.typing import Signature
    from numba.core.typing.templates import fold_arguments, make_concrete_template

    from cumlir.numba_cuda import typing as nc_typing

    assert nc_typing.Signature is Signature and nc_typing.signature(types.int32, types.int32).args == (types.int32,)
    assert nc_typing.fold_arguments is fold_arguments and nc_typing.make_concrete_template is make_concrete_template
