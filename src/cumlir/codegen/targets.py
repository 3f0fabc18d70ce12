"""Compute capabilities: chip names, the PTX ISA version each needs, and the code formats made for them."""

from __future__ import annotations

from ..chips import MIN_PTX, SUPPORTED_CCS, ComputeCapability, parse_cc

CODE_FORMATS = ("ptx", "ltoir")  # what code generation makes: PTX text, or LTO-IR for nvJitLink -lto

__all__ = ["CODE_FORMATS", "SUPPORTED_CCS", "ComputeCapability", "chip", "parse_cc", "ptx_feature"]


def chip(cc: ComputeCapability) -> str:
    major, minor = parse_cc(cc)
    return f"sm_{major}{minor}"


# DWARF of local variables (debug=True) has label differences in .section, PTX 7.5's
DEBUG_MIN_PTX = 75


def ptx_feature(cc: ComputeCapability, debug: bool = False) -> str:
    version = MIN_PTX[parse_cc(cc)]
    return f"+ptx{max(version, DEBUG_MIN_PTX) if debug else version}"
