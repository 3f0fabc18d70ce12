"""Records on the CPU: typing and lowering errors, the memref form of record arrays,
load widths chosen from alignment, launch packing, and PTX for every record kernel."""

import re

import numpy as np
import pytest
from numba.core import errors, types
from numba.np import numpy_support

from cumlir import compiler, cuda
from cumlir.codegen import targets
from cumlir.lowering.module import ModuleBuilder
from cumlir.mlir.contexts import mlir_context
from cumlir.models import default_manager
from cumlir.runtime import arguments
from cumlir.typing.context import typing_context

from ... import support
from ...cases import record_kernels as R
from ...test_codegen import ARCHS, _module_ptx


def _record(dtype):
    return numpy_support.from_dtype(dtype)


def _array(dtype, ndim=1, layout="C"):
    return types.Array(_record(dtype), ndim, layout)


F8 = types.float64[:]

ENTRIES = [
    (R.copy_all_fields, (_array(R.ALL_PACKED), _array(R.ALL_PACKED))),
    (R.copy_all_fields, (_array(R.ALL_ALIGNED), _array(R.ALL_ALIGNED, 1, "A"))),
    (R.point_update, (_array(R.POINT_PACKED), F8)),
    (R.point_update, (_array(R.POINT_ALIGNED, 1, "A"), F8)),
    (R.record_copy, (_array(R.POINT_PACKED), _array(R.POINT_PACKED))),
    (R.record_copy, (_array(R.POINT_ALIGNED), _array(R.POINT_ALIGNED))),
    (R.swap_pairs, (_array(R.POINT_PACKED),)),
    (R.points_2d, (_array(R.POINT_ALIGNED, 2, "C"), types.float64[:, :])),
    (R.points_2d, (_array(R.POINT_PACKED, 2, "F"), types.float64[:, :])),
    (R.points_2d, (_array(R.POINT_PACKED, 2, "A"), types.float64[:, :])),
    (R.nested, (_array(R.OUTER), F8)),
    (R.nested, (_array(R.OUTER_PACKED), F8)),
    (R.nested_copy, (_array(R.OUTER), _array(R.OUTER))),
    (R.sub_arrays, (_array(R.WITH_ARRAY), F8)),
    (
        R.whole_sub_arrays,
        (_array(R.WITH_ARRAY), _array(R.WITH_ARRAY), types.int64[:, :], types.float64[:, :, ::1], types.float64),
    ),
    (
        R.whole_sub_arrays,
        (
            _array(R.WITH_ARRAY_PACKED),
            _array(R.WITH_ARRAY_PACKED),
            types.int64[:, :],
            types.float64[:, :, :],
            types.int32,
        ),
    ),
    (R.record_argument, (_record(R.POINT_PACKED), F8)),
    (R.record_argument, (_record(R.POINT_ALIGNED), F8)),
    (R.through_device_function, (_array(R.POINT_ALIGNED), F8)),
    (R.through_device_function, (_array(R.POINT_PACKED), F8)),
    (R.iterate_records, (_array(R.POINT_PACKED), F8)),
    (R.field_views, (_array(R.POINT_ALIGNED), F8)),
    (R.sliced_and_reshaped, (_array(R.POINT_PACKED), F8)),
    (R.field_views, (_array(R.POINT_ALIGNED, 1, "A"), F8)),
]


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_record_kernels_assemble(cc):
    ptx, symbols = _module_ptx(ENTRIES, cc)
    assert len(symbols) == len(ENTRIES)
    support.ptxas(ptx, targets.chip(cc))


def test_record_arrays_are_byte_strided_memrefs():
    from mlir import ir

    with mlir_context(), ir.Location.unknown():
        _check_record_memrefs()


def _check_record_memrefs():
    assert str(default_manager.value_type(_array(R.POINT_PACKED, 2, "C"))) == (
        "memref<?x?xi8, strided<[?, 14], offset: ?>>"
    )
    assert str(default_manager.value_type(_array(R.POINT_ALIGNED, 2, "F"))) == (
        "memref<?x?xi8, strided<[16, ?], offset: ?>>"
    )
    assert str(default_manager.value_type(_record(R.POINT_PACKED))) == "!llvm.ptr"


def _global_accesses(kernel, dtype):
    ptx, _ = _module_ptx([(kernel, (_array(dtype),) * kernel.__code__.co_argcount)], (8, 0))
    return {line.split()[0] for line in ptx.splitlines() if line.strip().startswith(("ld.global", "st.global"))}


def test_packed_fields_are_accessed_bytewise():
    # in an array of 14-byte records nothing wider than a byte is aligned
    for kernel in (R.swap_pairs, R.record_copy):
        accesses = _global_accesses(kernel, R.POINT_PACKED)
        assert accesses and all(a.endswith("8") for a in accesses), (kernel.__name__, accesses)


def test_aligned_fields_are_accessed_whole():
    assert {"ld.global.b32", "st.global.b32"} <= _global_accesses(R.swap_pairs, R.POINT_ALIGNED)
    # 16-byte records aligned to 8 are copied in 8-byte pieces
    assert {"ld.global.b64", "st.global.b64"} == _global_accesses(R.record_copy, R.POINT_ALIGNED)


def _float_registers_stored_narrower(ptx):
    """Stores narrower than 32 bits taken straight from a register a float instruction wrote
    (ptxas stores those as the float converted to an integer, not as its low bits)."""
    import re

    float_defs, bad = set(), []
    for line in ptx.splitlines():
        parts = line.strip().rstrip(";").replace(",", " ").split()
        if not parts or parts[0].startswith(("//", ".", "{", "}")):
            continue
        op, operands = parts[0], parts[1:]
        if op.startswith("st.") and re.search(r"\.b(8|16)$", op):
            bad += [line.strip()] if operands[-1] in float_defs else []
        elif operands and operands[0].startswith("%"):
            types_ = re.findall(r"\.([subf])(8|16|32|64)\b", op)
            (float_defs.add if types_ and types_[0][0] == "f" else float_defs.discard)(operands[0])
    return bad


@pytest.mark.parametrize("kernel", [R.point_update, R.record_argument, R.copy_all_fields])
def test_unaligned_float_fields_are_stored_from_integer_registers(kernel):
    dtype = R.ALL_PACKED if kernel is R.copy_all_fields else R.POINT_PACKED
    args = {R.point_update: (_array(dtype), F8), R.record_argument: (_record(dtype), F8)}
    ptx, _ = _module_ptx([(kernel, args.get(kernel, (_array(dtype), _array(dtype))))], (9, 0))
    assert "st.global.b8" in ptx
    assert _float_registers_stored_narrower(ptx) == []


def _compile(fn, argtypes):
    builder = ModuleBuilder(typing_context())
    builder.add_kernel(compiler.type_function(fn, argtypes))


def _unknown_attribute(a):
    a[0].w = 1


def _unknown_attribute_read(a, out):
    out[0] = a[0].w


def _unknown_item_read(a, out):
    out[0] = a[0]["w"]


def _unknown_item_write(a):
    a[0]["w"] = 1


@pytest.mark.parametrize("fn", [_unknown_attribute, _unknown_attribute_read, _unknown_item_read, _unknown_item_write])
def test_unknown_field_is_a_typing_error_at_its_line(fn):
    args = (_array(R.POINT_PACKED), F8)[: fn.__code__.co_argcount]
    with pytest.raises(errors.TypingError, match="no field 'w'") as info:
        _compile(fn, args)
    assert f"line {fn.__code__.co_firstlineno + 1}" in str(info.value)


def _field_position_out_of_range(a, out):
    out[0] = a[0][3]


def test_field_position_out_of_range():
    with pytest.raises(errors.TypingError, match="no field at position 3"):
        _compile(_field_position_out_of_range, (_array(R.POINT_PACKED), F8))


def _tuple_into_field(a):
    a[0].x = (1, 2)


def _record_into_field(a):
    a[0].x = a[1]


@pytest.mark.parametrize("fn", [_tuple_into_field, _record_into_field])
def test_incompatible_field_value(fn):
    with pytest.raises(errors.LoweringError, match="cannot convert .* to float32") as info:
        _compile(fn, (_array(R.POINT_PACKED),))
    assert f"line {fn.__code__.co_firstlineno + 1}" in str(info.value)


def _matrix_into_vector_field(a, m):
    a[0].v = m


def _complex_into_float_field(a, m):
    a[0]["v"] = m[0, 0]


def _tuple_into_sub_array(a, m):
    a[0].v = (1.0, 2.0, 3.0)


@pytest.mark.parametrize(
    "fn, dtype, match",
    [
        (_matrix_into_vector_field, types.float64, "cannot assign a 2-d array into the 1-d sub-array field"),
        (_complex_into_float_field, types.complex128, "complex128 does not convert to float32 \\(the field 'v'\\)"),
        (_tuple_into_sub_array, types.float64, "give an array or a number"),
    ],
)
def test_values_a_sub_array_field_cannot_take(fn, dtype, match):
    with pytest.raises(errors.TypingError, match=match) as info:
        _compile(fn, (_array(R.WITH_ARRAY), dtype[:, :]))
    assert f"line {fn.__code__.co_firstlineno + 1}" in str(info.value)


def _number_into_record(a):
    a[0] = 1.0


def test_number_into_record_element():
    with pytest.raises(errors.TypingError, match="setitem"):
        _compile(_number_into_record, (_array(R.POINT_PACKED),))


def _packed_sub_array(a, out):
    out[0] = a[0].v[0]


def test_packed_record_with_sub_arrays_at_aligned_offsets(backend):
    # 48-byte records: the float32[3] at offset 4 and the int64[2, 2] at 16 are aligned in arrays
    ptx, _ = cuda.compile_ptx(R.sub_arrays, (_array(R.WITH_ARRAY_PACKED), F8), cc=(9, 0), backend=backend)
    assert re.search(r"ld(\.global)?\.[bsu]64", ptx)  # the int64 elements whole, not byte by byte
    support.ptxas(ptx)


def test_unaligned_sub_array_field_is_refused():
    dtype = np.dtype([("c", np.int8), ("v", np.float32, (2,))])
    with pytest.raises(errors.UnsupportedError, match="not aligned"):
        _compile(_packed_sub_array, (_array(dtype), F8))


def test_view_of_a_field_not_at_multiples_of_its_size_is_refused():
    with pytest.raises(errors.UnsupportedError, match="do not hold it at multiples of its size 8"):
        _compile(R.field_views, (_array(R.POINT_PACKED), F8))


# ---- launch packing -----------------------------------------------------------------------


def _pack(argtypes, args):
    packer = arguments.ArgumentPacker(argtypes)
    staging = support.FakeLaunch()
    _, buffer = packer.pack(args, staging)
    return np.frombuffer(bytes(buffer), np.int64), staging


def test_record_array_strides_are_packed_in_bytes(rng):
    host = np.zeros((3, 5), R.POINT_PACKED)[:, ::2]
    ty = arguments.argument_type(host, 0)
    assert ty == _array(R.POINT_PACKED, 2, "A")
    slots, _ = _pack([ty], [host])
    assert list(slots) == [0x1000, 0, 3, 3, 70, 28]


def test_record_argument_type_and_staging(rng):
    host = np.zeros(4, R.POINT_ALIGNED)
    record = host[2]
    assert arguments.argument_type(record, 0) == _record(R.POINT_ALIGNED)
    slots, staging = _pack([_record(R.POINT_ALIGNED)], [record])
    assert list(slots) == [0x1000]
    (staged,) = staging.staged
    # the staged bytes alias the record, which aliases the array: a copy back updates the array
    values = rng.integers(0, 256, 16, dtype=np.uint8)
    staged[:] = values
    np.testing.assert_array_equal(host.view(np.uint8).reshape(4, 16)[2], values)


def test_record_argument_of_another_dtype_is_refused():
    with pytest.raises(TypeError, match="expected a record of dtype"):
        _pack([_record(R.POINT_ALIGNED)], [np.zeros(1, R.POINT_PACKED)[0]])
