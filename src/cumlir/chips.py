"""Compute capabilities cumlir compiles for, and how users spell them: plain data, read by the
options (``chip=``, ``cc=``) and by the code generators (codegen/targets.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

# a compute capability as users give it: (9, 0), "9.0", "90", "sm_90" or "compute_90"; with an
# architecture-specific target, "sm_90a" or (9, 0, "a") (Numba-CUDA's spelling); with a family
# target, "sm_100f" or (10, 0, "f")
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


# compute capability -> the lowest PTX ISA version of its family target (sm_100f ...: the
# instructions the chips of its family share, in code that runs on every chip of the family)
FAMILY_MIN_PTX = {
    (10, 0): 88,
    (10, 3): 88,
    (12, 0): 88,
    (12, 1): 88,
}

# a target's suffix -> (what it is called, the lowest PTX ISA version of each chip that has it)
TARGET_KINDS = {
    "": ("", MIN_PTX),
    "a": ("architecture-specific", ARCH_SPECIFIC_MIN_PTX),
    "f": ("family", FAMILY_MIN_PTX),
}


def target_suffix(arch_specific: bool | str) -> str:
    """The suffix of a target's name: "a" for True (architecture-specific), the suffix given
    ("a", "f" for a family target), or "" for the chip's plain target."""
    return "a" if arch_specific is True else arch_specific or ""


def min_ptx(cc: tuple[int, int], arch_specific: bool | str = False) -> int:
    """The lowest PTX ISA version (80 for 8.0) of the target *cc*, or of its ``a`` (True or
    "a") or ``f`` ("f") variant."""
    return TARGET_KINDS[target_suffix(arch_specific)][1][cc]


def arch_suffix(cc: object) -> str:
    """ "a" where *cc* names an architecture-specific target ("sm_90a", (9, 0, "a")), "f" where
    it names a family target ("sm_100f", (10, 0, "f")), else ""."""
    if isinstance(cc, str):
        text = cc.strip().lower()
        suffix = text[-1:]
        return suffix if suffix in ("a", "f") and text[:-1].rstrip("0123456789") in ("sm_", "compute_", "") else ""
    if isinstance(cc, Sequence) and len(cc) == 3 and cc[2] in ("a", "f"):
        return str(cc[2])
    return ""


def parse_target(cc: ComputeCapability) -> tuple[tuple[int, int], str]:
    """((major, minor), the target's suffix: "", "a" or "f") from any spelling of parse_cc's,
    or "sm_90a" / (9, 0, "a") and "sm_100f" / (10, 0, "f"), whose chip must have such a target."""
    suffix = arch_suffix(cc)
    if not suffix:
        return parse_cc(cc), ""
    major, minor = parse_cc(cc.strip()[:-1] if isinstance(cc, str) else tuple(cc)[:2])
    kind, table = TARGET_KINDS[suffix]
    if (major, minor) not in table:
        known = ", ".join(f"sm_{a}{b}{suffix}" for a, b in table)
        raise ValueError(f"sm_{major}{minor} has no {kind} target (sm_{major}{minor}{suffix}); known: {known}")
    return (major, minor), suffix


def parse_cc(cc: ComputeCapability) -> tuple[int, int]:
    """(major, minor) from a tuple, "9.0", "90", "sm_90" or "compute_90"."""
    if arch_suffix(cc):
        kind = TARGET_KINDS[arch_suffix(cc)][0]
        article = "an" if kind[0] in "aeiou" else "a"
        raise ValueError(
            f"{cc!r} names {article} {kind} target: give it as the option chip (chip='sm_90a') or as cuda.compile's cc"
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
