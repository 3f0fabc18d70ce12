"""The host-side Numba-CUDA API pieces that need no GPU: argument wrappers, array
geometry, the toolkit version, the dispatcher's Numba interface, and what the device
functions report on a machine without a GPU."""

import io

import numpy as np
import pytest

from cumlir import cuda, refused

from . import support


def test_scalar_type_aliases_are_numbas():
    from numba.core import types

    expected = {
        "b1": types.boolean,
        "bool": types.boolean,
        "i1": types.int8,
        "i2": types.int16,
        "i4": types.int32,
        "i8": types.int64,
        "u1": types.uint8,
        "u2": types.uint16,
        "u4": types.uint32,
        "u8": types.uint64,
        "f4": types.float32,
        "f8": types.float64,
        "c8": types.complex64,
        "c16": types.complex128,
        "ffi": types.ffi,
        "ffi_forced_object": types.ffi_forced_object,
        "optional": types.Optional,
        "deferred_type": types.DeferredType,
    }
    for name, ty in expected.items():
        assert getattr(cuda, name) is ty, name


def test_plain_values():
    import numba
    import numba.core.config

    assert cuda.HAS_NUMBA is True
    assert cuda.implementation == "NVIDIA"
    assert cuda.config is numba.core.config
    assert cuda.literal_unroll is numba.literal_unroll


@pytest.mark.parametrize(
    "shape, strides, dtype, order, expected",
    [
        (5, None, "f4", "C", ((5,), (4,), np.dtype("float32"))),
        ((2, 3), None, np.float64, "C", ((2, 3), (24, 8), np.dtype("float64"))),
        ((2, 3), None, np.float64, "F", ((2, 3), (8, 16), np.dtype("float64"))),
        ((4,), 16, np.int32, "C", ((4,), (16,), np.dtype("int32"))),
        ((2, 2), (4, 16), np.int16, "C", ((2, 2), (4, 16), np.dtype("int16"))),
    ],
)
def test_prepare_shape_strides_dtype(shape, strides, dtype, order, expected):
    assert cuda.prepare_shape_strides_dtype(shape, strides, dtype, order) == expected


def test_prepare_shape_strides_dtype_rejects_mismatched_strides():
    with pytest.raises(ValueError, match="strides"):
        cuda.prepare_shape_strides_dtype((2, 3), (8,), np.float64, "C")


def test_argument_wrappers_hold_their_value_and_type_as_it():
    from cumlir.runtime.arguments import argument_type

    a = np.zeros((3, 4), np.float32)
    for wrapper in (cuda.In, cuda.Out, cuda.InOut):
        wrapped = wrapper(a)
        assert wrapped.value is a
        assert argument_type(wrapped, 0) == argument_type(a, 0)
    assert (cuda.In.copy_in, cuda.In.copy_out) == (True, False)
    assert (cuda.Out.copy_in, cuda.Out.copy_out) == (False, True)
    assert (cuda.InOut.copy_in, cuda.InOut.copy_out) == (True, True)


def test_runtime_version_is_the_toolkits():
    from importlib.metadata import version

    major, minor = map(int, version("nvidia-nvjitlink").split(".")[:2])  # the wheel every install has
    assert cuda.runtime.get_version() == (major, minor)
    assert cuda.is_supported_version() == (major == 13)
    assert cuda.runtime.is_supported_version() == cuda.is_supported_version()


def test_linkable_code_classes_are_cumlirs():
    from cumlir import linkable

    for name in ("LinkableCode", "CUSource", "PTXSource", "LTOIR", "Cubin", "Fatbin", "Object", "Archive"):
        assert getattr(cuda, name) is getattr(linkable, name)
    assert issubclass(cuda.PTXSource, cuda.LinkableCode)


def test_kernel_runtime_error_message():
    e = cuda.KernelRuntimeError("boom", tid=(1, 0, 0), ctaid=(2, 0, 0))
    assert isinstance(e, RuntimeError)
    assert (e.msg, e.tid, e.ctaid) == ("boom", (1, 0, 0), (2, 0, 0))
    assert str(e) == "An exception was raised in thread=(1, 0, 0) block=(2, 0, 0)\n\tboom"


def test_memory_info_is_a_named_pair():
    info = cuda.MemoryInfo(free=3, total=10)
    assert info == (3, 10) and (info.free, info.total) == (3, 10)
    free, total = info
    assert (free, total) == (3, 10)


def test_refusals_name_the_attribute_and_say_why():
    with pytest.raises(NotImplementedError, match=r"'simulator' of numba.cuda: .*compile_ptx"):
        cuda.simulator
    with pytest.raises(NotImplementedError, match=r"'contextlib'.*import contextlib"):
        cuda.contextlib
    with pytest.raises(NotImplementedError, match=r"'cudadrv'.*internal module"):
        cuda.cudadrv
    assert "__getattr__" not in refused.NAMESPACE
    with pytest.raises(AttributeError):  # names Numba-CUDA does not have stay AttributeErrors
        cuda.no_such_name


# ---- the dispatcher's Numba interface (no launch) --------------------------------------------


def _kernel():
    @cuda.jit
    def scale(a, factor):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= factor

    return scale


def test_nopython_signatures_and_get_overload():
    from numba.core import types

    kernel = _kernel()
    overload = kernel.compile("void(float32[::1], float32)")
    (sig,) = kernel.nopython_signatures
    assert sig.return_type == types.void
    assert sig.args == (types.float32[::1], types.float32)
    assert kernel.get_overload("void(float32[::1], float32)") is overload
    assert kernel.get_overload(sig) is overload
    with pytest.raises(KeyError, match="no compiled signature"):
        kernel.get_overload("void(float64[::1], float64)")


def test_typeof_pyval_and_fold_argument_types():
    from numba.core import types

    kernel = _kernel()
    assert kernel.typeof_pyval(np.zeros(3, np.float32)) == types.float32[::1]
    assert kernel.typeof_pyval(2.5) == types.float64
    pysig, argtypes = kernel.fold_argument_types((types.float32[::1], types.float32), {})
    assert list(pysig.parameters) == ["a", "factor"] and argtypes == (types.float32[::1], types.float32)
    with pytest.raises(TypeError, match="positional"):
        kernel.fold_argument_types((types.float32[::1],), {"factor": types.float32})


def test_disable_compile_and_recompile():
    kernel = _kernel()
    with pytest.raises(ValueError, match="no compiled signature"):
        kernel.disable_compile()
    kernel.compile("void(float32[::1], float32)")
    kernel.disable_compile()
    from numba.core import types

    with pytest.raises(TypeError, match="no compiled signature accepts"):
        kernel.overload_for((types.int32[::1], types.int32))
    kernel.disable_compile(False)
    assert kernel.overload_for((types.int32[::1], types.int32)).argtypes == (types.int32[::1], types.int32)
    before = kernel.overloads
    kernel.recompile()
    after = kernel.overloads
    assert list(after) == list(before) and all(after[k] is not before[k] for k in after)


def test_is_compiling_counts_compilations_under_way():
    seen = []

    @cuda.jit
    def kernel(a):
        a[0] = 1

    from cumlir.dispatcher import table

    class Probe(table.KernelOverload):
        def __init__(self, overloads, argtypes, return_type=None, **options):
            seen.append(overloads.dispatcher.is_compiling)
            super().__init__(overloads, argtypes, return_type, **options)

    old, table.KernelOverload = table.KernelOverload, Probe
    try:
        assert kernel.is_compiling == 0
        kernel.compile("void(int32[:])")
    finally:
        table.KernelOverload = old
    assert seen == [1] and kernel.is_compiling == 0


def test_dump_configure_extensions_specialized():
    kernel = _kernel()
    kernel.compile("void(float32[::1], float32)")
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        kernel.dump()
    assert "scale(array(float32, 1d, C), float32)" in out.getvalue()
    configured = kernel.configure(4, 32)
    assert (configured.config.griddim, configured.config.blockdim) == ((4, 1, 1), (32, 1, 1))
    assert kernel.extensions == []
    assert kernel.specialized is False


def _axpb(a, x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + 1


def test_specialize_takes_numba_types_and_keeps_its_kernels(simulator_or_gpu, rng):
    from numba.core import types

    kernel = cuda.jit(_axpb)
    assert len(kernel.specializations) == 0
    x = rng.standard_normal(100).astype(np.float32)
    by_type = kernel.specialize(types.float32, types.float32[::1], types.float32[:])
    by_value = kernel.specialize(np.float32(2), cuda.to_device(x), cuda.device_array(100, np.float32)[::1])
    assert by_value is not by_type  # a C-contiguous output is another signature
    assert kernel.specialize(types.float32, types.float32[::1], types.float32[:]) is by_type
    assert len(kernel.specializations) == 2 and not kernel.specialized
    ((cc, argtypes), special) = next(iter(kernel.specializations.items()))
    assert special is by_type and argtypes == (types.float32, types.float32[::1], types.float32[:])
    with pytest.raises(TypeError):
        kernel.specializations[cc, argtypes] = None  # a view: specialize alone adds to it
    out = np.full(100, np.nan, np.float32)
    by_type[1, 128](np.float32(2), x, out)
    np.testing.assert_array_equal(out, (2 * x.astype(np.float64) + 1).astype(np.float32))


def test_one_signature_makes_a_specialized_kernel_and_a_list_does_not():
    one = cuda.jit("void(float32, float32[::1], float32[::1])")(_axpb)
    listed = cuda.jit(["void(float32, float32[::1], float32[::1])"])(_axpb)
    assert one.specialized and not listed.specialized and not cuda.jit(_axpb).specialized
    with pytest.raises(RuntimeError, match=r"Dispatcher already specialized: _axpb was made for one signature"):
        one.specialize(np.float32(1), np.zeros(2, np.float32), np.zeros(2, np.float32))


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_sass_of_a_cubin_built_without_a_gpu(cc):
    from cumlir.codegen.disassemble import sass, sass_cfg

    overload = _kernel().compile("void(float32[::1], float32)")
    cubin = overload.compilation(cc).cubin
    listing = sass(cubin)
    assert f"sm_{cc[0]}{cc[1]}" in listing and "FMUL" in listing and "EXIT" in listing
    assert sass_cfg(cubin).lstrip().startswith("digraph")


def test_inspect_sass_without_nvdisasm(monkeypatch):
    from cuda import pathfinder

    kernel = _kernel()
    kernel.compile("void(float32[::1], float32)")
    monkeypatch.setattr(pathfinder, "find_nvidia_binary_utility", lambda name: None)
    monkeypatch.setattr(
        kernel.compile("void(float32[::1], float32)").__class__, "output", lambda self, what, cc=None: b""
    )
    with pytest.raises(RuntimeError, match=r"nvdisasm was not found: .*pip install 'cumlir\[tools\]'"):
        kernel.inspect_sass("void(float32[::1], float32)")


def test_inspect_sass_of_a_device_function_is_refused():
    @cuda.jit(device=True)
    def f(x):
        return x

    with pytest.raises(TypeError, match="device function"):
        f.inspect_sass()


@pytest.mark.parametrize("method", ["inspect_asm", "inspect_ptx", "inspect_llvm"])
def test_inspecting_a_device_function_gives_its_code_per_signature(method, backend):
    @cuda.jit("float32(float32)", device=True)
    def twice(x):
        return x * 2

    from numba.core import types

    code = getattr(twice, method)("float32(float32)", cc=(9, 0))
    symbol = "_ZN" if method == "inspect_llvm" else ".func"
    assert symbol in code and "twice" in code
    if method != "inspect_llvm":
        support.ptxas(code, "sm_90")
        assert code == cuda.compile_ptx(twice.py_func, "float32(float32)", device=True, cc=(9, 0))[0]
    twice.compile_device((types.int64,))
    every = getattr(twice, method)(cc=(9, 0))  # each signature compiled
    assert set(every) == {(types.float32,), (types.int64,)} and every[(types.float32,)] == code
    assert every[(types.int64,)] != code and ("b64" in every[(types.int64,)] or "i64" in every[(types.int64,)])


def test_inspect_mlir_of_a_device_function_says_what_to_use():
    @cuda.jit(device=True)
    def twice(x):
        return x * 2

    with pytest.raises(TypeError, match="twice is a device function: inspect_llvm and inspect_asm show its code"):
        twice.inspect_mlir("float32(float32)", cc=(9, 0))


# ---- without a GPU ------------------------------------------------------------------------------


needs_no_gpu = pytest.mark.skipif("cuda.is_available()", reason="checks behaviour on a machine without a GPU")


@needs_no_gpu
def test_detect_and_gpus_without_a_gpu(capsys):
    assert cuda.detect() is False
    assert capsys.readouterr().out.startswith("Found 0 CUDA devices\n")
    assert len(cuda.gpus) == 0 and list(cuda.gpus) == [] and cuda.list_devices() is cuda.gpus
    assert cuda.gpus.current is None


@needs_no_gpu
def test_cuda_error_without_a_gpu():
    message = cuda.cuda_error()
    assert message is None or isinstance(message, str)


def test_ipc_handles_pickle_as_their_bytes():
    import pickle

    from cumlir.runtime.devicearray import IpcArrayHandle

    handle = cuda.IpcHandle(
        object(), bytes(range(64)), 4096, {"pci_domain_id": 0, "pci_bus_id": 3, "pci_device_id": 0}, 128
    )
    copy = pickle.loads(pickle.dumps(handle))
    assert type(copy) is cuda.IpcHandle and copy.base is None  # the exporter's memory stays behind
    assert (copy.handle, copy.size, copy.source_info, copy.offset) == (handle.handle, 4096, handle.source_info, 128)
    desc = {"shape": (2, 3), "strides": (24, 8), "dtype": np.dtype(np.float64)}
    array_handle = pickle.loads(pickle.dumps(IpcArrayHandle(handle, desc)))
    assert array_handle._array_desc == desc and array_handle._ipc_handle.handle == handle.handle
    assert cuda.IpcHandle(None, tuple(range(64)), 8).handle == bytes(range(64))  # a sequence of ints


def test_ipc_handle_checks():
    with pytest.raises(ValueError, match="64 bytes, got 3"):
        cuda.IpcHandle(None, b"abc", 8)
    with pytest.raises(ValueError, match="64 bytes, got 65"):
        with cuda.open_ipc_array(bytes(65), (4,), np.float32):
            pass
    with pytest.raises(ValueError, match="not opened"):
        cuda.IpcHandle(None, bytes(64), 8).close()


def test_inspect_lto_ptx_shows_the_link_time_optimised_code():
    from cumlir.linkable import CUSource

    source = 'extern "C" __device__ int twice(int* r, int x) { *r = 2 * x; return 0; }'
    twice = cuda.declare_device("twice", "int32(int32)", link=[CUSource(source, "twice.cu")])

    def body(a):
        a[0] = twice(a[1])

    lto_kernel = cuda.jit(lto=True)(body)
    lto_kernel.compile("void(int32[::1])")
    ptx = lto_kernel.inspect_lto_ptx("void(int32[::1])", cc=(9, 0))
    assert ".entry body" in ptx and ".target sm_90" in ptx
    assert "call" not in ptx and "twice" not in ptx  # the CUDA C++ function was inlined across the link
    (every,) = lto_kernel.inspect_lto_ptx(cc=(9, 0)).values()
    assert every == ptx
    plain = cuda.jit(body)
    plain.compile("void(int32[::1])")
    with pytest.raises(RuntimeError, match="lto=True"):
        plain.inspect_lto_ptx("void(int32[::1])", cc=(9, 0))


def test_device_function_dispatcher_interface():
    from numba.core import types

    @cuda.jit(device=True)
    def scaled(x, factor=2):
        return x * factor

    pysig, argtypes = scaled.fold_argument_types((types.int32,), {})
    assert list(pysig.parameters) == ["x", "factor"]
    assert argtypes[0] == types.int32 and isinstance(argtypes[1], types.Omitted)  # the default folded in
    template, _, args, _ = scaled.get_call_template((types.float64, types.float64), {})
    (sig,) = [s for s in scaled.nopython_signatures if s.args == (types.float64, types.float64)]
    assert sig.return_type == types.float64 and template.cases[0] in scaled.nopython_signatures
    assert scaled.get_overload("float64(float64, float64)").signature == sig
    kernel = _kernel()
    with pytest.raises(TypeError, match="cannot be called from device code"):
        kernel.get_call_template((types.float32[::1], types.float32), {})


def test_types_module_is_cumlirs():
    from numba.core import types

    import cumlir.types

    assert cuda.types is cumlir.types
    assert cuda.types.float32 is types.float32 and cuda.types.Array is types.Array


def test_types_import_as_a_module_as_numba_cuda_s():
    from numba.core import types

    import cumlir.types
    from cumlir.cuda.types import Array, float32x4, int32, uintp, void

    import cumlir.cuda.types as module  # isort: skip

    assert module is cumlir.types is cuda.types
    assert (int32, uintp, void, Array) == (types.int32, types.uintp, types.void, types.Array)
    assert float32x4 is cumlir.types.vector_types["float32x4"]


def test_every_type_name_of_numba_cuda_s_types_module_is_there():
    import importlib.util

    from .support import python_output

    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("Numba-CUDA is not installed")

    names = python_output(
        "import numpy as np; np.row_stack = getattr(np, 'row_stack', np.vstack)\n"
        "import numba.cuda.types as t; print(' '.join(n for n in dir(t) if not n.startswith('_')))"
    ).split()
    # the cooperative-group and dim3 types are refused in the namespace (cumlir/refused.py)
    missing = sorted(set(names) - set(dir(cuda.types)) - {"Dim3", "GridGroup", "dim3", "grid_group", "ext_types"})
    assert not missing


def test_reading_the_types_module_does_not_come_with_the_namespace():
    from .support import python_output

    code = (
        "import sys\nfrom cumlir import cuda\nbefore = 'numba' in sys.modules\n"
        "from cumlir.cuda.types import int32\nprint(before, 'numba' in sys.modules, int32)"
    )
    assert python_output(code) == "False True int32"


@pytest.mark.parametrize("module", ["intrin", "experimental", "vector_types"])
def test_namespaces_list_only_their_names(module):
    import importlib

    names = {n for n in dir(importlib.import_module(f"cumlir.cuda.{module}")) if not n.startswith("_")}
    assert names, module
    # the modules they use are theirs, not names of the namespace a user reads
    assert not names & {"importlib", "typing", "refused"}, names


def test_numba_cuda_mlir_short_type_names_by_bit_width():
    from cumlir import types

    assert (types.i16, types.i32, types.i64) == (types.int16, types.int32, types.int64)
    assert (types.u16, types.u32, types.u64) == (types.uint16, types.uint32, types.uint64)
    assert (types.f16, types.f32, types.f64) == (types.float16, types.float32, types.float64)
    assert types.bf16 is types.bfloat16
    assert (types.i8, types.u8) == (types.int64, types.uint64)  # numba's byte codes keep their meaning


@pytest.mark.parametrize(
    "shape, order, index, layout",
    [
        ((10,), "C", (), "C"),
        ((2, 10), "F", (), "F"),
        ((5, 5), "C", (slice(None), 2), "A"),
        ((5, 5), "C", (2, slice(None)), "C"),
        ((5, 5), "F", (slice(None), 2), "C"),  # both C- and F-contiguous
        ((5, 5), "F", (2, slice(None)), "A"),
        ((6, 4), "C", (slice(None, None, 2),), "A"),
    ],
)
def test_a_device_arrays_numba_type_is_its_kernel_argument_type(shape, order, index, layout, simulator_or_gpu):
    import numba
    from numba.core import types

    d = cuda.to_device(np.zeros(shape, order=order))[index]
    assert d._numba_type_ == numba.typeof(d) == types.Array(types.float64, d.ndim, layout)


def test_forall_refuses_a_negative_task_count_in_numba_cudas_words():
    kernel = _kernel()
    with pytest.raises(ValueError, match=r"^Can't create ForAll with negative task count: scale.forall: ntasks"):
        kernel.forall(-1)
    with pytest.raises(ValueError, match=r"^scale.forall: tpb must be a non-negative int, got 1.5"):
        kernel.forall(4, tpb=1.5)
