"""What ``pip install cumlir`` leaves out: NVRTC (the extra ``nvrtc``) and libNVVM (the extra
``nvvm``). Where cuda-pathfinder finds neither, kernels compile and link (the device runtime
too), and what needs one raises an error naming the feature and the extra."""

import numpy as np
import pytest
from cuda import pathfinder

from cumlir import cuda, optional_libraries
from cumlir.codegen.nvvm import libnvvm
from cumlir.linkable import CUSource
from cumlir.nrt import compiled as nrt_compiled
from cumlir.nvrtc import _nvrtc


@pytest.fixture
def without_optional_libraries(monkeypatch):
    """cuda-pathfinder as on a machine with neither library: loading them fails, and so does
    finding libdevice's bitcode (the nvvm wheel's)."""
    load = pathfinder.load_nvidia_dynamic_lib

    def load_without(name):
        if name in ("nvrtc", "nvvm"):
            raise pathfinder.DynamicLibNotFoundError(f"no {name} here")
        return load(name)

    def find_without(name):
        raise pathfinder.BitcodeLibNotFoundError(f"no {name} bitcode here")

    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", load_without)
    monkeypatch.setattr(pathfinder, "find_bitcode_lib", find_without)
    for cached in (libnvvm._nvvm, libnvvm._libdevice, _nvrtc, nrt_compiled.runtime):
        cached.cache_clear()
    yield
    for cached in (libnvvm._nvvm, libnvvm._libdevice, _nvrtc, nrt_compiled.runtime):
        cached.cache_clear()


def _allocating(a, n):
    scratch = np.zeros(n)
    scratch[0] = 2.0
    a[0] = scratch[0]


def test_kernels_that_allocate_link_without_either(without_optional_libraries):
    kernel = cuda.jit("void(float64[:], int64)")(_allocating)
    cubin = next(iter(kernel.overloads.values())).output("cubin", (9, 0))
    assert cubin[:4] == b"\x7fELF"
    ptx = kernel.inspect_ptx(cc=(9, 0))
    assert "NRT_MemInfo_alloc_aligned" in next(iter(ptx.values()))


@pytest.mark.parametrize(
    "options, needed",
    [
        ({"backend": "nvvm"}, r"the nvvm code generator \(backend='nvvm'\) .* needs the CUDA library nvvm"),
        ({"lto": True}, r"LTO-IR \(lto=True, output='ltoir'\) needs the CUDA library nvvm"),
    ],
)
def test_what_needs_libnvvm_names_the_extra(without_optional_libraries, options, needed):
    kernel = cuda.jit("void(float64[:], int64)", **options)(_allocating)
    with pytest.raises(optional_libraries.MissingLibraryError, match=needed) as raised:
        next(iter(kernel.overloads.values())).output("cubin", (9, 0))
    assert "pip install 'cumlir[nvvm]'" in str(raised.value)


def test_cuda_cpp_names_the_nvrtc_extra(without_optional_libraries):
    source = CUSource('extern "C" __device__ int twice(int* r, int x) { *r = 2 * x; return 0; }', name="twice.cu")
    twice = cuda.declare_device("twice", "int32(int32)", link=[source])

    def k(a):
        a[0] = twice(a[0])

    kernel = cuda.jit("void(int32[:])")(k)
    with pytest.raises(
        optional_libraries.MissingLibraryError, match=r"CUDA C\+\+ .* needs the CUDA library nvrtc"
    ) as raised:
        next(iter(kernel.overloads.values())).output("cubin", (9, 0))
    assert "pip install 'cumlir[nvrtc]'" in str(raised.value)


def test_the_toolkit_version_needs_neither(without_optional_libraries):
    assert cuda.runtime.get_version()[0] == 13
