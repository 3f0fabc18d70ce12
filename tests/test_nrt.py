"""The device runtime (NRT) on the CPU: its MLIR compiled by cumlir's code generators for each chip, the
public header, the nrt option and the link policy, allocation in device code compiled to PTX
on both back ends (the GPU tests are in test_gpu_nrt.py)."""

import os
import re

import numpy as np
import pytest

from cumlir import nrt
from cumlir.nrt.compiled import runtime as nrt_runtime

from . import support

CCS = [(8, 0), (9, 0)]


@pytest.mark.parametrize("cc", CCS)
def test_runtime_compiles_to_ptx_that_ptxas_accepts(cc):
    code = nrt_runtime(cc)
    assert code.name == nrt.RUNTIME_NAME and nrt.is_runtime(code)
    for symbol in (nrt.ALLOCATE, nrt.INCREF, nrt.DECREF, "NRT_MemInfo_new", "NRT_Allocate", "NRT_Free"):
        assert re.search(rf"\.visible \.func .*\b{symbol}\(", code.data), symbol
    assert re.search(rf"\.visible \.global \.align 8 \.b8 {nrt.STATS_GLOBAL}\[32\]", code.data)
    assert f".target sm_{cc[0]}{cc[1]}" in code.data
    support.ptxas(code.data, f"sm_{cc[0]}{cc[1]}")


def _body(ptx, function):
    return re.search(rf"\.func [^{{]*\b{function}\((.*?)\n}}", ptx, re.S).group(1)


@pytest.mark.parametrize("cc", CCS)
def test_reference_counts_change_atomically_at_device_scope_between_fences(cc):
    ptx = nrt_runtime(cc).data
    assert re.search(r"atom\.add\.u64\s+%rd\d+, \[%rd\d+\], 1;", _body(ptx, nrt.INCREF))
    decref = _body(ptx, nrt.DECREF)
    # a fence, the count falls by one, and the last reference fences again before the
    # destructor (an indirect call), the MemInfo's count and its free
    order = [
        r"membar\.gl;",
        r"atom\.add\.u64\s+%rd\d+, \[%rd\d+\], -1;",
        r"membar\.gl;",
        r"call %rd\d+,",
        r"call\.uni free,",
    ]
    position = 0
    for pattern in order:
        found = re.compile(pattern).search(decref, position)
        assert found, pattern
        position = found.end()
    assert ".sys" not in ptx  # device scope, as CUDA's atomicAdd: no system-scope atomics


@pytest.mark.parametrize("cc", CCS)
def test_an_allocation_pads_its_data_to_the_alignment_after_the_meminfo(cc):
    body = _body(nrt_runtime(cc).data, nrt.ALLOCATE)
    assert re.search(r"max\.u32\s+%r\d+, %r\d+, 16;", body)  # at least malloc's 16 bytes
    assert re.search(r"add\.s64\s+%rd\d+, %rd\d+, 40;", body)  # the MemInfo's 40 bytes first
    assert re.search(r"neg\.s64", body) and re.search(r"and\.b64", body)  # rounded up to the alignment
    # an exhausted heap prints what was asked for and ends the kernel
    assert re.search(r"call\.uni \(retval0\), vprintf,.*?trap;", body, re.S)


def test_runtime_is_compiled_once_per_chip_and_format():
    assert nrt_runtime((9, 0)) is nrt_runtime((9, 0))
    assert nrt_runtime((9, 0)) is not nrt_runtime((8, 0))
    lto = nrt_runtime((9, 0), "ltoir")
    assert lto is nrt_runtime((9, 0), "ltoir") and type(lto).__name__ == "LTOIR" and nrt.is_runtime(lto)
    with pytest.raises(ValueError, match="'ptx', 'ltoir' or 'host'"):
        nrt_runtime((9, 0), "cubin")


def test_public_header_is_shipped_and_declares_the_api():
    header = os.path.join(nrt.include_dir(), "nrt.cuh")
    with open(header) as f:
        text = f.read()
    for symbol in ("NRT_MemInfo_alloc_aligned", "NRT_MemInfo_new", "NRT_incref", "NRT_decref", "NRT_MemInfo_data"):
        assert f" {symbol}(" in text or f"*{symbol}(" in text, symbol
    # setuptools ships it: pyproject's package data names the runtime's files
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml")) as f:
        assert '"nrt/*.cuh"' in f.read()


def test_external_code_including_the_header_compiles():
    from cumlir.nvrtc import compile_source

    src = (
        "#include <nrt.cuh>\n"
        'extern "C" __device__ void* make(unsigned long long n) {\n'
        "  NRT_MemInfo* mi = NRT_MemInfo_alloc_aligned(n, 8); return NRT_MemInfo_data(mi); }\n"
    )
    ptx = compile_source(src, (9, 0), options=(f"-I{nrt.include_dir()}",))
    assert "call.uni" in ptx and "NRT_MemInfo_alloc_aligned" in ptx


# ---- the switch and the link policy ------------------------------------------------------------

EXTERN_CU = '#include <nrt.cuh>\nextern "C" __device__ int twice(int* result, int x) { *result = 2 * x; return 0; }\n'


def _link_names(kernel, argtypes, **options):
    from cumlir import compiler
    from cumlir.options import Options

    c = compiler.kernel(kernel, argtypes, (9, 0), Options(**options), until="mlir")
    return [getattr(item, "name", item) for item in c.link]


def _array_args():
    from numba.core import types

    return (types.float64[::1], types.int64)


def _no_allocation(out, n):
    out[0] = n


def _allocates(out, n):
    a = np.empty(n, np.float64)
    for i in range(n):
        a[i] = i
    out[0] = a[n - 1]


def _calls_extern(out, n):
    out[0] = twice_extern(n)


def _extern(nrt_marked):
    from cumlir import cuda
    from cumlir.linkable import CUSource

    return cuda.declare_device("twice", "int32(int32)", link=[CUSource(EXTERN_CU, name="twice.cu", nrt=nrt_marked)])


@pytest.fixture
def no_nrt_environment(monkeypatch):
    from cumlir.options import NRT_VARIABLES

    for name in NRT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_nrt_option_defaults_to_automatic_and_follows_the_environment(no_nrt_environment):
    from cumlir.options import Options

    assert Options().nrt is None  # automatic: on for code that allocates
    no_nrt_environment.setenv("NUMBA_CUDA_ENABLE_NRT", "1")
    assert Options().nrt is True
    no_nrt_environment.setenv("CUMLIR_ENABLE_NRT", "0")  # cumlir's own switch comes first
    assert Options().nrt is False
    assert Options(nrt=True).nrt is True
    no_nrt_environment.setenv("CUMLIR_ENABLE_NRT", "yes")
    with pytest.raises(ValueError, match="CUMLIR_ENABLE_NRT must be 0 or 1"):
        Options()
    with pytest.raises(TypeError, match="nrt must be True or False"):
        Options(nrt="on")


def test_nrt_is_part_of_the_cache_key(no_nrt_environment):
    from cumlir.options import Options

    keys = {Options(nrt=value).cache_key() for value in (True, False, None)}
    assert len(keys) == 3
    assert Options.from_keywords("k", {"nrt": None}).nrt is None


def test_linkable_code_nrt_flag():
    from cumlir.linkable import CUSource, PTXSource, uses_nrt
    from cumlir.options import link_digest

    marked, plain = CUSource("x", name="a.cu", nrt=True), CUSource("x", name="a.cu")
    assert uses_nrt(marked) and not uses_nrt(plain) and not uses_nrt("some.ptx")
    assert marked != plain and link_digest(marked) != link_digest(plain)
    assert "nrt" in repr(marked)
    with pytest.raises(TypeError, match="nrt=...\\) must be True or False"):
        PTXSource("x", nrt=1)


def test_runtime_linked_only_when_code_allocates(no_nrt_environment):
    assert _link_names(_no_allocation, _array_args(), nrt=True) == []
    assert _link_names(_allocates, _array_args(), nrt=True) == [nrt.RUNTIME_NAME]
    assert _link_names(_no_allocation, _array_args()) == []  # automatic
    assert _link_names(_allocates, _array_args()) == [nrt.RUNTIME_NAME]


def test_code_that_does_not_allocate_is_the_same_whatever_nrt_says(no_nrt_environment):
    from cumlir import compiler
    from cumlir.options import Options

    ptx = {
        value: compiler.kernel(_no_allocation, _array_args(), (9, 0), Options(nrt=value), until="codegen").code
        for value in (None, False, True)
    }
    assert ptx[None] == ptx[False] == ptx[True]


def test_runtime_linked_for_an_item_marked_nrt(no_nrt_environment):
    global twice_extern
    twice_extern = _extern(True)
    assert _link_names(_calls_extern, _array_args(), nrt=True) == ["twice.cu", nrt.RUNTIME_NAME]
    twice_extern = _extern(False)
    assert _link_names(_calls_extern, _array_args(), nrt=True) == ["twice.cu"]
    assert _link_names(_calls_extern, _array_args()) == ["twice.cu"]


def test_item_marked_nrt_with_nrt_off_is_refused(no_nrt_environment):
    global twice_extern
    twice_extern = _extern(True)
    assert _link_names(_calls_extern, _array_args()) == ["twice.cu", nrt.RUNTIME_NAME]  # automatic
    with pytest.raises(ValueError, match="twice.cu is marked nrt=True, but nrt=False switches NRT off"):
        _link_names(_calls_extern, _array_args(), nrt=False)


def test_kernel_option_nrt_false_wins_over_the_environment(no_nrt_environment):
    no_nrt_environment.setenv("CUMLIR_ENABLE_NRT", "1")
    assert _link_names(_allocates, _array_args()) == [nrt.RUNTIME_NAME]
    with pytest.raises(
        Exception, match=r"np.empty in device code needs NRT, which nrt=False \(or CUMLIR_ENABLE_NRT=0\)"
    ):
        _link_names(_allocates, _array_args(), nrt=False)


def test_kernel_with_item_marked_nrt_links_into_a_cubin(no_nrt_environment):
    from cumlir import compiler
    from cumlir.options import Options

    global twice_extern
    twice_extern = _extern(True)
    for lto in (False, True):
        c = compiler.kernel(_calls_extern, _array_args(), (9, 0), Options(nrt=True, lto=lto), until="cubin")
        assert c.cubin[:4] == b"\x7fELF"


# ---- arrays made in device code: the generated code run on the host (tests/nrt_harness.py) ----

from numba.core import types as _types  # noqa: E402

from .cases import nrt_kernels  # noqa: E402

CASE_SIGNATURE = (_types.float64[::1], _types.float64[::1], _types.int64)
# float16 arithmetic needs compiler-rt routines the host JIT lacks: compiled to cubins below
HOST_DTYPES = [d for d in nrt_kernels.DTYPES if d != "float16"]
ALL_CASES = nrt_kernels.CASES + [nrt_kernels.dtype_case(d) for d in nrt_kernels.DTYPES]


def _host_cases():
    return nrt_kernels.CASES + [nrt_kernels.dtype_case(d) for d in HOST_DTYPES]


@pytest.mark.parametrize("case", _host_cases(), ids=lambda c: c.__name__)
def test_generated_code_gives_numpy_results_and_frees_everything(case):
    from . import nrt_harness

    kernel = nrt_harness.Kernel(nrt_kernels.single(case), CASE_SIGNATURE)
    rng = np.random.default_rng(20261123)
    for n in (1, nrt_kernels.N):
        x = rng.uniform(-1.0, 1.0, nrt_kernels.N)
        x[0] = abs(x[0]) if n == 1 else -abs(x[0])  # both paths of owned_or_borrowed
        out = np.zeros(nrt_kernels.OUT)
        runtime = kernel(out, x.copy(), n)
        runtime.check_balanced()
        np.testing.assert_array_equal(out, nrt_kernels.reference(case, x, n))
        borrowed = case is nrt_kernels.owned_or_borrowed and x[0] <= 0
        assert (runtime.stats["alloc"] == 0) == borrowed


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.__name__)
def test_cases_link_into_cubins_on_every_back_end(case, backend):
    from cumlir import compiler
    from cumlir.options import Options

    argtypes = (_types.float64[:, ::1], _types.float64[:, ::1], _types.int64)
    c = compiler.kernel(
        nrt_kernels.per_thread(case), argtypes, (9, 0), Options(nrt=True, backend=backend), until="cubin"
    )
    assert [item.name for item in c.link] == [nrt.RUNTIME_NAME]
    assert c.cubin[:4] == b"\x7fELF"
    assert nrt.ALLOCATE in c.code


def test_code_that_does_not_allocate_is_unchanged_by_nrt(backend):
    from cumlir import compiler
    from cumlir.options import Options

    def k(out, x):
        t = (x, x[1:])
        for v in t[1]:
            out[0] += v
        out[1] = t[0][0]

    argtypes = (_types.float64[::1], _types.float64[::1])
    on = compiler.kernel(k, argtypes, (9, 0), Options(nrt=True, backend=backend))
    off = compiler.kernel(k, argtypes, (9, 0), Options(nrt=False, backend=backend))
    assert on.code == off.code and on.link == []


def _lowering_error(pyfunc, argtypes, match, **options):
    from numba.core import errors

    from cumlir import compiler
    from cumlir.options import Options

    with pytest.raises(errors.NumbaError, match=match) as info:
        compiler.kernel(pyfunc, argtypes, (9, 0), Options(**options), until="mlir")
    return str(info.value)


def _returns_new(n):
    return np.zeros(n)


def test_device_function_returning_a_new_array_needs_nrt(no_nrt_environment):
    from cumlir import cuda

    returns_new = cuda.jit(device=True)(_returns_new)

    def k(out, n):
        out[0] = returns_new(n)[0]

    message = _lowering_error(k, (_types.float64[::1], _types.int64), "needs NRT, switched off by nrt=False", nrt=False)
    assert "returns an array" in message
    assert _link_names(k, (_types.float64[::1], _types.int64)) == [nrt.RUNTIME_NAME]  # automatic


# ---- CUDA C++ handing arrays to cumlir's code ---------------------------------------------------


def adopts_squares(out, n):
    a = cuda_nrt_array(make_squares(n), n, np.float64)
    for i in range(n):
        out[i] = a[i] + 0.5


def _bind_squares():
    global make_squares, cuda_nrt_array
    from cumlir import cuda

    make_squares, cuda_nrt_array = nrt_kernels.squares_function(), cuda.nrt_array


def test_cpp_allocation_adopted_by_cumlir_links(backend, no_nrt_environment):
    from cumlir import compiler
    from cumlir.options import Options

    _bind_squares()
    argtypes = (_types.float64[::1], _types.int32)
    c = compiler.kernel(adopts_squares, argtypes, (9, 0), Options(nrt=True, backend=backend), until="cubin")
    assert [item.name for item in c.link] == ["squares.cu", nrt.RUNTIME_NAME]
    assert nrt.DECREF in c.code and c.cubin[:4] == b"\x7fELF"


def test_cpp_allocation_is_freed_by_cumlir_decref():
    """make_squares's stand-in allocates through the runtime and hands the reference over."""
    import ctypes

    from . import nrt_harness

    _bind_squares()

    @ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32)
    def make(result, n):
        runtime = nrt_harness.current()
        meminfo = runtime.allocate(8 * n, 8)
        data = ctypes.c_uint64.from_address(meminfo + 24).value
        values = (ctypes.c_double * n).from_address(data)
        for i in range(n):
            values[i] = i * i
        result[0] = meminfo
        return 0

    kernel = nrt_harness.Kernel(adopts_squares, (_types.float64[::1], _types.int32), [("make_squares", make)])
    out = np.zeros(7)
    runtime = kernel(out, 7)
    runtime.check_balanced()
    assert runtime.stats["alloc"] == 1
    np.testing.assert_array_equal(out, np.arange(7.0) ** 2 + 0.5)


def test_nrt_array_needs_nrt(no_nrt_environment):
    _bind_squares()
    global make_squares
    make_squares = nrt_kernels.squares_function(nrt_marked=False)
    _lowering_error(adopts_squares, (_types.float64[::1], _types.int32), "needs NRT, which nrt=False", nrt=False)


def test_extensions_take_and_give_back_references():
    """BuilderAPI.incref/decref, for extension lowering: the compiler's own reference counting with
    NRT on (an extra pair balances), nothing with it off."""
    from cumlir import compiler
    from cumlir.lowering.builder_api import BuilderAPI
    from cumlir.lowering.function import MLIRLower
    from cumlir.options import Options

    calls = []
    original = MLIRLower._take_reference

    def also_through_the_api(self, numba_type, value):
        original(self, numba_type, value)
        if isinstance(numba_type, _types.Array):
            BuilderAPI.incref(self, numba_type, value)
            BuilderAPI.decref(self, numba_type, value)
            calls.append(numba_type)

    def k(out, n):
        a = np.zeros(n)
        b = a
        out[0] = b[0]

    argtypes = (_types.float64[::1], _types.int64)
    MLIRLower._take_reference = also_through_the_api
    try:
        on = compiler.kernel(k, argtypes, (9, 0), Options(nrt=True), until="mlir")
        off_text = str(compiler.kernel(lambda out, n: None, argtypes, (9, 0), Options(nrt=False), until="mlir").module)
    finally:
        MLIRLower._take_reference = original
    assert calls and "cumlir_nrt_incref" in str(on.module) and "cumlir_nrt" not in off_text


def test_redundant_reference_pairs_are_pruned(monkeypatch):
    """A reference taken and given back with nothing between that could free memory goes; the
    harness tests above run the pruned code (every reference still balanced)."""
    from cumlir import compiler
    from cumlir.lowering import refcount
    from cumlir.options import Options

    def count_calls():
        c = compiler.kernel(
            nrt_kernels.single(nrt_kernels.iteration), CASE_SIGNATURE, (9, 0), Options(nrt=True), until="mlir"
        )
        text = str(c.module)
        return text.count("call @cumlir_nrt_incref"), text.count("call @cumlir_nrt_decref")

    pruned = count_calls()
    monkeypatch.setattr(refcount, "prune", lambda calls: 0)
    unpruned = count_calls()
    assert pruned[0] < unpruned[0] and unpruned[0] - pruned[0] == unpruned[1] - pruned[1]


def test_shared_and_constant_arrays_are_not_owned(backend):
    """Globals' descriptors carry a dummy allocated pointer; with NRT on it is replaced by the
    data pointer, so that the helpers never hand it to the runtime."""
    from cumlir import compiler, cuda
    from cumlir.options import Options

    table = np.arange(4.0)

    def k(out, n):
        s = cuda.shared.array(8, np.float64)
        d = cuda.shared.array(0, np.float64)
        c = cuda.const.array_like(table)
        a = np.zeros(n)
        t = s
        u = d
        v = c
        t[0] = v[1] + a[0]
        out[0] = t[0] + u[0]

    c = compiler.kernel(
        k, (_types.float64[::1], _types.int64), (9, 0), Options(nrt=True, backend=backend), until="llvm"
    )
    text = str(c.module)
    assert "3735928559" not in text  # MLIR's dummy allocated pointer of globals (0xdeadbeef)
    compiler.run(c, "cubin")
    plain = compiler.kernel(k, (_types.float64[::1], _types.int64), (9, 0), Options(nrt=True), until="mlir")
    assert str(plain.module).count("builtin.unrealized_conversion_cast") >= 6


# ---- a device heap that runs out ---------------------------------------------------------------


def test_a_kernel_fault_names_the_last_kernel_that_allocates(monkeypatch):
    from types import SimpleNamespace

    from cumlir.runtime import driver as drv
    from cumlir.runtime import nrt_stats

    from . import fake_driver

    fake_driver.install(monkeypatch)
    monkeypatch.setattr(nrt_stats, "_last_launched", [])
    with pytest.raises(drv.CudaDriverError) as plain:
        drv.check("cuCtxSynchronize", (719,))
    assert "heap" not in str(plain.value)  # nothing allocating ran: no guess
    nrt_stats.note_launch(SimpleNamespace(name="fills_temporaries"))
    with pytest.raises(drv.CudaDriverError, match=r"fills_temporaries.*cuda\.set_heap_size") as fault:
        drv.check("cuCtxSynchronize", (719,))
    assert fault.value.code == 719
    with pytest.raises(drv.CudaDriverError) as other:
        drv.check("cuMemAlloc", (2,))  # out of memory is not a kernel's fault
    assert "fills_temporaries" not in str(other.value)
