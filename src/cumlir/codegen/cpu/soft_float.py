"""The conversions between float16 / bfloat16 and float32 / float64 that LLVM's x86 code
calls as library routines (``__truncdfhf2``...), defined in LLVM IR with integer operations
(no C runtime a Python process loads has them all): rounding to nearest even, with
overflow to infinity, subnormal results and NaNs as IEEE 754 has them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class _Format:
    llvm: str
    bits: int
    exponent: int
    mantissa: int

    @property
    def bias(self) -> int:
        return (1 << (self.exponent - 1)) - 1

    @property
    def infinity(self) -> int:
        return ((1 << self.exponent) - 1) << self.mantissa


HALF = _Format("half", 16, 5, 10)
BFLOAT = _Format("bfloat", 16, 8, 7)
FLOAT = _Format("float", 32, 8, 23)
DOUBLE = _Format("double", 64, 11, 52)


def _truncation(name: str, source: _Format, target: _Format) -> str:
    s, t = f"i{source.bits}", f"i{target.bits}"
    shift = source.mantissa - target.mantissa
    sign_shift = source.bits - target.bits
    mask = (1 << (source.bits - 1)) - 1
    nan = target.infinity | (1 << (target.mantissa - 1))
    lines = [
        f"%x = bitcast {source.llvm} %a to {s}",
        f"%abs = and {s} %x, {mask}",
        f"%sign.wide = lshr {s} %x, {sign_shift}",
        f"%sign.bits = trunc {s} %sign.wide to {t}",
        f"%sign = and {t} %sign.bits, {1 << (target.bits - 1)}",
        f"%biased = lshr {s} %abs, {source.mantissa}",
        # a subnormal source (exponent field 0) has the exponent of 1 and no leading one
        f"%is.tiny = icmp eq {s} %biased, 0",
        f"%effective = select i1 %is.tiny, {s} 1, {s} %biased",
        f"%te = sub {s} %effective, {source.bias - target.bias}",
        f"%fraction = and {s} %abs, {(1 << source.mantissa) - 1}",
        # a normal result: the exponent rebiased in place, shifted and rounded (a carry
        # into the exponent, and into infinity, is the right result)
        f"%te.less = sub {s} %te, 1",
        f"%te.kept = select i1 %is.tiny, {s} %te.less, {s} %te",
        f"%te.field = shl {s} %te.kept, {source.mantissa}",
        f"%normal.v = or {s} %te.field, %fraction",
        *_rounded("normal", s, "%normal.v", str(shift)),
        # a subnormal result: the significand with its leading one, shifted further
        f"%leading = select i1 %is.tiny, {s} 0, {s} {1 << source.mantissa}",
        f"%significand = or {s} %fraction, %leading",
        f"%below = sub {s} 1, %te",
        f"%k.raw = add {s} %below, {shift}",
        f"%k.big = icmp ugt {s} %k.raw, {source.mantissa + 2}",
        f"%k = select i1 %k.big, {s} {source.mantissa + 2}, {s} %k.raw",
        *_rounded("sub", s, "%significand", "%k"),
        "%is.normal = icmp sgt " + f"{s} %te, 0",
        f"%finite = select i1 %is.normal, {s} %normal, {s} %sub",
        f"%too.big = icmp sge {s} %te, {(1 << target.exponent) - 1}",
        f"%capped = select i1 %too.big, {s} {target.infinity}, {s} %finite",
        f"%is.nan = icmp ugt {s} %abs, {source.infinity}",
        f"%is.inf = icmp eq {s} %abs, {source.infinity}",
        f"%special = select i1 %is.inf, {s} {target.infinity}, {s} %capped",
        f"%magnitude = select i1 %is.nan, {s} {nan}, {s} %special",
        f"%narrow = trunc {s} %magnitude to {t}",
        f"%bits = or {t} %narrow, %sign",
        f"%r = bitcast {t} %bits to {target.llvm}",
        f"ret {target.llvm} %r",
    ]
    return _function(name, target.llvm, source.llvm, lines)


def _rounded(name: str, ty: str, value: str, k: str) -> list[str]:
    """%<name>: *value* shifted right by *k* (0 < k), rounded to nearest even."""
    return [
        f"%{name}.kept = lshr {ty} {value}, {k}",
        f"%{name}.one = shl {ty} 1, {k}",
        f"%{name}.mask = sub {ty} %{name}.one, 1",
        f"%{name}.dropped = and {ty} {value}, %{name}.mask",
        f"%{name}.half = lshr {ty} %{name}.one, 1",
        f"%{name}.above = icmp ugt {ty} %{name}.dropped, %{name}.half",
        f"%{name}.tie = icmp eq {ty} %{name}.dropped, %{name}.half",
        f"%{name}.odd.bit = and {ty} %{name}.kept, 1",
        f"%{name}.odd = icmp ne {ty} %{name}.odd.bit, 0",
        f"%{name}.tie.up = and i1 %{name}.tie, %{name}.odd",
        f"%{name}.up = or i1 %{name}.above, %{name}.tie.up",
        f"%{name}.add = zext i1 %{name}.up to {ty}",
        f"%{name} = add {ty} %{name}.kept, %{name}.add",
    ]


def _extension(name: str, source: _Format, target: _Format) -> str:
    s, t = f"i{source.bits}", f"i{target.bits}"
    if source.exponent == target.exponent:  # bfloat16 to float32: the same value, more bits
        lines = [
            f"%h = bitcast {source.llvm} %a to {s}",
            f"%x = zext {s} %h to {t}",
            f"%bits = shl {t} %x, {target.bits - source.bits}",
            f"%r = bitcast {t} %bits to {target.llvm}",
            f"ret {target.llvm} %r",
        ]
        return _function(name, target.llvm, source.llvm, lines)
    widen = target.mantissa - source.mantissa
    lines = [
        f"%h = bitcast {source.llvm} %a to {s}",
        f"%x = zext {s} %h to {t}",
        f"%sign.bit = lshr {t} %x, {source.bits - 1}",
        f"%sign = shl {t} %sign.bit, {target.bits - 1}",
        f"%exponent.shifted = lshr {t} %x, {source.mantissa}",
        f"%exponent = and {t} %exponent.shifted, {(1 << source.exponent) - 1}",
        f"%fraction = and {t} %x, {(1 << source.mantissa) - 1}",
        f"%wide.fraction = shl {t} %fraction, {widen}",
        f"%rebiased = add {t} %exponent, {target.bias - source.bias}",
        f"%normal.e = shl {t} %rebiased, {target.mantissa}",
        f"%normal = or {t} %normal.e, %wide.fraction",
        f"%special = or {t} {target.infinity}, %wide.fraction",
        # a subnormal source: its highest set bit becomes the leading one
        f"%lz = call {t} @llvm.ctlz.{t}({t} %fraction, i1 false)",
        f"%top = sub {t} {target.bits - 1}, %lz",
        f"%sub.e.raw = add {t} %top, {target.bias - source.bias - source.mantissa + 1}",
        f"%sub.e = shl {t} %sub.e.raw, {target.mantissa}",
        f"%sub.shift = sub {t} {target.mantissa}, %top",
        f"%sub.f.raw = shl {t} %fraction, %sub.shift",
        f"%sub.f = and {t} %sub.f.raw, {(1 << target.mantissa) - 1}",
        f"%subnormal = or {t} %sub.e, %sub.f",
        f"%zero.fraction = icmp eq {t} %fraction, 0",
        f"%tiny = select i1 %zero.fraction, {t} 0, {t} %subnormal",
        f"%is.zero.e = icmp eq {t} %exponent, 0",
        f"%is.max.e = icmp eq {t} %exponent, {(1 << source.exponent) - 1}",
        f"%m1 = select i1 %is.max.e, {t} %special, {t} %normal",
        f"%m2 = select i1 %is.zero.e, {t} %tiny, {t} %m1",
        f"%bits = or {t} %m2, %sign",
        f"%r = bitcast {t} %bits to {target.llvm}",
        f"ret {target.llvm} %r",
    ]
    return _function(name, target.llvm, source.llvm, lines)


def _function(name: str, result: str, param: str, lines: list[str]) -> str:
    body = "\n".join(f"  {line}" for line in lines)
    return f"define {result} @{name}({param} %a) {{\n{body}\n}}"


def definitions() -> str:
    """LLVM IR defining the conversion routines."""
    return "\n\n".join(
        [
            _truncation("__truncsfhf2", FLOAT, HALF),
            _truncation("__truncdfhf2", DOUBLE, HALF),
            _truncation("__truncsfbf2", FLOAT, BFLOAT),
            _truncation("__truncdfbf2", DOUBLE, BFLOAT),
            _extension("__extendhfsf2", HALF, FLOAT),
            _extension("__extendbfsf2", BFLOAT, FLOAT),
        ]
    )
