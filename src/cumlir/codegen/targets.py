"""Compute capabilities: chip names, the PTX ISA version each needs, and the code formats made for them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..chips import SUPPORTED_CCS, ComputeCapability, min_ptx, parse_cc, target_suffix

if TYPE_CHECKING:
    from ..options import Options

# what code generation makes: PTX text, LTO-IR for nvJitLink -lto, or the simulator's host code
CODE_FORMATS = ("ptx", "ltoir", "host")

__all__ = [
    "CODE_FORMATS",
    "SUPPORTED_CCS",
    "ComputeCapability",
    "arch_specific",
    "chip",
    "parse_cc",
    "ptx_feature",
    "suffix",
]


def chip(cc: ComputeCapability, arch_specific: bool | str = False) -> str:
    """The target's name: "sm_90", "sm_90a" for the chip's architecture-specific target (True
    or "a"), "sm_100f" for its family target ("f")."""
    major, minor = parse_cc(cc)
    return f"sm_{major}{minor}{target_suffix(arch_specific)}"


# DWARF of local variables (debug=True) has label differences in .section, PTX 7.5's
DEBUG_MIN_PTX = 75


def ptx_feature(cc: ComputeCapability, debug: bool = False, arch_specific: bool | str = False) -> str:
    version = min_ptx(parse_cc(cc), arch_specific)
    return f"+ptx{max(version, DEBUG_MIN_PTX) if debug else version}"


def arch_specific(cc: ComputeCapability, options: Options | None) -> bool:
    """Whether code for *cc* is compiled for its architecture-specific target (sm_90a): the
    options ask for it (chip="sm_90a") and *cc* is their chip. A launch on a device of another
    compute capability compiles for that device's plain target."""
    return options is not None and options.arch_specific and parse_cc(cc) == options.chip


def suffix(cc: ComputeCapability, options: Options | None) -> str:
    """The suffix of the target code for *cc* is compiled for: the options' ("a" for sm_90a, "f"
    for a family target such as sm_100f) where *cc* is their chip, else "" (the chip's own)."""
    if options is None or parse_cc(cc) != options.chip:
        return ""
    return options.target_suffix
