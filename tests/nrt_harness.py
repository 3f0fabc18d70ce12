"""Runs the generated code of a kernel on the CPU, against a Python stand-in of the device
runtime that checks every reference-counting call, so that ownership (docs/nrt.md) is
tested without a GPU.

The kernel is compiled by cumlir up to the ``llvm`` stage (the NVPTX path's LLVM IR, before
code generation), retargeted to the host and JIT-compiled by llvmlite (the same LLVM
version as MLIR's). Kernels run by the harness must not read thread indices or call
libdevice routines other than those the C math library has too (one CPU "thread" runs
them; ``__nv_sin`` is bound to the host's ``sin``); NRT_MemInfo_alloc_aligned, NRT_incref and
NRT_decref are Python functions that keep every MemInfo's count and raise on any misuse:
a reference taken or given back on memory that is not a live MemInfo, a count below zero.
"""

import ctypes
import re

import numpy as np

_MEMINFO_WORDS = 5  # refct, dtor, dtor_info, data, size (nrt.cuh)


class Runtime:
    """The stand-in runtime: live MemInfos by address, counts of what happened."""

    def __init__(self):
        self.live = {}  # MemInfo address -> (buffer, references)
        self.stats = {"alloc": 0, "free": 0, "mi_alloc": 0, "mi_free": 0, "incref": 0, "decref": 0}
        self.errors = []

    def allocate(self, size, align):
        if size >= 1 << 40:
            self.errors.append(f"allocation of {size} bytes")
            size = 0
        buffer = ctypes.create_string_buffer(8 * _MEMINFO_WORDS + size + align)
        base = ctypes.addressof(buffer)
        data = (base + 8 * _MEMINFO_WORDS + align - 1) // align * align
        words = (ctypes.c_uint64 * _MEMINFO_WORDS).from_address(base)
        words[0], words[3], words[4] = 1, data, size
        self.live[base] = [buffer, 1]
        self.stats["alloc"] += 1
        self.stats["mi_alloc"] += 1
        return base

    def incref(self, address):
        self._adjust(address, "incref", 1)

    def decref(self, address):
        self._adjust(address, "decref", -1)

    def _adjust(self, address, what, change):
        self.stats[what] += 1
        entry = self.live.get(address)
        if entry is None:
            self.errors.append(f"{what} of {address:#x}, which is not a live MemInfo")
            return
        entry[1] += change
        if entry[1] == 0:
            del self.live[address]
            self.stats["free"] += 1
            self.stats["mi_free"] += 1

    def check_balanced(self):
        assert not self.errors, self.errors
        assert not self.live, f"{len(self.live)} MemInfos leaked"
        assert self.stats["alloc"] == self.stats["free"] and self.stats["mi_alloc"] == self.stats["mi_free"], self.stats


_ALLOC = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32)
_REF = ctypes.CFUNCTYPE(None, ctypes.c_uint64)
_EXIT = ctypes.CFUNCTYPE(None)
_current = None
_callbacks = (
    _ALLOC(lambda size, align: _current.allocate(size, align)),
    _REF(lambda address: _current.incref(address)),
    _REF(lambda address: _current.decref(address)),
    # a thread ending early (a raise on the device): the host cannot stop the code here, so it
    # is an error of the run, which check_balanced reports
    _EXIT(lambda: _current.errors.append("the thread ended early (an exception raised on the device)")),
)


# the runtime's entry points the kernels call, bound to the stand-ins under names of their own:
# llvmlite's symbols are the process's, and numba's CPU JIT resolves its own NRT by these names
_RUNTIME = ("NRT_MemInfo_alloc_aligned", "NRT_incref", "NRT_decref", "llvm.nvvm.exit")
_RUNTIME_CALLS = re.compile(rf"@({'|'.join(map(re.escape, _RUNTIME))})\b")


def _engine():
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    for name, callback in zip(_RUNTIME, _callbacks):
        llvm.add_symbol(f"harness_{name}", ctypes.cast(callback, ctypes.c_void_p).value)
    return llvm


def _with_stand_ins(text):
    """The IR *text* calling the stand-ins of the runtime instead of its own entry points."""
    return _RUNTIME_CALLS.sub(lambda m: f"@harness_{m.group(1)}", text)


def host_llvm_ir(pyfunc, argtypes, cc=(9, 0)):
    """The kernel's LLVM IR for chip *cc* (cumlir's nvptx path, NRT on), retargeted to the
    host CPU (a chip whose code holds inline PTX cannot run here)."""
    import llvmlite.binding as llvm

    from cumlir import compiler
    from cumlir.codegen.passes import pipeline
    from cumlir.options import Options

    c = compiler.kernel(pyfunc, argtypes, cc, Options(nrt=True, backend="nvptx"), until="llvm")
    with c.builder.context:
        text = pipeline.llvm_ir_of(c.module)
    lines = [line for line in text.splitlines() if not line.startswith(("target datalayout", "target triple"))]
    text = _with_stand_ins("\n".join(lines).replace("define ptx_kernel ", "define "))
    return f'target triple = "{llvm.get_process_triple()}"\n{text}', c.symbol


def host_function(text, symbol, restype, *argtypes):
    """The function *symbol* of the device LLVM IR *text* (cuda.compile(output="llvm")),
    retargeted to the host and JIT-compiled, as a ctypes function; the engine stays alive
    with it."""
    llvm = _engine()
    lines = [line for line in text.splitlines() if not line.startswith(("target datalayout", "target triple"))]
    module = llvm.parse_assembly(f'target triple = "{llvm.get_process_triple()}"\n' + _with_stand_ins("\n".join(lines)))
    module.verify()
    engine = llvm.create_mcjit_compiler(module, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    function = ctypes.CFUNCTYPE(restype, *argtypes)(engine.get_function_address(symbol))
    function.engine = engine
    return function


# libdevice routines whose C math library function has another name (both round to nearest)
_LIBM_NAMES = {"fsqrt_rn": "sqrtf", "dsqrt_rn": "sqrt"}


def _bind_libdevice(llvm, text, bound=()):
    """Bind each libdevice routine the code calls (but those *bound* by the caller) to the C
    math library's function of that name."""
    import ctypes.util
    import re

    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in re.findall(r"^declare [^@]*@__nv_(\w+)\(", text, re.MULTILINE):
        if f"__nv_{name}" in bound:
            continue
        function = getattr(libm, _LIBM_NAMES.get(name, name))
        llvm.add_symbol(f"__nv_{name}", ctypes.cast(function, ctypes.c_void_p).value)


def current():
    """The stand-in runtime of the kernel running now (for external functions' stand-ins)."""
    return _current


def _array_params(array):
    itemsize = array.dtype.itemsize
    return [array.ctypes.data, 0, *array.shape, *(s // itemsize for s in array.strides)]


class Kernel:
    """A kernel JIT-compiled for the host; ``kernel(*args)`` runs it once, returning the
    runtime it ran against (check_balanced() checks that nothing leaked)."""

    def __init__(self, pyfunc, argtypes, externals=(), cc=(9, 0)):
        llvm = _engine()
        for name, callback in externals:  # device functions declared with declare_device
            llvm.add_symbol(name, ctypes.cast(callback, ctypes.c_void_p).value)
        self._externals = externals
        text, symbol = host_llvm_ir(pyfunc, argtypes, cc)
        _bind_libdevice(llvm, text, {name for name, _ in externals})
        module = llvm.parse_assembly(text)
        module.verify()
        target = llvm.Target.from_default_triple().create_target_machine()
        self._engine = llvm.create_mcjit_compiler(module, target)
        self._engine.finalize_object()
        self._address = self._engine.get_function_address(symbol)
        self.argtypes = argtypes

    def __call__(self, *args):
        global _current
        params = []
        for value in args:
            params += _array_params(value) if isinstance(value, np.ndarray) else [int(value)]
        function = ctypes.CFUNCTYPE(None, *[ctypes.c_int64] * len(params))(self._address)
        runtime = _current = Runtime()
        try:
            function(*params)
        finally:
            _current = None
        return runtime
