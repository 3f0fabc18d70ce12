"""The device's LLVM IR (the ``llvm`` stage's module, translated) made the host's: NVVM
intrinsics become reads of the simulated thread's state or generic LLVM, device functions
are marked to be inlined into the kernel (so that its barriers and exits are the
kernel's own), and whatever cannot run on a CPU is refused by name."""

from __future__ import annotations

import functools
import re

from . import inline_ptx, intrinsics, narrow_fma
from .ir_text import NotSimulated

_NVVM = re.compile(r"@llvm\.nvvm\.([\w.]+)\b")
_DEFINE = re.compile(r"^define (?P<head>[^@]*)@(?P<name>[\w.$-]+)\((?P<params>.*)\)(?P<tail>[^{]*)\{$")
# the unrolling asked of NVPTX's loops: LLVM warns where it cannot on the host
_LOOP_HINT = re.compile(r", !llvm\.loop ![0-9]+")
_INLINE_ASM = re.compile(r'\basm\b[^"]*"([^"]*)"')


def _refuse(what: str, line: str) -> NotSimulated:
    return NotSimulated(f"{what} cannot run in the simulator (on a CPU): {line.strip()[:160]}")


def _nvvm_name(match: re.Match[str], *, line: str) -> str:
    name = match.group(1)
    if intrinsics.in_runtime(name):
        return f"@__sim.nvvm.{name}"
    if name in intrinsics.GENERIC:
        return f"@{intrinsics.GENERIC[name]}"
    if intrinsics.waiting(name) is not None or name in ("exit",):
        return match.group(0)  # the kernel's coroutine form handles them (threads.py)
    raise _refuse(f"the NVVM operation llvm.nvvm.{name}", line)


def prepare(text: str) -> str:
    """The device's LLVM IR *text* with the host's intrinsics and every internal function
    marked always-inline; the target lines are dropped (the host's are set when parsed)."""
    out = []
    for line in text.splitlines():
        if line.startswith(("target datalayout", "target triple")):
            continue
        if line.startswith("declare") and "@llvm.nvvm." in line:
            name = _NVVM.search(line)
            if name is not None and name.group(1) in intrinsics.GENERIC:
                continue  # LLVM declares the generic intrinsic a call names
        asm = _INLINE_ASM.search(line)
        if asm is not None and not line.startswith(("declare", "!")):
            translated = inline_ptx.translate(line)
            if translated is None:
                raise _refuse(f"inline PTX ({asm.group(1).strip()!r})", line)
            out.extend(translated)
            continue
        if "@llvm.nvvm." in line:
            line = _NVVM.sub(functools.partial(_nvvm_name, line=line), line)
        line = narrow_fma.rename(_LOOP_HINT.sub("", _shared_variable(line)))
        m = _DEFINE.match(line)
        if m is not None:
            line = _define(m)
        out.append(line)
    if any(intrinsics.GRID_SYNC_CALL in line for line in out):
        out.append(intrinsics.GRID_SYNC_DECLARATION)
    return "\n".join(out)


# the most dynamic shared memory a launch may ask of the simulator (a CUDA block's opt-in limit)
DYNAMIC_SHARED_BYTES = 232448
_SHARED = re.compile(r"^(@[\w.$\"-]+) = (?:private |internal )?(?:unnamed_addr )?addrspace\(3\) global ")
_DYNAMIC = re.compile(r"^(@[\w.$\"-]+) = external addrspace\(3\) global \[0 x i8\](.*)$")


def _shared_variable(line: str) -> str:
    """Shared variables as the host's globals, found by name (the simulator's checks watch
    them); the dynamic shared memory defined, as large as a launch may ask."""
    if m := _DYNAMIC.match(line):
        return f"{m.group(1)} = addrspace(3) global [{DYNAMIC_SHARED_BYTES} x i8] zeroinitializer{m.group(2)}"
    if m := _SHARED.match(line):
        return f"{m.group(1)} = addrspace(3) global {line[m.end() :]}"
    return line


def _define(m: re.Match[str]) -> str:
    head, tail = m.group("head"), m.group("tail")
    head = head.replace("ptx_kernel ", "")
    if "internal" in head and "noinline" not in tail and "optnone" not in tail:
        tail = f" alwaysinline{tail}"
    return f"define {head}@{m.group('name')}({m.group('params')}){tail}{{"
