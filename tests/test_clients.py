"""Libraries that generate Numba device code, used from cumlir kernels without a GPU: Numbast's
MLIR backend binds a CUDA C++ header (a struct, its constructor, a method, free functions), and
kernels calling the bindings compile to PTX that ptxas accepts and link with the generated
shims into a cubin. Skipped where Numbast, ast_canopy or a header parse is unavailable
(docs/clients.md says what each needs)."""

import os
import warnings

import pytest

from cumlir import cuda, types
from cumlir.codegen import targets

from . import numba_cuda_mlir_alias, support

HEADER = """#pragma once
struct __attribute__((aligned(8))) Pair {
  float x;
  float y;
  __device__ Pair(float a, float b) : x(a), y(b) {}
  __device__ float sum() const { return x + y; }
};
__device__ float scaled(float a, float s) { return a * s; }
__device__ float pair_dot(Pair p, Pair q) { return p.x * q.x + p.y * q.y; }
"""

ARCHS = [(8, 0), (9, 0)]


@pytest.fixture(scope="module")
def bindings(tmp_path_factory):
    pytest.importorskip("numbast")
    ast_canopy = pytest.importorskip("ast_canopy")
    from ast_canopy.pylibastcanopy import ParseError

    header = tmp_path_factory.mktemp("numbast") / "pair.cuh"
    header.write_text(HEADER)
    includes = [p for p in os.environ.get("CUMLIR_CLIENT_CUDA_INCLUDES", "").split(os.pathsep) if p] or None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ast_canopy warns of every CUDA component it misses
            decls = ast_canopy.parse_declarations_from_source(
                str(header), [str(header)], "sm_80", cudatoolkit_include_dirs=includes
            )
    except ParseError as e:
        pytest.skip(f"ast_canopy cannot parse CUDA headers here: {str(e).strip()[:300]}")

    numba_cuda_mlir_alias.install()
    try:
        from numbast.experimental.mlir import MemoryShimWriter, bind_cxx_functions, bind_cxx_struct

        from cumlir.models import StructModel

        shims = MemoryShimWriter(f'#include "{header}"')
        pair = bind_cxx_struct(shims, decls.structs[0], types.Type, StructModel)
        by_name = {f.__name__: f for f in bind_cxx_functions(shims, decls.functions)}
        yield pair, by_name, shims
    finally:
        numba_cuda_mlir_alias.uninstall()


def _kernel(bindings):
    pair_class, functions, _ = bindings
    scaled, pair_dot = functions["scaled"], functions["pair_dot"]

    def kernel(out):
        p = pair_class(1.0, 2.0)
        q = pair_class(3.0, 4.0)
        out[0] = scaled(p.x, 2.0) + pair_dot(p, q) + p.sum() + q.y

    return kernel


@pytest.mark.parametrize("cc", ARCHS, ids=targets.chip)
def test_numbast_bindings_compile_to_ptx(bindings, cc):
    ptx, _ = cuda.compile_ptx(_kernel(bindings), "void(float32[::1])", cc=cc)
    for shim in ("_ZN4PairC1Eff_nbst", "_ZNK4Pair3sumEv", "_Z6scaledff", "_Z8pair_dot4PairS_"):
        assert shim in ptx  # the constructor, the method and both functions are called through shims
    support.ptxas(ptx, targets.chip(cc), relocatable=True)  # the shims come at link time


@pytest.mark.parametrize("lto", [False, True], ids=["ptx", "lto"])
def test_numbast_shims_link_into_a_cubin(bindings, lto):
    _, _, shims = bindings
    signature = "void(float32[::1])"
    overload = cuda.jit(signature, link=shims.links(), lto=lto)(_kernel(bindings)).compile(signature)
    source = shims.links()[0].data
    assert "pair_dot(*p, *q)" in source and "new (self) Pair(*a, *b)" in source  # written while lowering
    assert overload.compilation((9, 0)).cubin[:4] == b"\x7fELF"
