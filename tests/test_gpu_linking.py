"""Linking on the GPU: kernels calling CUDA C++ device functions, and CUDA C++ kernels
(NVRTC, launched through the driver API) calling cumlir operators linked as PTX or LTO-IR."""

import ctypes
import re
import subprocess
import tempfile

import numpy as np
import pytest

from cumlir import cuda, linking
from cumlir.linkable import LTOIR, CUSource, PTXSource

from . import support
from .cases import foreign_operators

pytestmark = [pytest.mark.gpu, pytest.mark.not_simulated("CUDA C++ and PTX link items compile for the GPU only")]

N = 1000


def _cc():
    return cuda.get_current_device().compute_capability


def _launch(cubin, name, arrays, n):
    """Load *cubin* and run the extern "C" kernel *name*(arrays..., int n) over n threads."""
    from cumlir.runtime import driver as drv

    cu = drv.driver()
    drv.current_context()
    module = drv.check("cuModuleLoadData", cu.cuModuleLoadData(cubin))
    try:
        function = drv.check("cuModuleGetFunction", cu.cuModuleGetFunction(module, name.encode()))
        values = [ctypes.c_void_p(a.__cuda_array_interface__["data"][0]) for a in arrays] + [ctypes.c_int(n)]
        pointers = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
        block = 128
        drv.check(
            "cuLaunchKernel",
            cu.cuLaunchKernel(
                function, (n + block - 1) // block, 1, 1, block, 1, 1, 0, 0, ctypes.addressof(pointers), 0
            ),
        )
        drv.check("cuCtxSynchronize", cu.cuCtxSynchronize())
    finally:
        cu.cuModuleUnload(module)


def _scalar_inputs(rng, name):
    """Random inputs and the NumPy reference for each scalar operator of tests/cases/foreign_operators.py."""
    if name == "add_i32":
        a, b = (rng.integers(-(2**30), 2**30, N, dtype=np.int32) for _ in range(2))
        return [a, b], a + b
    if name == "scale_add_f32":
        a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
        return [a, b], a * np.float32(2.5) + b
    if name == "less_u64":
        a, b = (rng.integers(0, 2**64, N, dtype=np.uint64, endpoint=False) for _ in range(2))
        b[:10] = a[:10]
        return [a, b], a < b
    if name == "clamp_f64":
        x, lo = rng.standard_normal(N), rng.standard_normal(N) - 1
        hi = lo + rng.random(N) * 2
        return [x, lo, hi], np.minimum(np.maximum(x, lo), hi)
    if name == "sum_squares":
        a, b = (rng.integers(-(2**20), 2**20, N, dtype=np.int32) for _ in range(2))
        return [a, b], a.astype(np.int64) ** 2 + b.astype(np.int64) ** 2
    raise KeyError(name)


def _void_inputs(rng, name):
    if name == "void_add":
        a, b = (rng.integers(-(2**30), 2**30, N, dtype=np.int32) for _ in range(2))
        return a, b, a + b
    a, b = np.zeros(N, foreign_operators.PAIR), np.zeros(N, foreign_operators.PAIR)
    for x in (a, b):
        x["key"] = rng.integers(-1000, 1000, N)
        x["value"] = rng.standard_normal(N)
    expected = np.zeros(N, foreign_operators.PAIR)
    expected["key"] = a["key"] + b["key"]
    expected["value"] = np.maximum(a["value"], b["value"])
    return a, b, expected


def _check(out, expected):
    if out.dtype.names:
        for field in out.dtype.names:
            np.testing.assert_allclose(out[field], expected[field], rtol=1e-6)
    elif out.dtype.kind == "f":
        np.testing.assert_allclose(out, expected, rtol=1e-6)
    else:
        np.testing.assert_array_equal(out, expected)


def _check_contractible(out, expected, inputs):
    """Linked as LTO-IR, the operator is compiled together with its C++ caller, whose
    default (as with nvcc) contracts a * b + c into one fma: a float result may then
    differ from NumPy's two roundings by up to an ulp of the largest term."""
    if out.dtype.kind != "f":
        return _check(out, expected)
    terms = np.max([np.abs(x.astype(np.float64)) for x in inputs], axis=0) * 4
    assert np.all(np.abs(out.astype(np.float64) - expected) <= np.spacing(terms.astype(out.dtype)))


def _operator_code(pyfunc, sig, name, output):
    code, _ = cuda.compile(pyfunc, sig, cc=_cc(), abi_info={"abi_name": name}, output=output)
    return PTXSource(code, f"{name}.ptx") if output == "ptx" else LTOIR(code, f"{name}.ltoir")


OUTPUTS = ["ptx", "ltoir"]


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize(
    "op", foreign_operators.SCALAR_OPERATORS, ids=[op[2] for op in foreign_operators.SCALAR_OPERATORS]
)
def test_cxx_kernel_calls_cumlir_operator(rng, op, output):
    pyfunc, sig, name, ret_c, arg_cs, _ = op
    inputs, expected = _scalar_inputs(rng, name)
    operator = _operator_code(pyfunc, sig, name, output)
    caller = CUSource(foreign_operators.scalar_caller(name, ret_c, arg_cs), f"call_{name}.cu")
    cubin = linking.link_cubin([operator, caller], _cc())
    out = cuda.to_device(support.poisoned(N, expected.dtype))
    _launch(cubin, f"call_{name}", [cuda.to_device(x) for x in inputs] + [out], N)
    # as LTO-IR the operator is optimised with its caller; as PTX, ptxas may fuse its multiply-adds
    _check_contractible(out.copy_to_host(), expected, inputs)


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("op", foreign_operators.VOID_OPERATORS, ids=[op[2] for op in foreign_operators.VOID_OPERATORS])
def test_cxx_kernel_calls_void_pointer_operator(rng, op, output):
    pyfunc, sig, name, element_c, dtype = op
    a, b, expected = _void_inputs(rng, name)
    operator = _operator_code(pyfunc, sig, name, output)
    cubin = linking.link_cubin(
        [operator, CUSource(foreign_operators.void_caller(name, element_c), f"call_{name}.cu")], _cc()
    )
    poison = np.zeros(N, dtype) if dtype.names else support.poisoned(N, dtype)
    if dtype.names:
        poison["key"], poison["value"] = 0x5A, np.nan
    out = cuda.to_device(poison)
    _launch(cubin, f"call_{name}", [cuda.to_device(a), cuda.to_device(b), out], N)
    _check(out.copy_to_host(), expected)


def test_ltoir_operator_is_inlined():
    from cuda import pathfinder

    operator = _operator_code(foreign_operators.add, "int32(int32, int32)", "add_i32", "ltoir")
    cubin = linking.link_cubin(
        [operator, CUSource(foreign_operators.scalar_caller("add_i32", "int", ["int", "int"]), "c.cu")], _cc()
    )
    exe = pathfinder.find_nvidia_binary_utility("nvdisasm")
    if not exe:
        pytest.skip("nvdisasm is not installed")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([exe, f.name], capture_output=True, text=True, check=True).stdout
    assert "IADD" in sass.upper() or "IMAD" in sass.upper()
    # no call instruction (the kernel's own name, call_add_i32, appears in symbol tables)
    assert not re.search(r"\bCALL\.(REL|ABS)", sass, re.IGNORECASE), sass


POLY_CXX = 'extern "C" __device__ int poly(long long* r, long long x, int k) { *r = x * x + k; return 0; }\n'


def test_kernel_calls_cxx_device_functions(rng):
    k = foreign_operators.multiply_kernel()
    a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    out = support.poisoned(N, np.float32)
    k[(N + 127) // 128, 128](a, b, out)
    np.testing.assert_array_equal(out, a * b)


def test_kernel_links_a_cxx_file(rng, tmp_path):
    path = tmp_path / "poly.cu"
    path.write_text(POLY_CXX)
    poly = cuda.declare_device("poly", "int64(int64, int32)")

    @cuda.jit(link=[str(path)])
    def k(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = poly(x[i], i)

    x = rng.integers(-(2**20), 2**20, N).astype(np.int64)
    out = support.poisoned(N, np.int64)
    k[(N + 127) // 128, 128](x, out)
    np.testing.assert_array_equal(out, x * x + np.arange(N))
