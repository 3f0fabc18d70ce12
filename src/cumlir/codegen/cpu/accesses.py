"""The simulator's checks of shared memory (docs/simulator.md, "Checks"): before each load,
store, atomic and memory intrinsic of the kernel whose address may be in shared memory, a
call to ``__sim.access(address, bytes, kind, site)``; the runtime keeps a shadow of every
shared byte (who wrote and read it last, after how many barriers and warp
synchronizations) and reports a race or a read of a byte never written.

Addresses derived from the thread's own stack slots (``alloca``) are never shared and are
not checked."""

from __future__ import annotations

import re

from .ir_text import parameter_type, split_args
from .threads import Sites

READ, WRITE, ATOMIC, UNCHANGED = 0, 1, 2, 3  # UNCHANGED: a store of the value already there

# scalar types a store's value is compared in (as integers of their width) with what it replaces
_COMPARED = {
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "half": "i16",
    "bfloat": "i16",
    "float": "i32",
    "double": "i64",
}

_ALLOCA = re.compile(r"^\s*(%[\w.$-]+) = alloca ")
_DERIVED = re.compile(r"^\s*(%[\w.$-]+) = (?:getelementptr|bitcast|addrspacecast)\b[^%@]*?(?:ptr[^%@,]*)?(%[\w.$-]+)")
_LOAD = re.compile(r"^\s*%[\w.$-]+ = load (?:atomic )?(?:volatile )?(?P<ops>.*?)(?P<rest>, align \d+.*|, !.*)?$")
_STORE = re.compile(r"^\s*store (?:atomic )?(?:volatile )?(?P<ops>.*?)(?P<rest>, align \d+.*|, !.*)?$")
_ATOMIC = re.compile(r"^\s*%[\w.$-]+ = (?:atomicrmw|cmpxchg) (?:volatile )?(?:\w+ )?(?P<ops>.*)$")
_MEMORY = re.compile(r"^\s*(?:tail )?call void @llvm\.mem(?P<kind>set|cpy|move)\.[\w.]+\((?P<args>.*)\)")
_DBG = re.compile(r"!dbg (![0-9]+)")

_SIZES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8, "double": 8, "ptr": 8, "i128": 16}


def type_size(ty: str) -> int | None:
    """The bytes of the LLVM type *ty* (scalars, vectors and arrays of them, and structs of
    those without padding: a complex number's parts), or None."""
    ty = ty.strip()
    if ty in _SIZES:
        return _SIZES[ty]
    m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    if m and m.group(2) in _SIZES:
        return int(m.group(1)) * _SIZES[m.group(2)]
    m = re.fullmatch(r"\[(\d+) x (\w+)\]", ty)
    if m and m.group(2) in _SIZES:
        return int(m.group(1)) * _SIZES[m.group(2)]
    m = re.fullmatch(r"\{(.*)\}", ty)
    if m and m.group(1).strip():
        return _unpadded_struct_size(split_args(m.group(1)))
    return None


def _unpadded_struct_size(fields: list[str]) -> int | None:
    # a struct whose fields lie end to end, each at a multiple of its own size: an access
    # to it is one to all its bytes (a padded one is not checked: its gaps are never written)
    offset = 0
    for field in fields:
        size = type_size(field)
        if size is None or size not in _SIZES.values() or offset % size:
            return None
        offset += size
    largest = max(type_size(field) or 1 for field in fields)
    return offset if offset % largest == 0 else None


def _pointer(operand: str) -> str:
    """The pointer value of a ``ptr ...`` operand (a name, or a constant expression)."""
    return operand.split(None, 1)[1] if operand.startswith("ptr ") else operand


def instrument(body: list[str], describe: dict[str, str], sites: Sites) -> list[str]:
    """The kernel's body lines with a check before each access that may be to shared memory."""
    local: set[str] = set()
    out: list[str] = []
    count = 0
    for line in body:
        if m := _ALLOCA.match(line):
            local.add(m.group(1))
        elif (m := _DERIVED.match(line)) and m.group(2) in local:
            local.add(m.group(1))
        checks = _checks_of(line)
        for pointer_operand, size, kind in checks:
            unchanged = None
            pointer = _pointer(pointer_operand.strip())
            if pointer in local or "addrspace(1)" in pointer_operand or "addrspace(5)" in pointer_operand:
                continue
            dbg = _DBG.search(line)
            where = describe.get(dbg.group(1), "unknown line") if dbg else "unknown line"
            site = sites.add(where)
            count += 1
            cast = f"%__sim.at{count}"
            address = pointer_operand.strip()
            if address.startswith("ptr addrspace("):
                out.append(f"  {cast} = addrspacecast {address} to ptr")
                address = f"ptr {cast}"
            elif not address.startswith("ptr "):
                address = f"ptr {address}"
            suffix = f", !dbg {dbg.group(1)}" if dbg else ""
            if kind == WRITE and (m := _STORE.match(line)):
                unchanged = _unchanged(split_args(m.group("ops"))[0], address, count, out)
            if unchanged is not None:  # a store of what is there already races with nothing
                out.append(f"  %__sim.kind{count} = select i1 {unchanged}, i32 {UNCHANGED}, i32 {WRITE}")
                kind_value = f"%__sim.kind{count}"
            else:
                kind_value = str(kind)
            out.append(f"  call void @__sim.access({address}, i64 {size}, i32 {kind_value}, i32 {site}){suffix}")
        out.append(line)
    return out


def _unchanged(value: str, address: str, count: int, out: list[str]) -> str | None:
    """An i1 of whether the store of *value* (``type value``) to *address* (``ptr x``)
    leaves memory as it is, or None for a type not compared."""
    ty = parameter_type(value)
    operand = value.strip()[len(ty) :].strip()
    bits = _COMPARED.get(ty)
    if bits is None:
        return None
    old, new, was = f"%__sim.old{count}", f"%__sim.new{count}", f"%__sim.was{count}"
    out.append(f"  {old} = load {ty}, {address}, align 1")
    if bits != ty:
        out.append(f"  {new} = bitcast {ty} {operand} to {bits}")
        out.append(f"  {was} = bitcast {ty} {old} to {bits}")
    else:
        new, was = operand, old
    out.append(f"  %__sim.same{count} = icmp eq {bits} {was}, {new}")
    return f"%__sim.same{count}"


def _checks_of(line: str) -> list[tuple[str, str, int]]:
    """(pointer operand, bytes, kind) of each memory access *line* makes."""
    if m := _LOAD.match(line):
        ops = split_args(m.group("ops"))
        size = type_size(ops[0]) if len(ops) == 2 else None
        return [(ops[1], str(size), READ)] if size else []
    if m := _STORE.match(line):
        ops = split_args(m.group("ops"))
        # the stored value's type: its first word, or a whole vector type (``<4 x float> <...>``)
        size = type_size(parameter_type(ops[0])) if len(ops) == 2 else None
        return [(ops[1], str(size), WRITE)] if size else []
    if m := _ATOMIC.match(line):
        ops = split_args(m.group("ops"))
        if len(ops) >= 2:
            size = type_size(parameter_type(ops[1]))
            return [(ops[0], str(size), ATOMIC)] if size else []
        return []
    if m := _MEMORY.match(line):
        args = split_args(m.group("args"))
        length = args[2].split()[-1]
        if m.group("kind") == "set":
            return [(args[0], length, WRITE)]
        return [(args[0], length, WRITE), (args[1], length, READ)]
    return []


DECLARATION = "declare void @__sim.access(ptr, i64, i32, i32)"
