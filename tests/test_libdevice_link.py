"""libdevice is linked into the modules that call it, by path, and MLIR's built-in copy is
replaced by an empty module in cumlir's contexts (libdevice_bitcode.py,
codegen/nvptx/libdevice_link.py): kernels that call libdevice still get its routines, in the
contexts cumlir makes, in others, and where no path can be made."""

import math
import os
import threading

import numpy as np
import pytest
from mlir import ir

from cumlir import cuda, libdevice_bitcode
from cumlir.codegen.nvptx import libdevice_link
from cumlir.mlir import contexts as mlir_context

from . import support


def sines(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) + math.exp(x[i])


def copies(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i]


SIG = "void(float64[::1], float64[::1])"


def _fresh_context():
    # the next compilation of this thread makes its context afresh (as after CONTEXT_USES)
    mlir_context._thread.uses = mlir_context.CONTEXT_USES


def test_the_bitcode_is_libdevices_in_a_file_of_this_process():
    found = libdevice_bitcode.path()
    assert found is not None and found.startswith("/proc/self/fd/")
    with open(found, "rb") as f:
        data = f.read()
    assert data[:4] == b"BC\xc0\xde" and len(data) > 100_000  # bitcode; its routines: the tests below


def test_the_empty_module_is_the_one_mlir_makes():
    # the file shipped in place of libdevice is MLIR's serialization of an empty gpu.module
    # with these bindings (made again here: a new version of them may write another)
    from mlir import passmanager
    from mlir.dialects import gpu

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(
            "module attributes {gpu.container_module} { gpu.module @empty [#nvvm.target<O = 0>] {} }"
        )
        passmanager.PassManager.parse("builtin.module(gpu-module-to-binary{format=llvm})").run(module.operation)
        made = bytes(gpu.ObjectAttr(ir.ArrayAttr(module.body.operations[0].attributes["objects"])[0]).object)
    with open(libdevice_bitcode.EMPTY_MODULE, "rb") as f:
        assert f.read() == made, "regenerate src/cumlir/empty_module.bc from this test's bitcode"


def test_the_path_is_made_again_when_its_descriptor_was_closed():
    first = libdevice_bitcode.path()
    os.close(int(first.rsplit("/", 1)[1]))
    second = libdevice_bitcode.path()
    with open(second, "rb") as f:
        assert f.read(4) == b"BC\xc0\xde"


def _has_libdevice_code(ptx):
    # sin's slow path is a function of libdevice's own; its polynomials are FMAs
    return ".func  (.param .align 16 .b8 func_retval0[16]) __internal_trig_reduction_slowpathd" in ptx


@pytest.mark.parametrize("kernel, calls", [(sines, True), (copies, False)])
def test_libdevice_code_is_in_the_ptx_of_a_kernel_calling_it(kernel, calls):
    ptx, _ = cuda.compile_ptx(kernel, SIG, cc=(9, 0))
    assert ".extern .func" not in ptx  # no routine left to an outside definition
    assert _has_libdevice_code(ptx) is calls
    assert (ptx.count("fma.rn.f64") > 10) is calls
    support.ptxas(ptx, "sm_90")


def test_link_is_added_once_and_only_for_libdevice_calls():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(
            """module attributes {gpu.container_module} {
              gpu.module @m [#nvvm.target<O = 3, chip = "sm_90">] {
                llvm.func @__nv_sin(f64) -> f64
              }
              gpu.module @n [#nvvm.target<O = 3, chip = "sm_90">] {
                llvm.func @own(f64) -> f64
              }
            }"""
        )
        calling, other = (op.operation for op in module.body.operations)
        for gpu_module in (calling, other, calling):
            libdevice_link.add_where_called(gpu_module)
        assert str(calling.attributes["targets"]).count(f'link = ["{libdevice_bitcode.path()}"]') == 1
        assert "link" not in str(other.attributes["targets"])


def test_math_in_a_fresh_context_of_cumlirs(rng):
    _fresh_context()
    first, _ = cuda.compile_ptx(sines, SIG, cc=(9, 0))
    _fresh_context()
    cuda.compile_ptx(copies, SIG, cc=(9, 0))  # the first module of the context calls nothing
    second, _ = cuda.compile_ptx(sines, SIG, cc=(9, 0))
    assert first == second and _has_libdevice_code(second)


def test_math_where_no_path_can_be_made(monkeypatch):
    # MLIR's own copy, as before: no empty module is held, nothing is named
    reference, _ = cuda.compile_ptx(sines, SIG, cc=(9, 0))
    monkeypatch.setattr(libdevice_bitcode, "path", lambda: None)
    monkeypatch.setattr(libdevice_link, "path", lambda: None)
    _fresh_context()
    ptx, _ = cuda.compile_ptx(sines, SIG, cc=(9, 0))
    _fresh_context()
    assert ptx == reference and _has_libdevice_code(ptx)


def test_threads_compile_math_each_in_its_own_context():
    results, errors = [], []

    def work():
        try:
            results.append(cuda.compile_ptx(sines, SIG, cc=(9, 0))[0])
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1 and _has_libdevice_code(results[0])


@pytest.mark.gpu
def test_math_results_agree_with_numpy(rng):
    x = rng.uniform(-10, 10, 1000)
    out = cuda.to_device(np.full(1000, np.nan))
    cuda.jit(sines)[8, 128](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), np.sin(x) + np.exp(x), rtol=1e-14)
