"""A kernel's threads on the CPU (docs/simulator.md, "How threads run").

A kernel that never waits for other threads runs each thread of a block to its end in turn.
A kernel with barriers or warp operations becomes an LLVM coroutine: each such call becomes
``__sim.wait`` (what the thread waits in, recorded in its state) and a suspension, after
which ``__sim.result`` gives the call's value; returns and exits go to the final
suspension. LLVM's coroutine passes then keep each thread's live values in a frame of its
own, so the threads of a block interleave at exactly the points where CUDA's do.

Works on the kernel's LLVM IR after inlining, with every value and block named.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from . import intrinsics
from .ir_text import NotSimulated, split_args

_CALL = re.compile(
    r"^\s*(?:(?P<dest>%[\w.$-]+) = )?(?:tail |notail )?call (?P<rtype>\{[^}]*\}|[\w]+) "
    r"@(?:llvm\.nvvm\.|__sim\.op\.)(?P<name>[\w.]+)\((?P<args>.*)\)(?P<rest>.*)$"
)
_LABEL = re.compile(r"^([\w.$-]+):")
_DBG = re.compile(r"!dbg (![0-9]+)")
_TRAP = re.compile(r"^\s*call void @llvm\.trap\(\)")
# the device runtime's allocation (nrt.cuh): where the heap is exhausted its host form records
# a trap and returns null (library_traps), and the thread ends there, as the GPU's does
_ALLOCATION = re.compile(r"^\s*(?P<dest>%[\w.$-]+) = (?:tail |notail )?call ptr @NRT_MemInfo_alloc_aligned\(")
_DEFINE_TYPE = re.compile(r"^define (?:[\w]+ )*?(?P<ty>void|ptr|i\d+|half|float|double) @")


@dataclass
class Sites:
    """The call sites where threads wait, described for reports ("file.py:12 (syncthreads)")."""

    described: list[str] = field(default_factory=list)

    def add(self, text: str) -> int:
        self.described.append(text)
        return len(self.described) - 1


def _typed(arg: str) -> tuple[str, str]:
    words = arg.split()
    return words[0], words[-1]


class _Namer:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, stem: str) -> str:
        self.count += 1
        return f"%__sim.{stem}{self.count}"


def _widened(arg: str, fresh: _Namer, out: list[str]) -> str:
    """An i64 holding the argument's bits."""
    ty, value = _typed(arg)
    if ty == "i64":
        return value
    if ty in ("float", "double"):
        bits = "i32" if ty == "float" else "i64"
        cast = fresh("bits")
        out.append(f"  {cast} = bitcast {ty} {value} to {bits}")
        if bits == "i64":
            return cast
        ty, value = "i32", cast
    wide = fresh("wide")
    out.append(f"  {wide} = zext {ty} {value} to i64")
    return wide


def _operand(args: list[str], spec: intrinsics.Waiting, fresh: _Namer, out: list[str]) -> str:
    if spec.b is None:
        return "0"
    b = _widened(args[spec.b], fresh, out)
    c = _widened(args[spec.c], fresh, out) if spec.c is not None else "0"
    high = fresh("high")
    both = fresh("operand")
    out.append(f"  {high} = shl i64 {c}, 32")
    out.append(f"  {both} = or i64 {b}, {high}")
    return both


def _result(dest: str | None, rtype: str, spec: intrinsics.Waiting, fresh: _Namer, out: list[str]) -> None:
    if dest is None or spec.result == "void":
        return
    raw = fresh("result")
    out.append(f"  {raw} = call i64 @__sim.result()")
    if spec.result == "pair":
        first = rtype.strip("{} ").split(",")[0].strip()
        low, high, pred, part = fresh("low"), fresh("hi"), fresh("pred"), fresh("part")
        out.append(f"  {low} = trunc i64 {raw} to i32")
        value = low
        if first == "float":
            value = fresh("float")
            out.append(f"  {value} = bitcast i32 {low} to float")
        out.append(f"  {high} = lshr i64 {raw}, 32")
        out.append(f"  {pred} = trunc i64 {high} to i1")
        out.append(f"  {part} = insertvalue {rtype} poison, {first} {value}, 0")
        out.append(f"  {dest} = insertvalue {rtype} {part}, i1 {pred}, 1")
    elif rtype == "float":
        low = fresh("low")
        out.append(f"  {low} = trunc i64 {raw} to i32")
        out.append(f"  {dest} = bitcast i32 {low} to float")
    elif rtype == "i64":
        out.append(f"  {dest} = add i64 {raw}, 0")
    else:
        out.append(f"  {dest} = trunc i64 {raw} to {rtype}")


class _Kernel:
    """The rewriting of one kernel's body into a coroutine."""

    def __init__(self, describe: dict[str, str], sites: Sites) -> None:
        self.describe = describe  # !dbg id -> "file:line"
        self.sites = sites
        self.fresh = _Namer()
        self.renamed: dict[str, str] = {}  # a block's label -> the label its end now has
        self.block = ""
        self.final = "  br label %__sim.final"  # how the thread ends

    def _continue_in(self, label: str, out: list[str]) -> None:
        out.append(f"{label[1:]}:")
        self.renamed[self.block] = label[1:]

    def wait(self, m: re.Match[str], line: str, out: list[str]) -> None:
        spec = intrinsics.waiting(m.group("name"))
        assert spec is not None
        args = split_args(m.group("args"))
        dbg = _DBG.search(m.group("rest"))
        where = self.describe.get(dbg.group(1), "unknown line") if dbg else "unknown line"
        site = self.sites.add(where)
        mask = _typed(args[spec.mask])[1] if spec.mask is not None else "-1"
        value = _widened(args[spec.value], self.fresh, out) if spec.value is not None else "0"
        operand = _operand(args, spec, self.fresh, out)
        suffix = f", !dbg {dbg.group(1)}" if dbg else ""
        out.append(
            f"  call void @__sim.wait(i32 {spec.op}, i32 {site}, i32 {mask}, i64 {value}, i64 {operand}){suffix}"
        )
        state, resumed = self.fresh("state"), self.fresh("resumed")
        out.append(f"  {state} = call i8 @llvm.coro.suspend(token none, i1 false)")
        out.append(
            f"  switch i8 {state}, label %__sim.suspend [ i8 0, label {resumed}\n    i8 1, label %__sim.cleanup ]"
        )
        self._continue_in(resumed, out)
        _result(m.group("dest"), m.group("rtype"), spec, self.fresh, out)

    def leave(self, out: list[str], trap: bool = False) -> None:
        """The thread ends here; what follows in the block is never reached."""
        if trap:
            out.append("  call void @__sim.trap()")
        out.append(self.final)
        self._continue_in(self.fresh("dead"), out)

    def leave_if_null(self, pointer: str, out: list[str]) -> None:
        """The thread ends here, trapped, where *pointer* is null (an allocation that failed)."""
        null, trapped, made = self.fresh("null"), self.fresh("trapped"), self.fresh("made")
        out.append(f"  {null} = icmp eq ptr {pointer}, null")
        out.append(f"  br i1 {null}, label {trapped}, label {made}")
        out.append(f"{trapped[1:]}:")
        out.append("  call void @__sim.trap()")
        out.append(self.final)
        self._continue_in(made, out)


_PROLOGUE = """\
  %__sim.id = call token @llvm.coro.id(i32 0, ptr null, ptr null, ptr null)
  %__sim.size = call i64 @llvm.coro.size.i64()
  %__sim.frame = call ptr @__sim.frame_alloc(i64 %__sim.size)
  %__sim.handle = call ptr @llvm.coro.begin(token %__sim.id, ptr %__sim.frame)
  call void @__sim.started(ptr %__sim.handle)"""

_EPILOGUE = """\
__sim.final:
  call void @__sim.finished()
  %__sim.last = call i8 @llvm.coro.suspend(token none, i1 true)
  switch i8 %__sim.last, label %__sim.suspend [ i8 0, label %__sim.never
    i8 1, label %__sim.cleanup ]
__sim.never:
  unreachable
__sim.cleanup:
  %__sim.memory = call ptr @llvm.coro.free(token %__sim.id, ptr %__sim.handle)
  call void @__sim.frame_free(ptr %__sim.memory)
  br label %__sim.suspend
__sim.suspend:
  call void @llvm.coro.end(ptr %__sim.handle, i1 false, token none)
  ret void"""

CORO_DECLARATIONS = """
declare token @llvm.coro.id(i32, ptr, ptr, ptr)
declare i64 @llvm.coro.size.i64()
declare ptr @llvm.coro.begin(token, ptr)
declare i8 @llvm.coro.suspend(token, i1)
declare ptr @llvm.coro.free(token, ptr)
declare void @llvm.coro.end(ptr, i1, token)
declare void @__sim.wait(i32, i32, i32, i64, i64)
declare i64 @__sim.result()
declare void @__sim.started(ptr)
declare void @__sim.finished()
declare void @__sim.trap()
declare ptr @__sim.frame_alloc(i64)
declare void @__sim.frame_free(ptr)
declare void @__sim.access(ptr, i64, i32, i32)
"""


def functions(lines: list[str]) -> Iterator[tuple[int, int]]:
    """(first, last) line numbers of each function definition."""
    start = None
    for i, line in enumerate(lines):
        if line.startswith("define "):
            start = i
        elif line == "}" and start is not None:
            yield start, i
            start = None


def kernel_waits(body: list[str]) -> bool:
    return any((m := _CALL.match(line)) and intrinsics.waiting(m.group("name")) for line in body)


def as_coroutine(body: list[str], describe: dict[str, str], sites: Sites) -> list[str]:
    """The kernel's body lines (between its ``define`` line and ``}``) as a coroutine's."""
    k = _Kernel(describe, sites)
    out: list[str] = []
    first = True
    for line in body:
        label = _LABEL.match(line)
        if label is not None:
            k.block = label.group(1)
            out.append(line)
            if first:
                out.append(_PROLOGUE)
                first = False
            continue
        if first and line.strip():
            out.append(_PROLOGUE)
            first = False
        m = _CALL.match(line)
        if m is not None and m.group("name") == "exit":
            k.leave(out)
            continue
        if _TRAP.match(line):
            k.leave(out, trap=True)
            continue
        if allocation := _ALLOCATION.match(line):
            out.append(line)
            k.leave_if_null(allocation.group("dest"), out)
            continue
        if line.strip().startswith("ret void"):
            out.append("  br label %__sim.final")  # a terminator already: no block follows
            continue
        if m is not None and intrinsics.waiting(m.group("name")) is not None:
            k.wait(m, line, out)
            continue
        out.append(line)
    out.append(_EPILOGUE)
    return _renamed_phis(out, k.renamed)


def _renamed_phis(lines: list[str], renamed: dict[str, str]) -> list[str]:
    """Phis name the block their value comes from: a block split at a wait now ends in its
    last part."""
    if not renamed:
        return lines

    def last(label: str) -> str:
        while label in renamed:
            label = renamed[label]
        return label

    pattern = re.compile(r",\s*%([\w.$-]+)\s*\]")
    return [pattern.sub(lambda m: f", %{last(m.group(1))} ]", line) if " = phi " in line else line for line in lines]


def in_turn(body: list[str]) -> list[str]:
    """The kernel's body lines run as a plain function: exits return, traps record it."""
    k = _Kernel({}, Sites())
    k.final = "  ret void"
    out: list[str] = []
    for line in body:
        label = _LABEL.match(line)
        if label is not None:
            k.block = label.group(1)
        m = _CALL.match(line)
        if m is not None and m.group("name") == "exit":
            k.leave(out)
        elif _TRAP.match(line):
            k.leave(out, trap=True)
        elif allocation := _ALLOCATION.match(line):
            out.append(line)
            k.leave_if_null(allocation.group("dest"), out)
        else:
            out.append(line)
    return _renamed_phis(out, k.renamed)


def library_traps(text: str) -> str:
    """A library's LLVM IR (the device runtime's) whose traps record the trap and return a
    zero value, as a kernel's traps end its thread: on the host ``llvm.trap`` would end the
    process. The kernel ends the thread where the value says so (``leave_if_null``)."""
    lines = text.splitlines()
    returned = None
    changed = False
    for i, line in enumerate(lines):
        if line.startswith("define "):
            m = _DEFINE_TYPE.match(line)
            returned = m.group("ty") if m else None
        elif returned is not None and _TRAP.match(line) and lines[i + 1].strip() == "unreachable":
            lines[i] = "  call void @__sim.trap()"
            lines[i + 1] = "  ret void" if returned == "void" else f"  ret {returned} zeroinitializer"
            changed = True
    if changed:
        lines.append("declare void @__sim.trap()")
    return "\n".join(lines)


def refuse_waits_outside(name: str, body: list[str]) -> None:
    """A function left after inlining (recursive) may not wait nor end the thread."""
    for line in body:
        m = _CALL.match(line)
        if m is not None and (intrinsics.waiting(m.group("name")) or m.group("name") == "exit"):
            raise NotSimulated(
                f"the device function {name} synchronizes threads or raises and could not be inlined into the "
                "kernel (is it recursive?): the simulator runs such operations only in the kernel's own code"
            )
