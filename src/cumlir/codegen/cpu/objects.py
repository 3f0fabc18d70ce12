"""The host's code of a kernel: its LLVM IR made the host's and its threads' form chosen
(``host_code``), then linked with the runtime and optimized (``link``). llvmlite parses,
inlines and optimizes (numba's, the same LLVM as MLIR's)."""

from __future__ import annotations

import json
import re
import threading
from importlib import resources
from typing import Any

from ...lazy import lazy
from ...linkable import HostCode
from . import accesses, intrinsics, libdevice_host, narrow_fma, soft_float, threads
from .host_ir import prepare
from .ir_text import NotSimulated, parameter_type

llvm = lazy("llvmlite.binding")  # numba's LLVM: loaded by the first kernel compiled for the CPU

_lock = threading.Lock()
_ready = False
_DILOCATION = re.compile(r"^(![0-9]+) = !DILocation\(line: ([0-9]+).*?scope: (![0-9]+)")
_SCOPE_FILE = re.compile(r"^(![0-9]+) = (?:distinct )?!DI(?:Subprogram|LexicalBlock\w*)\(.*?file: (![0-9]+)")
_FILE = re.compile(r'^(![0-9]+) = !DIFile\(filename: "([^"]*)"')
_PARAMS = re.compile(r"^define (?:[^@]*)@(?P<name>[\w.$-]+)\((?P<params>.*)\)")


def _llvm() -> Any:
    global _ready
    with _lock:
        if not _ready:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _ready = True
    return llvm


def _parse(text: str) -> Any:
    binding = _llvm()
    module = binding.parse_assembly(f'target triple = "{binding.get_process_triple()}"\n{text}')
    module.verify()
    return module


def _machine() -> Any:
    return _llvm().Target.from_default_triple().create_target_machine(opt=2)


def _inlined(text: str) -> str:
    """*text* with its always-inline functions inlined and every value and block named."""
    module = _parse(text)
    passes = _llvm().create_new_module_pass_manager()
    passes.add_always_inliner_pass()
    passes.add_global_dead_code_eliminate_pass()
    passes.add_instruction_namer_pass()
    passes.run(module, _llvm().create_pass_builder(_machine(), _llvm().create_pipeline_tuning_options()))
    return str(module)


def _lines_of(text: str) -> dict[str, str]:
    """Each !DILocation's "file:line"."""
    files, scopes, locations = {}, {}, {}
    for line in text.splitlines():
        if m := _FILE.match(line):
            files[m.group(1)] = m.group(2)
        elif m := _SCOPE_FILE.match(line):
            scopes[m.group(1)] = m.group(2)
        elif m := _DILOCATION.match(line):
            locations[m.group(1)] = (m.group(2), m.group(3))
    return {
        name: f"{files.get(scopes.get(scope, ''), '<unknown>')}:{line}" for name, (line, scope) in locations.items()
    }


def host_code(device_ir: str, checks: bool = False) -> str:
    """The host's LLVM IR of a module's device LLVM IR: every kernel (one per module) with
    its ``__sim.entry`` and ``__sim.block``, and ``__sim.sites``, the text of its waiting
    points and checked accesses (JSON); *checks*: its shared memory accesses checked."""
    names = set(re.findall(r"^define ptx_kernel [^@]*@([\w.$-]+)\(", device_ir, re.M))
    text = _inlined(prepare(device_ir))
    if not names:  # a library (the device runtime): its functions as they are, but for traps
        return threads.library_traps(text)
    lines = text.splitlines()
    kernels = [(first, last) for first, last in threads.functions(lines) if _name(lines[first]) in names]
    if len(kernels) != 1:
        raise NotSimulated(f"a module for the CPU holds one kernel, not {len(kernels)}")
    first, last = kernels[0]
    sites = threads.Sites()
    for other_first, other_last in threads.functions(lines):
        if other_first != first:
            name = _PARAMS.match(lines[other_first])
            threads.refuse_waits_outside(name.group("name") if name else "?", lines[other_first + 1 : other_last])
    body = lines[first + 1 : last]
    waits = threads.kernel_waits(body)
    described = _lines_of(text)  # each debug location's "file:line", for the sites
    if checks and re.search(r"^@[\w.$\"-]+ = [^\n]*addrspace\(3\) global", text, re.M):
        # a kernel without shared memory has no shared accesses to watch
        body = accesses.instrument(body, described, sites)
    header = lines[first]
    if waits:
        body = threads.as_coroutine(body, described, sites)
        m = _PARAMS.match(header)
        assert m is not None
        header = f"{header[: m.end()]} presplitcoroutine{header[m.end() :]}"
    else:
        body = threads.in_turn(body)
    lines[first : last + 1] = [header, *body, "}"]
    runner = "__sim.block_as_coroutines" if waits else "__sim.block_in_turn"
    return "\n".join(
        [
            *lines,
            threads.CORO_DECLARATIONS,
            _entry(header),
            f"define i32 @__sim.block(ptr %p, ptr %t, i32 %n, i32 %resume) {{\n"
            f"  %r = call i32 @{runner}(ptr %p, ptr %t, i32 %n, i32 %resume)\n  ret i32 %r\n}}",
            f"declare i32 @{runner}(ptr, ptr, i32, i32)",
            _string_global("__sim.sites", json.dumps(sites.described)),
            _string_global("__sim.parameters", _parameter_kinds(header)),
            f'@"__sim.max_threads" = constant i32 {_max_threads(device_ir)}',
            f'@"__sim.local_bytes" = constant i64 {_local_bytes(lines[first + 1 : last])}',
            '@"__sim.checked" = constant i32 1' if checks else "",
            '@"__sim.grid_sync" = constant i32 1' if intrinsics.GRID_SYNC_CALL in text else "",
        ]
    )


def _max_threads(device_ir: str) -> int:
    """The kernel's launch bounds (its threads per block at most), or 0 for none."""
    m = re.search(r'"nvvm\.maxntid"="(\d+)(?:,(\d+))?(?:,(\d+))?"', device_ir)
    if m is None:
        return 0
    return int(m.group(1)) * int(m.group(2) or 1) * int(m.group(3) or 1)


_ALLOCA = re.compile(r"= alloca (?P<ty>[^,]+?)(?:, i(?:32|64) (?P<count>\d+))?(?:, align \d+)?(?:, !|$)")


def _local_bytes(body: list[str]) -> int:
    """The bytes of the kernel's own stack arrays and values (what the GPU reports as a
    thread's local memory), for those of a known size."""
    total = 0
    for line in body:
        if (m := _ALLOCA.search(line)) is not None:
            size = accesses.type_size(m.group("ty"))
            total += (size or 0) * int(m.group("count") or 1)
    return total


def _name(header: str) -> str:
    m = _PARAMS.match(header)
    return m.group("name") if m else ""


def _entry(header: str) -> str:
    """``__sim.entry(params)``: the kernel called with its parameters read from the
    driver's array of pointers to each."""
    m = _PARAMS.match(header)
    assert m is not None
    params = threads.split_args(m.group("params"))
    body, passed = [], []
    for i, param in enumerate(params):
        ty = parameter_type(param)
        body.append(f"  %slot{i} = getelementptr ptr, ptr %params, i64 {i}")
        body.append(f"  %at{i} = load ptr, ptr %slot{i}, align 8")
        body.append(f"  %arg{i} = load {ty}, ptr %at{i}, align 1")
        passed.append(f"{ty} %arg{i}")
    calls = f"  call void @{m.group('name')}({', '.join(passed)})"
    return "define void @__sim.entry(ptr %params) {\n" + "\n".join([*body, calls, "  ret void"]) + "\n}"


def _parameter_kinds(header: str) -> str:
    """A letter per parameter of the kernel: ``p`` for a pointer (an array's data), ``v``
    for a value."""
    m = _PARAMS.match(header)
    assert m is not None
    return "".join("p" if parameter_type(param) == "ptr" else "v" for param in threads.split_args(m.group("params")))


def _string_global(name: str, value: str) -> str:
    data = value.encode()
    escaped = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data)
    return f'@"{name}" = constant [{len(data)} x i8] c"{escaped}"\n@"{name}.size" = constant i64 {len(data)}'


def _runtime_text() -> str:
    return resources.files(__package__).joinpath("runtime.ll").read_text()


def link(code: str, others: list[str]) -> bytes:
    """The kernel's host IR *code* linked with the runtime and the host IR of its link
    items (the device runtime's), optimized: LLVM bitcode."""
    module = _parse(code)
    # the runtime after the link items: it defines what they call
    for text in [*others, _runtime_text(), soft_float.definitions(), narrow_fma.definitions()]:
        module.link_in(_parse(text))
    routines = [f.name for f in module.functions if f.is_declaration and f.name.startswith("__nv_")]
    for name in routines:
        defined = libdevice_host.definition(name[len("__nv_") :])
        if defined is not None:
            module.link_in(_parse(defined))
    module.verify()
    machine = _machine()
    # LLVM's -O2 where the kernel loops (its time goes there), -O1 (twice as quick to
    # compile) where it does not
    tuning = _llvm().create_pipeline_tuning_options(speed_level=2 if _loops(code) else 1)
    builder = _llvm().create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return module.as_bitcode()


_BRANCH_TARGETS = re.compile(r"label %([\w.$-]+)")


def _loops(code: str) -> bool:
    """Whether a function of *code* branches back to a block above the branch."""
    seen: set[str] = set()
    for line in code.splitlines():
        if line.startswith("define "):
            seen = set()
        elif m := re.match(r"^([\w.$-]+):", line):
            seen.add(m.group(1))
        elif " br " in line or line.lstrip().startswith(("br ", "switch ")):
            if any(target in seen for target in _BRANCH_TARGETS.findall(line)):
                return True
    return False


def host_image(code: str, items: list[Any]) -> bytes:
    """The ``cubin`` stage for the CPU: *code* linked with the runtime and its host code
    link items; others (PTX, CUDA C++, cubins) have no host form."""
    for item in items:
        if not isinstance(item, HostCode):
            raise NotSimulated(f"the link item {getattr(item, 'name', item)!r} has no host form in the simulator")
    return link(code, [str(item.data) for item in items])
