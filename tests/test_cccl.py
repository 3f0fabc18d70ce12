"""CCCL operators without a GPU: the void* wrappers compile, with the names asked for."""

import pytest

from cumlir.codegen import targets
from cumlir.interop import cccl

from . import support
from .cases import cccl_operators
from .test_codegen import ARCHS


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
@pytest.mark.parametrize("case", range(len(cccl_operators.OPERATORS)))
def test_raw_op_wrappers_assemble(case, cc):
    pyfunc, operands, result = cccl_operators.OPERATORS[case]
    ptx, symbol = cccl.compile_raw_op(pyfunc, operands, result, cc=cc, output="ptx")
    # void NAME(void* operand..., void* out): one pointer parameter per operand and the result
    header = ptx[ptx.index(f".visible .func {symbol}(") :].split(")", 1)[0]
    assert header.count(".param .b64") == len(operands) + 1
    support.ptxas(ptx, targets.chip(cc))


def test_raw_op_names():
    _, given = cccl.compile_raw_op(cccl_operators.add, ["int32", "int32"], name="my_add", cc=(9, 0), output="ptx")
    assert given == "my_add"
    _, first = cccl.compile_raw_op(cccl_operators.add, ["int32", "int32"], cc=(9, 0), output="ptx")
    _, second = cccl.compile_raw_op(cccl_operators.add, ["int64", "int64"], cc=(9, 0), output="ptx")
    assert first != second and first.startswith("cumlir_op_add_")


def test_raw_op_lto_ir():
    from cumlir import linking
    from cumlir.linkable import LTOIR, CUSource

    code, symbol = cccl.compile_raw_op(cccl_operators.add, ["int32", "int32"], cc=(9, 0))
    assert isinstance(code, bytes) and len(code) > 0
    # CCCL declares the operator as extern "C" void NAME(void*, void*, void*) and calls it
    caller = (
        f'extern "C" __device__ void {symbol}(void*, void*, void*);\n'
        f'extern "C" __global__ void reduce_pair(int* a, int* b, int* out) {{ {symbol}(a, b, out); }}\n'
    )
    cubin = linking.link_cubin([LTOIR(code, "op.ltoir"), CUSource(caller, "caller.cu")], (9, 0))
    assert b"reduce_pair" in cubin


def test_results_are_stored_in_the_operand_type():
    # int32 + int32 is int64 in Python's promotion, but CCCL's result slot holds an int32
    ptx, symbol = cccl.compile_raw_op(cccl_operators.add, ["int32", "int32"], cc=(9, 0), output="ptx")
    body = ptx[ptx.index(f".visible .func {symbol}(") :]
    assert "st.b32" in body or "st.u32" in body or "st.s32" in body
    assert "st.b64" not in body


def test_tuple_results_must_fill_a_record():
    with pytest.raises(TypeError, match="does not fill"):
        cccl.compile_raw_op(cccl_operators.pair_combine, [cccl_operators.PAIR] * 2, "float64", cc=(9, 0), output="ptx")


def test_unknown_operand_type():
    with pytest.raises(TypeError, match="neither a Numba type nor a NumPy dtype"):
        cccl.compile_raw_op(cccl_operators.add, ["int32", object()], cc=(9, 0), output="ptx")
