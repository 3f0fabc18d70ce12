"""numba-cuda-mlir's own names in cumlir.cuda, on a machine without a GPU: the array aliases,
resolve_cuda_array_interface_dtype, the vector_types and libdevicefuncs modules, and
compile_mlir / compile_cubin / compile_for."""

import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from . import support


def _aliases_kernel(a):
    tile = cuda.shared_array(64, np.float32, 16)
    mine = cuda.local_array((2,), np.float32)
    i = cuda.threadIdx.x
    mine[0] = a[i]
    mine[1] = 2 * a[i]
    tile[i] = mine[0] + mine[1]
    cuda.syncthreads()
    a[i] = tile[63 - i]


def test_array_aliases_are_the_namespaces_functions():
    assert cuda.local_array is cuda.local.array
    assert cuda.shared_array is cuda.shared.array
    assert {"local_array", "shared_array"} <= set(cuda.__all__)


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_array_aliases_compile(backend, cc):
    ptx, _ = cuda.compile_ptx(_aliases_kernel, "void(float32[:])", cc=cc, backend=backend)
    assert ".shared .align 16 .b8" in ptx
    assert "bar.sync" in ptx
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_array_alias_checks_its_arguments():
    def kernel(a, n):
        x = cuda.local_array(n, np.float32)
        a[0] = x[0]

    with pytest.raises(TypingError, match="cuda.local.array: the shape must be"):
        cuda.compile_ptx(kernel, "void(float32[:], int64)", cc=(8, 0))


RECORD = np.dtype([("a", "<i4"), ("b", "<f4")])


@pytest.mark.parametrize(
    "typestr, owner, expected",
    [
        ("|V8", RECORD, RECORD),  # a record's typestr is its size only: the owner's record
        ("|V8", None, np.dtype("|V8")),
        ("|V4", RECORD, np.dtype("|V4")),  # sizes differ: not the owner's
        ("<f4", RECORD, np.dtype("<f4")),  # not a record
        ("|V8", "not a dtype", np.dtype("|V8")),
        ("|V16", np.dtype([("o", "O"), ("p", "O")]), np.dtype("|V16")),  # objects: not for kernels
    ],
)
def test_resolve_cuda_array_interface_dtype(typestr, owner, expected):
    assert cuda.resolve_cuda_array_interface_dtype(typestr, owner) == expected


def test_resolve_cuda_array_interface_dtype_names_a_bad_typestr():
    with pytest.raises(TypeError, match="typestr 'nonsense' is not a NumPy type string"):
        cuda.resolve_cuda_array_interface_dtype("nonsense")


def test_vector_types_module_holds_the_namespace_s_vector_types():
    from cumlir.cuda import vector_types
    from cumlir.cuda.vector_types import float4, float32x4, ulong2

    assert cuda.vector_types is vector_types
    assert float4 is float32x4 is cuda.float32x4
    assert ulong2 is cuda.uint64x2
    assert len(vector_types.__all__) == len(set(vector_types.__all__)) == 96  # 44 types, 52 C names
    assert all(getattr(vector_types, name) is getattr(cuda, name) for name in vector_types.__all__)
    with pytest.raises(AttributeError, match="float32x5"):
        vector_types.float32x5


def test_libdevicefuncs_match_cuda_libdevice():
    from cumlir.cuda import libdevicefuncs
    from cumlir.operations.cuda.libdevice import ROUTINES, signature

    functions = libdevicefuncs.functions
    assert sorted(functions) == sorted(f"__nv_{name}" for name in ROUTINES)
    for c_name, (retty, args) in functions.items():
        assert libdevicefuncs.create_signature(retty, args) == signature(c_name[5:]), c_name
    retty, args = functions["__nv_sincosf"]
    assert retty == types.none
    assert [(a.ty, a.is_ptr) for a in args] == [(types.float32, False), (types.float32, True), (types.float32, True)]
    assert libdevicefuncs.create_signature(retty, args).return_type == types.UniTuple(types.float32, 2)


def _axpy(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += x


def test_compile_mlir_is_the_gpu_module():
    lowered = cuda.compile_mlir(_axpy, "void(float32[:], float32)", cc=(8, 0))
    optimized = cuda.compile_mlir(_axpy, "void(float32[:], float32)", cc=(8, 0), optimized=True)
    for text in (lowered, optimized):
        assert "gpu.module" in text and "gpu.func" in text and "kernel" in text
    assert lowered != optimized
    assert "llvm.func" not in lowered  # the MLIR stages, before the conversion to LLVM


def test_compile_mlir_takes_jit_options():
    text = cuda.compile_mlir(_axpy, "void(float32[:], float32)", cc=(8, 0), fastmath=True, optimized=True)
    (flags,) = set(re.findall(r"fastmath<([a-z,]+)>", text))
    assert set(flags.split(",")) == {"reassoc", "nsz", "arcp", "contract", "afn"}  # fastmath=True: all but nnan, ninf
    with pytest.raises(TypeError, match="optimized must be True or False"):
        cuda.compile_mlir(_axpy, "void(float32[:], float32)", cc=(8, 0), optimized="yes")
    with pytest.raises(TypeError, match="fastmth"):
        cuda.compile_mlir(_axpy, "void(float32[:], float32)", cc=(8, 0), fastmth=True)


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_compile_cubin_is_an_elf_file(backend, cc):
    cubin = cuda.compile_cubin(_axpy, "void(float32[:], float32)", cc=cc, backend=backend)
    assert isinstance(cubin, bytes) and cubin.startswith(b"\x7fELF")
    assert b"_axpy" in cubin  # the kernel's symbol


def test_compile_for_types_the_example_arguments():
    kernel = cuda.compile_for(_axpy, np.zeros(8, np.float32), np.float32(2), cc=(8, 0))
    ptx = kernel.output("ptx", (8, 0))
    assert ".entry" in ptx and "add.f32" in ptx
    support.ptxas(ptx, "sm_80")
    # a float64 array types the kernel for float64
    ptx64 = cuda.compile_for(cuda.jit(_axpy), np.zeros(8), 2.0, cc=(8, 0)).output("ptx", (8, 0))
    assert "add.f64" in ptx64 or "add.rn.f64" in ptx64


def test_compile_for_refuses_device_functions():
    with pytest.raises(TypeError, match="compiles kernels"):
        cuda.compile_for(cuda.jit(device=True)(_axpy), np.zeros(8, np.float32), np.float32(2), cc=(8, 0))


def test_experimental_and_intrin_give_cumlir_s_intrinsics():
    from cumlir.cuda import experimental, intrin
    from cumlir.cuda.experimental import inline_ptx

    assert cuda.experimental is experimental and cuda.intrin is intrin is experimental.intrin
    assert inline_ptx is cuda.inline_ptx
    assert intrin.ffs is intrin.ffsll is cuda.ffs
    assert intrin.nanosleep is cuda.nanosleep and intrin.barrier is cuda.syncthreads
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        intrin.nothing


def test_kernels_call_them_through_the_modules(backend):
    def kernel(a):
        cuda.intrin.barrier()
        a[0] = cuda.intrin.ffsll(a[1]) + cuda.experimental.inline_ptx("mov.u32 %0, 7;", "=r", 0)

    ptx, _ = cuda.compile_ptx(kernel, "void(int64[:])", cc=(9, 0), backend=backend)
    assert "bar.sync" in ptx and "mov.u32 %r" in ptx
    support.ptxas(ptx, "sm_90")


# ---- a compiled kernel's metadata ----------------------------------------------------------


def test_kernel_metadata_without_a_gpu():
    @cuda.jit("void(float32[::1], int64)", chip="sm_90", lineinfo=True)
    def scaled(a, n):
        i = cuda.grid(1)
        if i < n:
            a[i] *= 2

    metadata = scaled.get_metadata("void(float32[::1], int64)")
    assert metadata is scaled.overloads[(types.float32[::1], types.int64)].metadata
    assert metadata["func_name"] == "scaled"
    assert metadata["gpu_target"] == "sm_90"
    assert ".entry scaled" in metadata["ptx"] and metadata["ltoir"] is None
    support.ptxas(metadata["ptx"], "sm_90")
    assert metadata["cubin"][:4] == b"\x7fELF"
    assert "gpu.func @scaled" in metadata["mlir_module_str"] or "scaled" in metadata["mlir_module_str"]
    assert metadata["targetoptions"]["lineinfo"] is True and metadata["targetoptions"]["chip"] == (9, 0)
    assert metadata["needs_nrt"] is False and metadata["use_cooperative"] is False
    assert metadata["launch_config_sensitive"] is False
    assert set(metadata) >= {"func_name", "ptx", "cubin", "targetoptions", "regs_per_thread"}
    with pytest.raises(KeyError):
        metadata["transformed_source"]


def test_kernel_metadata_says_when_the_code_needs_the_runtime():
    @cuda.jit("void(float64[::1])", chip="sm_90")
    def allocates(a):
        b = np.zeros(a.size)
        a[0] = b.size

    assert allocates.get_metadata("void(float64[::1])")["needs_nrt"] is True
