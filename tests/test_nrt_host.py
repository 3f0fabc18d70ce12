"""The device runtime's own code (nrt/nrt.mlir) run on the CPU: the LLVM IR cumlir's nvptx path
makes of it, retargeted to the host and JIT-compiled by llvmlite (as nrt_harness.py does for
kernels), with the host's malloc and free. Device-scope fences become the host's; the rest is
the code every kernel that allocates links."""

import ctypes
import threading

import pytest

from cumlir import nrt
from cumlir.codegen import get_backend
from cumlir.codegen.passes.pipeline import set_target
from cumlir.mlir.contexts import mlir_context
from cumlir.options import Options

MEMINFO = ctypes.c_uint64 * 5  # refct, dtor, dtor_info, data, size (nrt.cuh)
DTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p)


def _host_ir():
    from mlir import ir

    options = Options(backend="nvptx")
    with mlir_context(), ir.Location.unknown():
        module = ir.Module.parse(nrt.source())
        set_target(module, (9, 0), options)
        text = get_backend("nvptx").llvm_ir(module, (9, 0), options)
    kept = [
        line
        for line in text.splitlines()
        if not line.startswith(("target datalayout", "target triple", "declare void @llvm.nvvm.membar.gl"))
    ]
    text = "\n".join(kept)
    for device, host in (
        ("call void @llvm.nvvm.membar.gl()", "fence seq_cst"),
        (' syncscope("device")', ""),
        (" addrspace(1)", ""),
    ):
        assert device in text, device  # the device code has what is replaced here
        text = text.replace(device, host)
    return text


# test-only loops calling the runtime n times from native code, so that threads running them
# at once race in it (a call from Python holds the GIL most of the time)
_REPEAT = "\n".join(
    f"""
define void @repeat_{name}(ptr %mi, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
  call void @{name}(ptr %mi)
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}}"""
    for name in ("NRT_incref", "NRT_decref")
)


class HostRuntime:
    """The runtime's functions, callable from Python, and its statistics."""

    def __init__(self):
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        self.printed = []
        self._vprintf = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_char_p, ctypes.c_void_p)(self._print)
        llvm.add_symbol("vprintf", ctypes.cast(self._vprintf, ctypes.c_void_p).value)
        text = f'target triple = "{llvm.get_process_triple()}"\n{_host_ir()}\n{_REPEAT}'
        module = llvm.parse_assembly(text)
        module.verify()
        machine = llvm.Target.from_default_triple().create_target_machine()
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        u64, ptr, u32 = ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32
        self.alloc_aligned = self._function("NRT_MemInfo_alloc_aligned", ptr, u64, u32)
        self.new = self._function("NRT_MemInfo_new", ptr, ptr, u64, ptr, ptr)
        self.incref = self._function("NRT_incref", None, ptr)
        self.decref = self._function("NRT_decref", None, ptr)
        self.data = self._function("NRT_MemInfo_data", ptr, ptr)
        self.size = self._function("NRT_MemInfo_size", u64, ptr)
        self.allocate = self._function("NRT_Allocate", ptr, u64)
        self.free = self._function("NRT_Free", None, ptr)
        self.repeat_incref = self._function("repeat_NRT_incref", None, ptr, u64)
        self.repeat_decref = self._function("repeat_NRT_decref", None, ptr, u64)
        address = self._engine.get_global_value_address(nrt.STATS_GLOBAL)
        self._stats = (ctypes.c_uint64 * len(nrt.STATS_FIELDS)).from_address(address)

    def _function(self, name, result, *arguments):
        return ctypes.CFUNCTYPE(result, *arguments)(self._engine.get_function_address(name))

    def _print(self, format, arguments):
        self.printed.append(format)
        return 0

    def stats(self):
        return dict(zip(nrt.STATS_FIELDS, self._stats))


@pytest.fixture(scope="module")
def runtime():
    return HostRuntime()


def _delta(runtime, before):
    return {name: value - before[name] for name, value in runtime.stats().items()}


@pytest.mark.parametrize("align", [1, 8, 16, 32, 64, 128, 256, 4096])
@pytest.mark.parametrize("size", [0, 1, 40, 1000])
def test_an_aligned_allocation_lays_out_its_meminfo_and_data(runtime, size, align):
    before = runtime.stats()
    mi = runtime.alloc_aligned(size, align)
    words = MEMINFO.from_address(mi)
    data = runtime.data(mi)
    assert list(words) == [1, 0, 0, data, size]  # one reference, no destructor
    assert runtime.size(mi) == size
    effective = max(align, 16)
    # the data follows the MemInfo, on the alignment, within the block the runtime asked for
    assert data % effective == 0 and mi + 40 <= data < mi + 40 + effective
    ctypes.memset(data, 0xAB, size)  # the whole extent is writable memory
    assert _delta(runtime, before) == {"alloc": 1, "free": 0, "mi_alloc": 1, "mi_free": 0}
    runtime.decref(mi)
    assert _delta(runtime, before) == {"alloc": 1, "free": 1, "mi_alloc": 1, "mi_free": 1}


def test_the_last_reference_frees_and_no_earlier_one(runtime):
    before = runtime.stats()
    mi = runtime.alloc_aligned(64, 8)
    for _ in range(3):
        runtime.incref(mi)
    assert MEMINFO.from_address(mi)[0] == 4
    for remaining in (3, 2, 1):
        runtime.decref(mi)
        assert MEMINFO.from_address(mi)[0] == remaining
        assert _delta(runtime, before)["mi_free"] == 0
    runtime.decref(mi)
    assert _delta(runtime, before) == {"alloc": 1, "free": 1, "mi_alloc": 1, "mi_free": 1}


def test_a_meminfo_over_caller_memory_calls_its_destructor_once(runtime):
    calls = []
    dtor = DTOR(lambda data, size, info: calls.append((data, size, info)))
    buffer = ctypes.create_string_buffer(24)
    data, info = ctypes.addressof(buffer), 0xC0FFEE
    before = runtime.stats()
    mi = runtime.new(data, 24, ctypes.cast(dtor, ctypes.c_void_p), info)
    assert list(MEMINFO.from_address(mi)) == [1, ctypes.cast(dtor, ctypes.c_void_p).value, info, data, 24]
    runtime.incref(mi)
    runtime.decref(mi)
    assert calls == []
    runtime.decref(mi)
    assert calls == [(data, 24, info)]
    # one heap block: the MemInfo's own (the data was the caller's)
    assert _delta(runtime, before) == {"alloc": 1, "free": 1, "mi_alloc": 1, "mi_free": 1}


def test_null_is_ignored(runtime):
    before = runtime.stats()
    runtime.incref(None)
    runtime.decref(None)
    runtime.free(None)
    assert _delta(runtime, before) == {"alloc": 0, "free": 0, "mi_alloc": 0, "mi_free": 0}
    block = runtime.allocate(32)
    runtime.free(block)
    assert _delta(runtime, before) == {"alloc": 1, "free": 1, "mi_alloc": 0, "mi_free": 0}
    assert runtime.printed == []


def test_references_taken_and_given_back_at_once_by_many_threads(runtime):
    before = runtime.stats()
    mi = runtime.alloc_aligned(8, 8)
    rounds, workers = 2_000_000, 4
    start = threading.Barrier(workers)

    def work():
        start.wait()
        runtime.repeat_incref(mi, rounds)  # native loops, without the GIL: the threads race
        runtime.repeat_decref(mi, rounds - 1)
        runtime.decref(mi)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert MEMINFO.from_address(mi)[0] == 1  # every change counted
    assert _delta(runtime, before)["mi_free"] == 0
    runtime.decref(mi)
    assert _delta(runtime, before)["mi_free"] == 1
