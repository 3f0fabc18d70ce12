"""CUDA vector types on the CPU: names and aliases, CUDA's sizes and alignments, data
models, typing and its errors, signatures and launch packing, and PTX on both code
generators, with whole-vector loads and stores where the alignment allows them."""

import re

import numpy as np
import pytest
from numba.core import errors, types

from cumlir import cuda
from cumlir.codegen import targets
from cumlir.mlir.contexts import mlir_context
from cumlir.models import default_manager
from cumlir.runtime import arguments
from cumlir.types import matches_record, vector_types
from cumlir.typing.signatures import accepts, parse_signature

from ... import support
from ...cases import vector_kernels as K
from ...cases.vector_kernels import put2, put3, put4
from ...test_codegen import ARCHS

# CUDA's vector types (vector_types.h): C name -> (size, alignment); long is 64-bit
CUDA_LAYOUT = {
    "char1": (1, 1), "char2": (2, 2), "char3": (3, 1), "char4": (4, 4),
    "uchar1": (1, 1), "uchar2": (2, 2), "uchar3": (3, 1), "uchar4": (4, 4),
    "short1": (2, 2), "short2": (4, 4), "short3": (6, 2), "short4": (8, 8),
    "ushort1": (2, 2), "ushort2": (4, 4), "ushort3": (6, 2), "ushort4": (8, 8),
    "int1": (4, 4), "int2": (8, 8), "int3": (12, 4), "int4": (16, 16),
    "uint1": (4, 4), "uint2": (8, 8), "uint3": (12, 4), "uint4": (16, 16),
    "long1": (8, 8), "long2": (16, 16), "long3": (24, 8), "long4": (32, 16),
    "ulong1": (8, 8), "ulong2": (16, 16), "ulong3": (24, 8), "ulong4": (32, 16),
    "longlong1": (8, 8), "longlong2": (16, 16), "longlong3": (24, 8), "longlong4": (32, 16),
    "ulonglong1": (8, 8), "ulonglong2": (16, 16), "ulonglong3": (24, 8), "ulonglong4": (32, 16),
    "half1": (2, 2), "half2": (4, 4), "half3": (6, 2), "half4": (8, 8),
    "float1": (4, 4), "float2": (8, 8), "float3": (12, 4), "float4": (16, 16),
    "double1": (8, 8), "double2": (16, 16), "double3": (24, 8), "double4": (32, 16),
}  # fmt: skip


def _ptx(fn, sig, backend="nvptx", cc=(9, 0)):
    ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, backend=backend)
    support.ptxas(ptx, targets.chip(cc))
    return ptx


# ---- names, sizes, models -------------------------------------------------------------------


def test_every_vector_type_and_alias_is_in_the_cuda_namespace():
    assert len(K.TYPE_NAMES) == 44
    for name in K.TYPE_NAMES:
        stub = getattr(cuda, name)
        assert stub.__name__ == name
        for alias in stub.aliases:
            assert getattr(cuda, alias) is stub
    assert sorted(a for n in K.TYPE_NAMES for a in getattr(cuda, n).aliases) == sorted(CUDA_LAYOUT)
    assert cuda.float4 is cuda.float32x4 and cuda.double2 is cuda.float64x2 and cuda.long3 is cuda.int64x3
    assert cuda.longlong4 is cuda.long4 and cuda.ulong1 is cuda.uint64x1 and cuda.uchar2 is cuda.uint8x2
    with pytest.raises(RuntimeError, match="cuda.float32x4 can only be used inside"):
        cuda.float4(1.0, 2.0, 3.0, 4.0)


@pytest.mark.parametrize("alias", sorted(CUDA_LAYOUT))
def test_sizes_and_alignments_are_cudas(alias):
    vty = vector_types[getattr(cuda, alias).__name__]
    assert (vty.size, vty.alignment) == CUDA_LAYOUT[alias]
    assert vty.numpy_dtype().itemsize == vty.size


def test_data_models():
    from mlir import ir

    with mlir_context(), ir.Location.unknown():
        _check_models()


def _check_models():
    assert str(default_manager.value_type(vector_types["float32x4"])) == "!llvm.struct<(f32, f32, f32, f32)>"
    assert str(default_manager.value_type(vector_types["uint8x3"])) == "!llvm.struct<(i8, i8, i8)>"
    # arrays of vectors are byte-strided, as arrays of records
    assert str(default_manager.value_type(vector_types["float64x2"][::1])) == "memref<?xi8, strided<[16], offset: ?>>"
    assert (
        str(default_manager.value_type(vector_types["int16x3"][:, :])) == "memref<?x?xi8, strided<[?, ?], offset: ?>>"
    )


# ---- typing -------------------------------------------------------------------------------------


def _typed(fn, sig):
    from cumlir import compiler

    argtypes, _ = parse_signature(sig)
    return compiler.type_function(fn, argtypes)


def test_constructors_and_lanes_are_typed():
    def kernel(src, out):
        v2 = cuda.int2(src[0], src[1])
        v4 = cuda.int32x4(v2, 3, src[2])
        v3 = cuda.int3(cuda.int1(7), v2)
        lane = v4.w
        out[0] = lane + v3.z

    typed = _typed(kernel, "void(float64[::1], int64[::1])")
    typemap = typed.typemap
    assert typemap["v2"] == vector_types["int32x2"]
    assert typemap["v4"] == vector_types["int32x4"]
    assert typemap["v3"] == vector_types["int32x3"]
    assert typemap["lane"] == types.int32


def _typing_error(body, match):
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(body, "void(float32[::1])", cc=(9, 0))
    return str(info.value)


def test_wrong_number_of_lanes_is_a_typing_error_naming_the_line():
    def too_few(out):
        out[0] = cuda.float32x4(1.0, 2.0).x

    def too_many(out):
        out[0] = cuda.float2(cuda.float2(1.0, 2.0), 3.0).x

    message = _typing_error(too_few, r"cuda.float32x4 needs 4 lanes, got 2 \(from float64, float64\)")
    assert "test_vectors.py" in message and "cuda.float32x4(1.0, 2.0)" in message
    _typing_error(too_many, r"cuda.float32x2 needs 2 lanes, got 3")


def test_missing_lane_is_a_typing_error_naming_the_line():
    def w_of_two(out):
        v = cuda.float2(1.0, 2.0)
        out[0] = v.w

    message = _typing_error(w_of_two, r"float32x2 has 2 lanes \(x, y\): no 'w'")
    assert "out[0] = v.w" in message


def test_other_arguments_are_refused():
    def complex_among_lanes(out):
        out[0] = cuda.float2(1j, 2.0).x

    def array_lane(out):
        out[0] = cuda.float2(out, 2.0).x

    def bool_broadcast(out):
        out[0] = cuda.float2(True).x

    _typing_error(complex_among_lanes, r"cuda.float32x2: argument 1 is a complex128; a complex number makes a 2-lane")
    _typing_error(array_lane, r"cuda.float32x2: argument 1 is a array\(float32, 1d, C\), not a number or vector")
    _typing_error(bool_broadcast, r"cuda.float32x2 needs 2 lanes, got 1 \(from bool\)")


def test_products_of_two_vectors_are_refused_and_lanes_are_read_only():
    def multiply(out):
        v = cuda.float2(1.0, 2.0) * cuda.float2(1.0, 2.0)
        out[0] = v.x

    def assign(out):
        v = cuda.float2(1.0, 2.0)
        v.x = 3.0
        out[0] = v.x

    _typing_error(multiply, r"float32x2 \* float32x2: between two vectors only \+ and - are defined")
    with pytest.raises(errors.UnsupportedError, match=r"the lanes of float32x2 cannot be assigned"):
        cuda.compile_ptx(assign, "void(float32[::1])", cc=(9, 0))


def _broadcasts_and_conversions(a, out):
    put4(out, 0, cuda.float32x4(a[0]))  # one float64 rounded into every lane
    put3(out, 4, cuda.int16x3(cuda.float32x3(a[1], a[2], a[3])))  # float lanes truncated
    put2(out, 7, cuda.float64x2(cuda.int8x2(a[4], a[5])))
    # integer lanes wrapped (a float lane outside uint8's range would be undefined, as in C)
    put4(out, 9, cuda.uint8x4(cuda.int32x2(a[6], a[7]), int(a[8]), cuda.uint16x1(a[9])))


def _broadcasts_and_conversions_reference(a):
    i8 = np.trunc(a[4:6]).astype(np.int8)
    wrapped = np.array([int(x) % 256 for x in np.trunc(a[6:10])], np.float64)
    return np.concatenate([[np.float32(a[0])] * 4, np.trunc(a[1:4].astype(np.float32)), i8, wrapped])


def test_one_scalar_fills_every_lane_and_lanes_of_other_types_are_converted(simulator_or_gpu, rng):
    a = np.concatenate([rng.standard_normal(4) * 1000, rng.uniform(-120, 120, 2), rng.uniform(0, 60000, 4)])
    out = support.poisoned(13, np.float64)
    cuda.jit(_broadcasts_and_conversions)[1, 1](a, out)
    np.testing.assert_array_equal(out, _broadcasts_and_conversions_reference(a))


@pytest.mark.parametrize("name", K.TYPE_NAMES)
def test_shared_and_local_arrays_of_every_vector_type(name, simulator_or_gpu, rng):
    base, n = name.split("x")
    n = int(n)
    dtype = np.dtype(base)
    src = rng.integers(0, 256, K.MEMORY_THREADS * n * dtype.itemsize, dtype=np.uint8).view(dtype)
    if dtype.kind == "f":
        src = (rng.standard_normal(K.MEMORY_THREADS * n) * 100).astype(dtype)
    dst = support.poisoned(src.size, dtype)
    cuda.jit(K.memory_kernel(base, n))[1, K.MEMORY_THREADS](src, dst)
    np.testing.assert_array_equal(dst, K.memory_reference(src, n))


@pytest.mark.parametrize("name, suffix", [("float32x4", r"v4\.(f32|b32)"), ("float64x2", r"v2\.(f64|b64)")])
def test_shared_arrays_of_vectors_are_accessed_whole(name, suffix, backend):
    base, n = name.split("x")
    ty = getattr(types, base)
    ptx = _ptx(K.memory_kernel(base, int(n)), (ty[::1], ty[::1]), backend, (8, 0))
    assert re.search(rf"\bst\.shared\.{suffix}", ptx) and re.search(rf"\bld\.shared\.{suffix}", ptx), ptx


def test_an_alignment_below_the_vectors_is_refused():
    def aligned(out):
        s = cuda.shared.array(4, cuda.float32x3, alignment=4)  # a float3's own alignment: fine
        t = cuda.shared.array(4, cuda.float32x4, alignment=8)
        out[0] = s[0].x + t[0].x

    with pytest.raises(errors.TypingError, match=r"alignment 8 is less than float32x4's \(16 bytes\)"):
        cuda.compile_ptx(aligned, "void(float32[::1])", cc=(9, 0))


# ---- signatures and launch packing ---------------------------------------------------------------


def test_signature_strings_name_vector_types_both_ways():
    argtypes, _ = parse_signature("void(float4[::1], float32x4[:, :], int2, ulonglong3)")
    assert argtypes == (
        vector_types["float32x4"][::1],
        vector_types["float32x4"][:, :],
        vector_types["int32x2"],
        vector_types["uint64x3"],
    )


def _host_type(array):
    return arguments.argument_type(array, 0)


def test_structured_arrays_laying_out_the_lanes_stand_in_for_vector_arrays():
    f4 = vector_types["float32x4"]
    declared = (f4[::1],)
    assert accepts(declared, (_host_type(np.zeros(4, f4.numpy_dtype())),))
    aligned = np.dtype([("x", "f4"), ("y", "f4"), ("z", "f4"), ("w", "f4")], align=True)
    assert accepts(declared, (_host_type(np.zeros(4, aligned)),))
    for other in (
        np.dtype([("x", "f4"), ("y", "f4"), ("w", "f4"), ("z", "f4")]),  # lanes in another order
        np.dtype([("x", "f8"), ("y", "f8"), ("z", "f8"), ("w", "f8")]),  # another base type
        np.dtype([("x", "f4"), ("y", "f4"), ("z", "f4")]),  # three lanes
        np.dtype({"names": list("xyzw"), "formats": ["f4"] * 4, "itemsize": 32}),  # padded
    ):
        assert not accepts(declared, (_host_type(np.zeros(4, other)),)), other
    assert not matches_record(f4, types.float32)


def test_eager_kernels_take_structured_arrays_and_records():
    copy = cuda.jit("void(float4[::1], float4[::1])")(K.grid_stride_copy)
    f4, i2 = (vector_types[n].numpy_dtype() for n in ("float32x4", "int32x2"))
    host = np.zeros(8, f4)
    assert copy.overload_for((_host_type(host), _host_type(host))).argtypes[0] == vector_types["float32x4"][::1]
    with pytest.raises(TypeError, match="no compiled signature accepts"):
        copy.overload_for((_host_type(np.zeros(8, np.float32)),) * 2)
    by_value = cuda.jit("void(float4, int2, float4[::1])")(K.vector_argument)
    argtypes = tuple(arguments.argument_type(a, 0) for a in (np.zeros(1, f4)[0], np.zeros(1, i2)[0], host))
    assert by_value.overload_for(argtypes).argtypes[:2] == (vector_types["float32x4"], vector_types["int32x2"])


class _FakeStaging:
    def __init__(self, pointer=0x1000):
        self.pointer = pointer

    def stage_host_array(self, array):
        return self.pointer, array.shape, array.strides, array.itemsize


def _pack(argtypes, args, pointer=0x1000):
    packer = arguments.ArgumentPacker(argtypes)
    _, buffer = packer.pack(args, _FakeStaging(pointer))
    return bytes(buffer)


def test_vector_arrays_are_packed_with_byte_strides():
    d2 = vector_types["float64x2"]
    host = np.zeros((3, 6), d2.numpy_dtype())[:, ::2]
    slots = np.frombuffer(_pack([d2[:, :]], [host]), np.int64)
    assert list(slots) == [0x1000, 0, 3, 3, 96, 32]


def test_misaligned_vector_arrays_are_refused():
    f4 = vector_types["float32x4"]
    with pytest.raises(ValueError, match=r"an array of float32x4 must be aligned to 16 bytes"):
        _pack([f4[::1]], [np.zeros(4, f4.numpy_dtype())], pointer=0x1008)


def test_vector_arguments_are_packed_lane_by_lane():
    i3 = vector_types["int32x3"]
    value = np.array((-7, 8, 2**31 - 1), i3.numpy_dtype())[()]
    assert accepts((i3,), (arguments.argument_type(value, 0),))
    slots = np.frombuffer(_pack([i3], [value]), np.int32).reshape(3, 2)[:, 0]
    assert list(slots) == [-7, 8, 2**31 - 1]
    with pytest.raises(TypeError, match="expected a record with the lanes of int32x3"):
        _pack([i3], [(1, 2, 3)])


# ---- PTX ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_vector_kernels_assemble(backend, cc):
    for base in K.BASE_TYPES:
        _ptx(K.compositions_kernel(base), f"void({base}[::1], {base}[::1])", backend, cc)
    _ptx(K.conversions, "void(float64[::1], float64[::1])", backend, cc)
    _ptx(K.device_functions, "void(float4[::1], float32, float4[::1], float64[::1])", backend, cc)
    _ptx(K.vector_argument, "void(float4, int2, float4[::1])", backend, cc)
    _ptx(K.copy_2d, "void(int4[::1, :], int4[::1, :])", backend, cc)
    _ptx(K.views_and_iteration, "void(float4[:], float64[::1])", backend, cc)
    _ptx(K.copy_2d, "void(double3[:, ::1], double3[:, :])", backend, cc)


def test_every_vector_array_is_copied(backend):
    for name in K.TYPE_NAMES:
        base, n = name.split("x")
        _ptx(K.reverse_lanes_kernel(base, int(n)), f"void({name}[:], {name}[::1])", backend)


def _accesses(name, backend):
    ptx = _ptx(K.grid_stride_copy, f"void({name}[::1], {name}[::1])", backend)
    return [line.split()[0] for line in ptx.splitlines() if line.strip().startswith(("ld.global", "st.global"))]


# the one or two accesses of a whole vector: PTX suffix by code generator (NVPTX writes bit types)
WHOLE = [
    ("float32x4", r"v4\.(f32|b32)", 1),
    ("int32x4", r"v4\.(u32|s32|b32)", 1),
    ("float32x2", r"v2\.(f32|b32)", 1),
    ("float64x2", r"v2\.(f64|b64)", 1),
    ("uint64x2", r"v2\.(u64|b64)", 1),
    ("int16x4", r"(v4\.(u16|s16|b16)|v2\.b32)", 1),  # NVPTX packs the four halves in two registers
    ("float64x4", r"v2\.(f64|b64)", 2),  # aligned to 16 only, as in CUDA
]


@pytest.mark.parametrize("name, suffix, count", WHOLE)
def test_whole_vectors_are_loaded_and_stored_at_once(backend, name, suffix, count):
    accesses = _accesses(name, backend)
    loads = [a for a in accesses if a.startswith("ld.")]
    stores = [a for a in accesses if a.startswith("st.")]
    # *count* of each per element copied, in every copy of the loop body (the grid-stride
    # loop is unrolled: codegen/passes/counted_loops.py)
    assert loads and len(loads) % count == 0 and len(stores) == len(loads), accesses
    assert all(re.fullmatch(r"ld\.global(\.nc)?\." + suffix, a) for a in loads), accesses
    assert all(re.fullmatch(r"st\.global\." + suffix, a) for a in stores), accesses


def test_whole_vector_accesses_do_not_depend_on_optimization(backend):
    ptx, _ = cuda.compile_ptx(
        K.grid_stride_copy, "void(float4[::1], float4[::1])", cc=(9, 0), backend=backend, opt=False
    )
    support.ptxas(ptx, "sm_90")
    assert re.search(r"\bld(\.global)?\.v4\.(f32|b32)", ptx) and re.search(r"\bst(\.global)?\.v4\.(f32|b32)", ptx)


def test_three_lane_vectors_are_accessed_lane_by_lane(backend):
    # aligned only to their base type: a vector access could be misaligned
    accesses = _accesses("float32x3", backend)
    assert accesses and len(accesses) % 6 == 0 and not any(".v" in a for a in accesses), accesses


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_cxx_callers_link_vector_operators(cc):
    from cumlir import linking
    from cumlir.linkable import CUSource, PTXSource

    ptx, _ = cuda.compile(K.scale_xyz, "float4(float4, float32)", cc=cc, abi_info={"abi_name": "scale_xyz"})
    cubin = linking.link_cubin([PTXSource(ptx, "scale_xyz.ptx"), CUSource(K.SCALE_XYZ_CALLER, "caller.cu")], cc)
    assert b"call_scale_xyz" in cubin and b"scale_xyz" in cubin


def test_the_operation_module_names_the_same_base_types():
    from cumlir.operations.cuda import vectors
    from cumlir.types import BASE_TYPES

    assert vectors.BASE_TYPES == BASE_TYPES


# ---- scalar arrays viewed as vectors ------------------------------------------------------------


@pytest.mark.parametrize("name", ["float32x4", "float32x2", "int16x4", "float64x2", "uint8x3"])
@pytest.mark.parametrize("array", [types.float32[::1], types.float32[:, ::1]], ids=str)
def test_views_as_vectors_assemble(name, array, backend):
    base = vector_types[name].base_type
    array = array.copy(dtype=base)
    argtypes = (array, base[::1], array, types.int64[::1])
    support.checked_ptx(K.viewed_kernel(name).py_func, argtypes, backend, (9, 0))


def _float4_sums(a, out):
    v = a.view(cuda.float4)
    i = cuda.grid(1)
    if i < v.size:
        out[i] = v[i].x + v[i].y + v[i].z + v[i].w


def test_a_float32_array_viewed_as_float4_is_loaded_whole(backend):
    ptx = support.checked_ptx(_float4_sums, (types.float32[::1], types.float32[::1]), backend, (9, 0))
    assert re.search(r"ld\.global(\.nc)?\.v4\.(f32|b32)", ptx), ptx


def test_a_view_of_something_that_is_no_dtype_is_a_typing_error():
    def kernel(a, out):
        out[0] = a.view(cuda.syncthreads)[0]

    with pytest.raises(errors.TypingError, match="array.view\\(\\): .* names no dtype") as info:
        cuda.compile_ptx(kernel, (types.float32[::1], types.float32[::1]), cc=(9, 0))
    assert "out[0] = a.view(cuda.syncthreads)[0]" in str(info.value)
