"""Fused multiply-add of float16 and bfloat16 on the host, rounded once as the GPU's is.

LLVM's x86 code computes a narrow ``llvm.fma`` in float32 and rounds that to the narrow
type: two roundings, which differ from the one in the last bit where the first lands on a
midpoint. Here the product is exact in float64 (at most 22 significant bits), the sum is
rounded to float64 *to odd* (the error of the rounded sum, by Knuth's TwoSum, moves an even
result one unit toward the exact one), and that rounds to the narrow type to nearest even:
with 53 bits against at most 11, rounding to odd first leaves the second rounding correct."""

from __future__ import annotations

import re

_FMA = re.compile(r"@llvm\.fma\.(v2)?(f16|bf16)\b")
_TYPES = {"f16": "half", "bf16": "bfloat"}


def rename(line: str) -> str:
    """*line* with its narrow ``llvm.fma`` calls (and declarations) made the host's."""
    return _FMA.sub(lambda m: f"@__sim.fma.{m.group(1) or ''}{m.group(2)}", line)


def _scalar(suffix: str, ty: str) -> str:
    return f"""define linkonce_odr {ty} @__sim.fma.{suffix}({ty} %a, {ty} %b, {ty} %c) alwaysinline {{
  %x = fpext {ty} %a to double
  %y = fpext {ty} %b to double
  %z = fpext {ty} %c to double
  %p = fmul double %x, %y
  %s = fadd double %p, %z
  %bv = fsub double %s, %p
  %av = fsub double %s, %bv
  %br = fsub double %z, %bv
  %ar = fsub double %p, %av
  %e = fadd double %ar, %br
  %inexact = fcmp one double %e, 0.0
  %bits = bitcast double %s to i64
  %low = and i64 %bits, 1
  %even = icmp eq i64 %low, 0
  %fix = and i1 %inexact, %even
  %ebits = bitcast double %e to i64
  %signs = xor i64 %bits, %ebits
  %smaller = icmp slt i64 %signs, 0
  %up = add i64 %bits, 1
  %down = sub i64 %bits, 1
  %moved = select i1 %smaller, i64 %down, i64 %up
  %odd = select i1 %fix, i64 %moved, i64 %bits
  %o = bitcast i64 %odd to double
  %r = fptrunc double %o to {ty}
  ret {ty} %r
}}"""


def _pair(suffix: str, ty: str) -> str:
    v = f"<2 x {ty}>"
    lanes = []
    for k in range(2):
        lanes += [
            f"  %a{k} = extractelement {v} %a, i32 {k}",
            f"  %b{k} = extractelement {v} %b, i32 {k}",
            f"  %c{k} = extractelement {v} %c, i32 {k}",
            f"  %r{k} = call {ty} @__sim.fma.{suffix}({ty} %a{k}, {ty} %b{k}, {ty} %c{k})",
        ]
    body = "\n".join(lanes)
    return (
        f"define linkonce_odr {v} @__sim.fma.v2{suffix}({v} %a, {v} %b, {v} %c) alwaysinline {{\n{body}\n"
        f"  %p = insertelement {v} poison, {ty} %r0, i32 0\n  %r = insertelement {v} %p, {ty} %r1, i32 1\n"
        f"  ret {v} %r\n}}"
    )


def definitions() -> str:
    """LLVM IR defining the host's narrow fused multiply-adds."""
    return "\n\n".join(text for suffix, ty in _TYPES.items() for text in (_scalar(suffix, ty), _pair(suffix, ty)))
