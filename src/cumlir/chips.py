"""Compute capabilities cumlir compiles for, and how users spell them: plain data, read by the
options (``chip=``, ``cc=``) and by the code generators (codegen/targets.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

# a compute capability as users give it: (9, 0), "9.0", "90", "sm_90" or "compute_90"
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


def parse_cc(cc: ComputeCapability) -> tuple[int, int]:
    """(major, minor) from a tuple, "9.0", "90", "sm_90" or "compute_90"."""
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
