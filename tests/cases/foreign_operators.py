"""Operators compiled on their own for foreign callers, and the CUDA C++ that calls them
(shared by test_compile_api.py and test_gpu_linking.py)."""

import numpy as np
from numba import from_dtype
from numba.core import types

from cumlir import cuda


def add(x, y):
    return x + y


def scale_add(x, y):
    return x * np.float32(2.5) + y


def unsigned_less(a, b):
    return a < b


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit(device=True)
def _square(x):
    return x * x


def sum_of_squares(x, y):
    return _square(x) + _square(y)


def void_add_int32(a, b, out):
    """CCCL's RawOp convention: void op(void* a, void* b, void* out)."""
    x = cuda.carray(a, 1, np.int32)
    y = cuda.carray(b, (1,), dtype=np.int32)
    result = cuda.carray(out, 1, np.int32)
    result[0] = x[0] + y[0]


def pointer_walk(src, out, n):
    """Pointer indexing and arithmetic: out[i] = src[i] + src[i + 1]."""
    for i in range(n):
        out[i] = src[i] + (src + 1)[i]
    end = out + n
    end[-1] = (1 + src)[n - 1] - (src + n)[-1]


PAIR = np.dtype([("key", np.int32), ("value", np.float64)], align=True)
PAIR_TYPE = from_dtype(PAIR)


def pair_max(a, b, out):
    """A record operator over pointers: the pair with the larger value, keys summed."""
    first, second = a[0], b[0]
    out[0].key = first.key + second.key
    out[0].value = max(first.value, second.value)


I32, U64, F32, F64 = types.int32, types.uint64, types.float32, types.float64
PTR_PAIR = types.CPointer(PAIR_TYPE)

# (python function, signature, C name, C return type, C argument types, numba return type)
SCALAR_OPERATORS = [
    (add, "int32(int32, int32)", "add_i32", "int", ["int", "int"], I32),
    (scale_add, (F32, F32), "scale_add_f32", "float", ["float", "float"], F32),
    (unsigned_less, (U64, U64), "less_u64", "bool", ["unsigned long long"] * 2, types.boolean),
    (clamp, (F64, F64, F64), "clamp_f64", "double", ["double"] * 3, F64),
    (sum_of_squares, (I32, I32), "sum_squares", "long long", ["int", "int"], types.int64),
]

PAIR_CXX = "struct Pair { int key; double value; };\n"

# void op(void* a, void* b, void* out): (python function, signature, C name, C element type, NumPy dtype)
VOID_OPERATORS = [
    (void_add_int32, "void(voidptr, voidptr, voidptr)", "void_add", "int", np.dtype(np.int32)),
    (pair_max, (PTR_PAIR, PTR_PAIR, PTR_PAIR), "pair_max", "Pair", PAIR),
]


def scalar_caller(name, ret_c, arg_cs):
    """A CUDA C++ kernel applying the external device function *name* elementwise."""
    params = ", ".join(f"{c} x{k}" for k, c in enumerate(arg_cs))
    inputs = ", ".join(f"const {c}* a{k}" for k, c in enumerate(arg_cs))
    call = ", ".join(f"a{k}[i]" for k in range(len(arg_cs)))
    return (
        f'extern "C" __device__ {ret_c} {name}({params});\n'
        f'extern "C" __global__ void call_{name}({inputs}, {ret_c}* out, int n) {{\n'
        f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (i < n) out[i] = {name}({call});\n}}\n"
    )


def void_caller(name, element_c):
    """A CUDA C++ kernel calling the void* operator *name* on each element of two arrays."""
    return (
        PAIR_CXX + f'extern "C" __device__ void {name}(void*, void*, void*);\n'
        f'extern "C" __global__ void call_{name}({element_c}* a, {element_c}* b, {element_c}* out, int n) {{\n'
        f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (i < n) {name}(&a[i], &b[i], &out[i]);\n}}\n"
    )


MUL_CXX = 'extern "C" __device__ int mul_f32(float* r, float x, float y) { *r = x * y; return 0; }\n'


def multiply_kernel():
    """A kernel multiplying two arrays through a CUDA C++ device function (Numba's ABI)."""
    from cumlir.linkable import CUSource

    mul = cuda.declare_device("mul_f32", "float32(float32, float32)", link=[CUSource(MUL_CXX, "mul.cu")])

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = mul(a[i], b[i])

    return k
