"""The single PTX instructions cumlir's own operations write as inline assembly, in LLVM IR
for the host: loads and stores with cache hints, float-to-integer conversions with a
rounding mode, TF32 rounding, masking, the grid barrier. A user's ``asm`` and any other
instruction is refused by name (host_ir)."""

from __future__ import annotations

import itertools
import re

from . import directed, intrinsics
from .ir_text import split_args

_CALL = re.compile(
    r"^\s*(?:(?P<dest>%[\w.$-]+) = )?(?:tail )?call (?P<rtype>\S+) asm (?:sideeffect )?(?:inteldialect )?"
    r'"(?P<template>(?:[^"\\]|\\.)*)", "(?P<constraints>[^"]*)"\((?P<args>.*)\)(?P<rest>.*)$'
)
_unnamed = itertools.count()  # names of the values made for calls that give none
_ROUNDING = {"rni": "llvm.roundeven", "rzi": "llvm.trunc", "rmi": "llvm.floor", "rpi": "llvm.ceil"}
_FLOAT = {"f32": "float", "f64": "double"}


def _value(arg: str) -> tuple[str, str]:
    words = arg.split()
    return words[0], words[-1]


def _text(template: str) -> str:
    """The PTX of an LLVM string (``\\0A`` escapes decoded), its whitespace collapsed."""
    decoded = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), template)
    return " ".join(decoded.split()).rstrip(";").strip()


_COPY_ASYNC = re.compile(
    r"\{ \.reg \.u64 dst, src; cvta\.to\.shared\.u64 dst, \$0; cvta\.to\.global\.u64 src, \$1; "
    r"cp\.async\.c[ag]\.shared\.global \[dst\], \[src\], (\d+); \}"
)
# asynchronous copies complete at once on the host: waiting for them is nothing, and there
# is no other proxy to fence against
# cooperative groups' arrival at the grid barrier and wait (operations/cuda/cg.py): the
# host's scheduler keeps the block until every block of the grid has arrived
_GRID_ARRIVE_AND_WAIT = "atom.add.release.gpu.u32 %seen, [%word], %add"
_NOTHING = re.compile(r"cp\.async\.(commit_group|wait_all|wait_group \d+)|fence\.proxy\.async(\.[\w:]+)?")


def translate(line: str) -> list[str] | None:
    """The host's lines for the inline assembly call *line*, or None if it has none."""
    m = _CALL.match(line)
    if m is None:
        return None
    template = _text(m.group("template"))
    args = [_value(a) for a in split_args(m.group("args"))]
    dest, rtype = m.group("dest"), m.group("rtype")
    name = f"__sim.asm{next(_unnamed)}"  # a prefix for the values made here
    if _NOTHING.fullmatch(template) and dest is None:
        return []
    if _GRID_ARRIVE_AND_WAIT in template and dest is None:
        return [f"  call void {intrinsics.GRID_SYNC_CALL}{m.group('rest')}"]
    if mm := _COPY_ASYNC.fullmatch(template):
        out: list[str] = []
        target, source = _pointer(args[0], f"{name}.dst", out), _pointer(args[1], f"{name}.src", out)
        return [*out, f"  call void @llvm.memcpy.p0.p0.i64(ptr {target}, ptr {source}, i64 {mm.group(1)}, i1 false)"]
    if mm := re.fullmatch(r"and\.b(\d+) \$0, \$1, (\d+)", template):
        return [f"  {dest} = and {rtype} {args[0][1]}, {mm.group(2)}"]
    if mm := re.fullmatch(r"ld\.global\.(\w+)\.[bus](\d+) \$0, \[\$1\]", template):
        volatile = "volatile " if mm.group(1) == "cv" else ""
        out = []
        address = _pointer(args[0], name, out)
        return [*out, f"  {dest} = load {volatile}{rtype}, ptr {address}, align 1"]
    if mm := re.fullmatch(r"st\.global\.(\w+)\.[bus](\d+) \[\$0\], \$1", template):
        out = []
        address = _pointer(args[0], name, out)
        return [*out, f"  store {args[1][0]} {args[1][1]}, ptr {address}, align 1"]
    if mm := re.fullmatch(r"cvt\.(rni|rzi|rmi|rpi)\.([su])(\d+)\.(f32|f64)", template.split(" ")[0]):
        mode, sign, bits, source = mm.groups()
        ty = _FLOAT[source]
        suffix = "f32" if ty == "float" else "f64"
        rounded = f"%{name}.rounded"
        narrow = f"%{name}.narrow"
        lines = [
            f"  {rounded} = call {ty} @{_ROUNDING[mode]}.{suffix}({ty} {args[0][1]})",
            f"  {narrow}.sat = call i{bits} @llvm.fpto{sign}i.sat.i{bits}.{suffix}({ty} {rounded})",
            *_nan_as_integer(narrow, bits, ty, args[0][1]),
        ]
        if int(bits) == int(rtype[1:]):
            return [*lines, f"  {dest} = add {rtype} {narrow}, 0"]
        extend = "sext" if sign == "s" else "zext"
        return [*lines, f"  {dest} = {extend} i{bits} {narrow} to {rtype}"]
    if mm := re.fullmatch(r"cvt\.(rn|rz|rm|rp)\.(f16|bf16)\.(f32|f64|[su]\d+) \$0, \$1", template):
        mode, narrow, source = mm.groups()
        target = "half" if narrow == "f16" else "bfloat"
        ty = _FLOAT.get(source, f"i{source[1:]}")
        lines, result = directed.convert(name, ty, source.startswith("s"), target, mode, args[0][1])
        return [*(f"  {line}" for line in lines), f"  {dest} = bitcast {target} {result} to i16"]
    if template == "cvt.rna.tf32.f32 $0, $1":
        bits = f"%{name}.bits"
        return [  # to nearest, ties away from zero, on the magnitude; infinities and NaNs kept
            f"  {bits} = bitcast float {args[0][1]} to i32",
            f"  %{name}.up = add i32 {bits}, 4096",
            f"  %{name}.rounded = and i32 %{name}.up, -8192",
            f"  %{name}.exponent = and i32 {bits}, 2139095040",
            f"  %{name}.special = icmp eq i32 %{name}.exponent, 2139095040",
            f"  {dest} = select i1 %{name}.special, i32 {bits}, i32 %{name}.rounded",
        ]
    return None


def _nan_as_integer(name: str, bits: str, ty: str, value: str) -> list[str]:
    """*name*: the saturated conversion ``<name>.sat`` of *value*, but NaN as PTX's cvt makes
    it: 0, or 1 << 63 in 64 bits."""
    nan = "-9223372036854775808" if bits == "64" else "0"
    return [
        f"  {name}.nan = fcmp uno {ty} {value}, 0.0",
        f"  {name} = select i1 {name}.nan, i{bits} {nan}, i{bits} {name}.sat",
    ]


def _pointer(arg: tuple[str, str], name: str, out: list[str]) -> str:
    ty, value = arg
    if ty == "ptr":
        return value
    out.append(f"  %{name}.address = inttoptr {ty} {value} to ptr")
    return f"%{name}.address"
