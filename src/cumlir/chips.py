"""Compute capabilities cumlir compiles for, and how users spell them: plain data, read by the
options (``chip=``, ``cc=``) and by the code generators (codegen/targets.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

# a compute capability as users give it: (9, 0), "9.0", "90", "sm_90" or "compute_90"; with an
# architecture-specific target, "sm_90a" or (9, 0, "a") (Numba-CUDA's spelling)
ComputeCapability: TypeAlias = "str | Sequence[int]"

# compute capability -> the lowest PTX ISA version that supports it (LLVM feature "+ptxNN")
MIN_PTX = {
    (7, 5): 63,
    (8, 0): 70,
    (8, 6): 71,
    (8, 7): 74,
    (8, 9): 78,
    (9, 0): 78,
    (10, 0): 86,
    (10, 3): 88,
    (12, 0): 87,
    (12, 1): 88,
}

SUPPORTED_CCS = tuple(sorted(MIN_PTX))

# compute capability -> the lowest PTX ISA version of its architecture-specific target
# (sm_90a ...: the chip's own instructions, wgmma or setmaxnreg, in code that runs on that chip only)
ARCH_SPECIFIC_MIN_PTX = {
    (9, 0): 80,
    (10, 0): 86,
    (10, 3): 88,
    (12, 0): 86,
    (12, 1): 88,
}


def min_ptx(cc: tuple[int, int], arch_specific: bool = False) -> int:
    """The lowest PTX ISA version (80 for 8.0) of the target *cc*, or of its ``a`` variant."""
    return ARCH_SPECIFIC_MIN_PTX[cc] if arch_specific else MIN_PTX[cc]


def arch_suffix(cc: object) -> str:
    """ "a" where *cc* names an architecture-specific target ("sm_90a", (9, 0, "a")), else ""."""
    if isinstance(cc, str):
        text = cc.strip().lower()
        return "a" if text.endswith("a") and text[:-1].rstrip("0123456789") in ("sm_", "compute_", "") else ""
    if isinstance(cc, Sequence) and len(cc) == 3 and cc[2] == "a":
        return "a"
    return ""


def parse_target(cc: ComputeCapability) -> tuple[tuple[int, int], bool]:
    """((major, minor), whether the target is architecture-specific) from any spelling of
    parse_cc's, or "sm_90a" / (9, 0, "a"), whose chip must have such a target."""
    if not arch_suffix(cc):
        return parse_cc(cc), False
    major, minor = parse_cc(cc.strip()[:-1] if isinstance(cc, str) else tuple(cc)[:2])
    if (major, minor) not in ARCH_SPECIFIC_MIN_PTX:
        known = ", ".join(f"sm_{a}{b}a" for a, b in ARCH_SPECIFIC_MIN_PTX)
        raise ValueError(f"sm_{major}{minor} has no architecture-specific target (sm_{major}{minor}a); known: {known}")
    return (major, minor), True


def parse_cc(cc: ComputeCapability) -> tuple[int, int]:
    """(major, minor) from a tuple, "9.0", "90", "sm_90" or "compute_90"."""
    if arch_suffix(cc):
        raise ValueError(
            f"{cc!r} names an architecture-specific target: give it as the option chip (chip='sm_90a') "
            "or as cuda.compile's cc"
        )
    if isinstance(cc, str):
        text = cc.strip().lower()
        for prefix in ("sm_", "compute_"):
            if text.startswith(prefix):
                text = text[len(prefix) :]
        if "." in text:
            major_digits, minor_digits = text.split(".", 1)
        elif text.isdigit() and len(text) >= 2:
            major_digits, minor_digits = text[:-1], text[-1]
        else:
            raise ValueError(f"cannot read a compute capability from {cc!r}")
        cc = (int(major_digits), int(minor_digits))
    try:
        major, minor = (int(x) for x in cc)
    except (TypeError, ValueError):
        raise ValueError(f"a compute capability is a (major, minor) pair, got {cc!r}") from None
    if (major, minor) not in MIN_PTX:
        known = ", ".join(f"{a}.{b}" for a, b in SUPPORTED_CCS)
        raise ValueError(f"compute capability {major}.{minor} is not supported; known: {known}")
    return major, minor
