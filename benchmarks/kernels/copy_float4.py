"""A grid-stride copy of float4s (one 16-byte load and store per element)."""

import numpy as np

from cumlir import cuda

THREADS = 256
GRID = 2048
METRIC = "GB/s"
NUMBA_CUDA = "numba-cuda has no arrays of vector types (no NumPy dtype for them)"
NUMBA_CUDA_MLIR = "numba-cuda-mlir's signatures have no arrays of vector types (float4 is not a name there)"
OUTPUTS = {"dst": None}

FLOAT4 = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("w", "<f4")])


def copy_float4(src, dst):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < src.shape[0]:
        dst[i] = src[i]
        i += stride


KERNELS = [(copy_float4, "void(float4[::1], float4[::1])")]

CUDA_SOURCE = r"""
extern "C" __global__ void copy_float4(const float4* src, float4* dst, int n) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}
"""


class Float4View:
    """A float32 device array (CuPy's) seen as an array of float4 through the CUDA Array
    Interface (CuPy has no structured dtypes)."""

    def __init__(self, array):
        assert array.dtype == np.float32 and array.flags.c_contiguous and array.size % 4 == 0
        self.base = array
        cai = array.__cuda_array_interface__
        self.__cuda_array_interface__ = {
            "shape": (array.size // 4,),
            "strides": None,
            "typestr": "|V16",
            "descr": FLOAT4.descr,
            "data": cai["data"],
            "version": 3,
            "stream": None,  # the same stream as every launch here: no ordering needed
        }


def setup(xp, rng, quick=False):
    n = 1 << (14 if quick else 25)
    src = xp.asarray(rng.standard_normal(4 * n, dtype=np.float32))
    dst = xp.empty(4 * n, np.float32)
    inputs = {"src": src, "dst": dst}
    if xp is not np:
        inputs["src4"], inputs["dst4"] = Float4View(src), Float4View(dst)
    else:  # host arrays (the simulator) view themselves as float4
        inputs["src4"], inputs["dst4"] = src.view(FLOAT4), dst.view(FLOAT4)
    return inputs


def launch(cuda, kernels, inputs):
    kernels["copy_float4"][GRID, THREADS](inputs["src4"], inputs["dst4"])


def launch_twin(twin, inputs):
    n = inputs["src"].shape[0] // 4
    twin("copy_float4", GRID, THREADS, inputs["src"], inputs["dst"], np.int32(n))


def work(inputs):
    return 2 * inputs["src"].nbytes


def emulate(inputs):
    return {"dst": inputs["src"].copy()}


def check(inputs, outputs):
    np.testing.assert_array_equal(outputs["dst"], inputs["src"])
