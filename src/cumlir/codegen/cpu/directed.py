"""Conversions to a floating-point type with a rounding mode (PTX's ``cvt.rz``/``.rm``/``.rp``,
libdevice's ``_rz``/``_rd``/``_ru``), in LLVM IR for the host: the conversion to nearest,
then one step toward the mode's direction where the exact value lies on the other side of
the nearest (which a comparison in float64, or in integers for 64-bit integers, tells)."""

from __future__ import annotations

_WIDTH = {"half": 16, "bfloat": 16, "float": 32, "double": 64}
# the rounding modes by PTX's names; libdevice's rd and ru are rm and rp
MODES = {"rn": "rn", "rz": "rz", "rm": "rm", "rp": "rp", "rd": "rm", "ru": "rp"}


def convert(prefix: str, source: str, signed: bool, target: str, mode: str, value: str) -> tuple[list[str], str]:
    """Lines converting *value* (of LLVM type *source*: a float type or ``iN``, *signed*
    for integers) to *target* with *mode* (a key of MODES); and the name of the result."""
    p = f"%{prefix}"
    lines: list[str] = []
    integer = source.startswith("i")
    wide = integer and int(source[1:]) > 32
    if integer:
        to_fp = "sitofp" if signed else "uitofp"
        lines.append(f"{p}.d = {to_fp} {source} {value} to double")
        if target == "double":
            lines.append(f"{p}.n = fadd double {p}.d, 0.0")
        else:
            # 64-bit integers to float32 directly (float64 may round them first); the others,
            # and to 16-bit floats (whose range float64 holds exactly), through float64
            direct = wide and target == "float"
            lines.append(
                f"{p}.n = {to_fp} {source} {value} to float" if direct else f"{p}.n = fptrunc double {p}.d to {target}"
            )
    else:
        lines.append(
            f"{p}.d = fpext {source} {value} to double" if source != "double" else f"{p}.d = fadd double {value}, 0.0"
        )
        lines.append(
            f"{p}.n = fptrunc double {p}.d to {target}" if target != "double" else f"{p}.n = fadd double {p}.d, 0.0"
        )
    mode = MODES[mode]
    if mode == "rn":
        return lines, f"{p}.n"
    if wide:  # compared as integers: float64 holds not every 64-bit integer
        bits = int(source[1:])
        kind = "s" if signed else "u"
        limit = "0x43E0000000000000" if signed else "0x43F0000000000000"  # 2**63, 2**64
        wide_n = f"{p}.n" if target == "double" else f"{p}.nd"
        if target != "double":
            lines.append(f"{p}.nd = fpext {target} {p}.n to double")
        lines += [
            f"{p}.back = call i{bits} @llvm.fpto{kind}i.sat.i{bits}.f64(double {wide_n})",
            f"{p}.big = fcmp oge double {wide_n}, {limit}",
            f"{p}.lt0 = icmp {kind}lt i{bits} {value}, {p}.back",
            f"{p}.gt0 = icmp {kind}gt i{bits} {value}, {p}.back",
            # below every 64-bit integer: -inf (a float16 too narrow for the value)
            f"{p}.small = fcmp olt double {wide_n}, -9.223372036854775808e18",
            f"{p}.lt1 = or i1 {p}.lt0, {p}.big",
            f"{p}.notsmall = xor i1 {p}.small, true",
            f"{p}.lt = and i1 {p}.lt1, {p}.notsmall",
            f"{p}.notbig = xor i1 {p}.big, true",
            f"{p}.gt1 = and i1 {p}.gt0, {p}.notbig",
            f"{p}.gt = or i1 {p}.gt1, {p}.small",
        ]
    else:
        fin = f"{p}.n" if target == "double" else f"{p}.fin"
        if target != "double":
            lines.append(f"{fin} = fpext {target} {p}.n to double")
        lines += [f"{p}.lt = fcmp olt double {p}.d, {fin}", f"{p}.gt = fcmp ogt double {p}.d, {fin}"]
    w = _WIDTH[target]
    i = f"i{w}"
    sign_bit = -(1 << (w - 1))
    lines += [
        f"{p}.bits = bitcast {target} {p}.n to {i}",
        f"{p}.neg = icmp slt {i} {p}.bits, 0",
        f"{p}.plus = add {i} {p}.bits, 1",
        f"{p}.minus = sub {i} {p}.bits, 1",
        # one step toward +inf: away from zero when positive, toward it when negative
        f"{p}.up = select i1 {p}.neg, {i} {p}.minus, {i} {p}.plus",
        # one step toward -inf; from +0 it is the negative smallest subnormal
        f"{p}.zero = icmp eq {i} {p}.bits, 0",
        f"{p}.down0 = select i1 {p}.neg, {i} {p}.plus, {i} {p}.minus",
        f"{p}.down = select i1 {p}.zero, {i} {sign_bit + 1}, {i} {p}.down0",
    ]
    if mode == "rp":
        lines.append(f"{p}.adjusted = select i1 {p}.gt, {i} {p}.up, {i} {p}.bits")
    elif mode == "rm":
        lines.append(f"{p}.adjusted = select i1 {p}.lt, {i} {p}.down, {i} {p}.bits")
    else:  # toward zero: a positive result above the value steps down, a negative below it up
        lines += [
            f"{p}.pos = xor i1 {p}.neg, true",
            f"{p}.shrink.pos = and i1 {p}.pos, {p}.lt",
            f"{p}.shrink.neg = and i1 {p}.neg, {p}.gt",
            f"{p}.a1 = select i1 {p}.shrink.pos, {i} {p}.down0, {i} {p}.bits",
            f"{p}.adjusted = select i1 {p}.shrink.neg, {i} {p}.up, {i} {p}.a1",
        ]
    lines.append(f"{p}.r = bitcast {i} {p}.adjusted to {target}")
    return lines, f"{p}.r"
