"""The MLIR that lowering emits: signedness decided by Numba types, control flow, calls."""

import pytest
from numba.core import types

from cumlir import compiler

from .cases import scalar_kernels


def _mlir(pyfunc, *argtypes, stage="mlir"):
    return compiler.emit(pyfunc, argtypes, stage, (9, 0))


def _scalar_kernel(expression):
    """A kernel ``out[0] = <expression of a[0], b[0]>`` with no other arithmetic or comparison."""
    namespace = {}
    exec(f"def k(a, b, out):\n    x = a[0]\n    y = b[0]\n    out[0] = {expression}\n", namespace)
    return namespace["k"]


def _array(name, ndim=1):
    return types.Array(types.boolean if name == "bool" else getattr(types, name), ndim, "C")


@pytest.mark.parametrize(
    "name,dtype,expected,forbidden",
    [
        ("lt", "uint64", "arith.cmpi ult", "arith.cmpi slt"),
        ("lt", "int64", "arith.cmpi slt", "arith.cmpi ult"),
        ("ge", "uint32", "arith.cmpi uge", "arith.cmpi sge"),
        ("lt", "bool", "arith.cmpi ult", "arith.cmpi slt"),
        ("floordiv", "uint64", "arith.divui", "arith.floordivsi"),
        ("floordiv", "int64", "arith.floordivsi", "arith.divui"),
        ("mod", "uint64", "arith.remui", "arith.remsi"),
        ("mod", "int32", "arith.remsi", "arith.remui"),
        ("rshift", "uint64", "arith.shrui", "arith.shrsi"),
        ("rshift", "int64", "arith.shrsi", "arith.shrui"),
    ],
)
def test_signedness_follows_numba_types(name, dtype, expected, forbidden):
    symbol = scalar_kernels.BINARY_OPERATORS[name][1]
    kernel = _scalar_kernel(f"x {symbol} y")
    text = _mlir(kernel, _array(dtype), _array(dtype), _array("int64"), stage="optimized")
    assert expected in text
    assert forbidden not in text


@pytest.mark.parametrize(
    "source,target,expected,forbidden",
    [
        ("uint64", "float64", "arith.uitofp", "arith.sitofp"),
        ("int64", "float64", "arith.sitofp", "arith.uitofp"),
        ("float64", "uint64", "arith.fptoui", "arith.fptosi"),
        ("float32", "int32", "arith.fptosi", "arith.fptoui"),
        ("bool", "int64", "arith.extui", "arith.extsi"),
        ("uint32", "int64", "arith.extui", "arith.extsi"),
        ("int32", "int64", "arith.extsi", "arith.extui"),
        ("bool", "float64", "arith.uitofp", "arith.sitofp"),
    ],
)
def test_conversions_follow_source_and_target_types(source, target, expected, forbidden):
    convert = "bool" if target == "bool" else f"np.{target}"
    kernel = _scalar_kernel(f"{convert}(x)")
    kernel.__globals__["np"] = __import__("numpy")
    text = _mlir(kernel, _array(source), _array(source), _array(target), stage="optimized")
    assert expected in text
    assert forbidden not in text


def test_blocks_take_live_variables_as_arguments():
    text = _mlir(scalar_kernels.loop_control, _array("int64"), _array("int64"))
    assert "cf.cond_br" in text and "cf.br" in text
    assert "memref.alloca" not in text  # variables live in block arguments, not memory


def test_range_loop_state_is_allocated_in_the_entry_block():
    text = _mlir(scalar_kernels.ranged_sums, _array("int64"), _array("int64"))
    entry = text.split("^bb1")[0]
    assert entry.count("memref.alloca()") == 3


def test_kernel_is_a_gpu_func_in_a_gpu_module():
    text = _mlir(scalar_kernels.early_return, _array("int32"), _array("int32"))
    assert "gpu.module @cumlir_kernels" in text
    assert "gpu.func @early_return(" in text and ") kernel {" in text


def test_layout_a_arrays_address_elements_with_signed_offsets():
    a = types.Array(types.float32, 1, "A")
    text = _mlir(scalar_kernels.unary_minus, a, a)
    assert "memref.extract_strided_metadata" in text
    assert "memref.reinterpret_cast" in text


def test_unsigned_times_literal_is_an_integer_multiply():
    # numba types uint64 * 3 as an int64 multiply; it must never become a float one
    text = _mlir(_scalar_kernel("x * 3"), _array("uint64"), _array("uint64"), _array("int64"), stage="optimized")
    assert "arith.muli" in text
    assert "arith.mulf" not in text and "tofp" not in text


def test_bool_to_int_is_one_not_minus_one():
    # int(True) == 1: the widening of an i1 must be unsigned
    text = _mlir(_scalar_kernel("int(x)"), _array("bool"), _array("bool"), _array("int64"), stage="optimized")
    assert "arith.extui" in text and "arith.extsi" not in text
