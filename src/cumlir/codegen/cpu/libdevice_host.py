"""libdevice's routines that are one or two LLVM operations, defined in LLVM IR for the
host: conversions with a rounding mode, reinterpretations of bits, integer minima and
maxima, half-precision conversions, sincos. The others bind to the C math library when the
code is loaded (runtime/simulator/math_library.py)."""

from __future__ import annotations

import re

from . import directed

_INTEGERS = {"int": ("i32", "s"), "uint": ("i32", "u"), "ll": ("i64", "s"), "ull": ("i64", "u")}
_FLOATS = {"float": ("float", "f32"), "double": ("double", "f64")}
_ROUND = {"rn": "roundeven", "rz": "trunc", "rd": "floor", "ru": "ceil"}
_BITS = {
    "float_as_int": ("float", "i32"),
    "float_as_uint": ("float", "i32"),
    "int_as_float": ("i32", "float"),
    "uint_as_float": ("i32", "float"),
    "double_as_longlong": ("double", "i64"),
    "longlong_as_double": ("i64", "double"),
}
_MINMAX = {
    "min": ("i32", "smin"),
    "max": ("i32", "smax"),
    "umin": ("i32", "umin"),
    "umax": ("i32", "umax"),
    "llmin": ("i64", "smin"),
    "llmax": ("i64", "smax"),
    "ullmin": ("i64", "umin"),
    "ullmax": ("i64", "umax"),
}


def _define(name: str, result: str, params: list[str], body: list[str]) -> str:
    args = ", ".join(f"{ty} %a{i}" for i, ty in enumerate(params))
    return f"define linkonce_odr {result} @__nv_{name}({args}) {{\n" + "\n".join(f"  {b}" for b in body) + "\n}"


def _float_to_integer(name: str) -> str | None:
    m = re.fullmatch(r"(float|double)2(int|uint|ll|ull)_(rn|rz|rd|ru)", name)
    if m is None:
        return None
    (fty, suffix), (ity, sign), mode = _FLOATS[m.group(1)], _INTEGERS[m.group(2)], m.group(3)
    return _define(
        name,
        ity,
        [fty],
        [  # NaN gives 0, or 1 << 63 in 64 bits (PTX's cvt)
            f"%r = call {fty} @llvm.{_ROUND[mode]}.{suffix}({fty} %a0)",
            f"%s = call {ity} @llvm.fpto{sign}i.sat.{ity}.{suffix}({fty} %r)",
            f"%nan = fcmp uno {fty} %a0, 0.0",
            f"%v = select i1 %nan, {ity} {'-9223372036854775808' if ity == 'i64' else '0'}, {ity} %s",
            f"ret {ity} %v",
        ],
    )


def _integer_to_float(name: str) -> str | None:
    m = re.fullmatch(r"(int|uint|ll|ull)2(float|double)_(rn|rz|rd|ru)", name)
    if m is None:
        return None
    (ity, sign), (fty, _) = _INTEGERS[m.group(1)], _FLOATS[m.group(2)]
    lines, result = directed.convert("c", ity, sign == "s", fty, m.group(3), "%a0")
    return _define(name, fty, [ity], [*lines, f"ret {fty} {result}"])


def _float_width(name: str) -> str | None:
    if m := re.fullmatch(r"double2float_(rn|rz|rd|ru)", name):
        lines, result = directed.convert("c", "double", True, "float", m.group(1), "%a0")
        return _define(name, "float", ["double"], [*lines, f"ret float {result}"])
    if name == "float2half_rn":
        return _define(
            name, "i16", ["float"], ["%h = fptrunc float %a0 to half", "%v = bitcast half %h to i16", "ret i16 %v"]
        )
    if name == "half2float":
        return _define(
            name, "float", ["i16"], ["%h = bitcast i16 %a0 to half", "%v = fpext half %h to float", "ret float %v"]
        )
    return None


def _sincos(name: str) -> str | None:
    m = re.fullmatch(r"sincos(pi)?(f?)", name)
    if m is None:
        return None
    ty, libm = ("float", "f") if m.group(2) else ("double", "")
    body = []
    x = "%a0"
    if m.group(1):  # of pi * x, x first reduced modulo 2 (exact) so that the product stays small
        body += [f"%x2 = frem {ty} %a0, 2.0", f"%x = fmul {ty} %x2, 0x400921FB60000000"]
        if ty == "double":
            body[-1] = "%x = fmul double %x2, 0x400921FB54442D18"
        x = "%x"
    body += [
        f"%s = call {ty} @sin{libm}({ty} {x})",
        f"%c = call {ty} @cos{libm}({ty} {x})",
        f"store {ty} %s, ptr %a1",
        f"store {ty} %c, ptr %a2",
        "ret void",
    ]
    return (
        _define(name, "void", [ty, "ptr", "ptr"], body)
        + f"\ndeclare {ty} @sin{libm}({ty})\ndeclare {ty} @cos{libm}({ty})"
    )


def _cbrt(name: str) -> str | None:
    """The C library's cube root (some are 3 ulps off) with one Newton step whose residual
    y*y*y - x is computed with fused multiply-adds: within an ulp; float32's in float64."""
    if name not in ("cbrt", "cbrtf"):
        return None
    x = "%a0"
    body = []
    if name == "cbrtf":
        body.append("%x = fpext float %a0 to double")
        x = "%x"
    body += [
        f"%y = call double @cbrt(double {x})",
        "%t = fmul double %y, %y",
        "%t.neg = fneg double %t",
        "%te = call double @llvm.fma.f64(double %y, double %y, double %t.neg)",
        f"%x.neg = fneg double {x}",
        "%r0 = call double @llvm.fma.f64(double %t, double %y, double %x.neg)",
        "%r = call double @llvm.fma.f64(double %te, double %y, double %r0)",
        "%d = fmul double %t, 3.0",
        "%step = fdiv double %r, %d",
        "%z = fsub double %y, %step",
        # zeros, infinities and NaNs as the library gives them (the step would make NaNs)
        "%size = call double @llvm.fabs.f64(double %step)",
        "%usable = fcmp olt double %size, 0x7FF0000000000000",
        "%v = select i1 %usable, double %z, double %y",
    ]
    if name == "cbrtf":
        body += ["%f = fptrunc double %v to float", "ret float %f"]
        return _define(name, "float", ["float"], body) + "\ndeclare double @cbrt(double)"
    return _define(name, "double", ["double"], [*body, "ret double %v"]) + "\ndeclare double @cbrt(double)"


def definition(name: str) -> str | None:
    """LLVM IR defining libdevice's ``__nv_<name>``, or None if it binds to the C library."""
    if name in _BITS:
        source, result = _BITS[name]
        return _define(name, result, [source], [f"%v = bitcast {source} %a0 to {result}", f"ret {result} %v"])
    if name in _MINMAX:
        ty, op = _MINMAX[name]
        return _define(name, ty, [ty, ty], [f"%v = call {ty} @llvm.{op}.{ty}({ty} %a0, {ty} %a1)", f"ret {ty} %v"])
    for make in (_float_to_integer, _integer_to_float, _float_width, _sincos, _cbrt):
        text = make(name)
        if text is not None:
            return text
    return None
