"""Compute capabilities: chip names, the PTX ISA version each needs, and the code formats made for them."""

from __future__ import annotations

from ..chips import MIN_PTX, SUPPORTED_CCS, ComputeCapability, parse_cc

CODE_FORMATS = ("ptx", "ltoir")  # what code generation makes: PTX text, or LTO-IR for nvJitLink -lto

__all__ = ["CODE_FORMATS", "SUPPORTED_CCS", "ComputeCapability", "chip", "parse_cc", "ptx_feature"]


def chip(cc: ComputeCapability) -> str:
    major, minor = parse_cc(cc)
    return f"sm_{major}{minor}"


def ptx_feature(cc: ComputeCapability) -> str:
    return f"+ptx{MIN_PTX[parse_cc(cc)]}"
