"""What the CPU code generator's rewritings of LLVM IR text share: the error of an operation
the simulator cannot run, and the arguments of a call split."""

from __future__ import annotations


class NotSimulated(NotImplementedError):
    """An operation of the kernel that the simulator cannot run."""


def split_args(args: str) -> list[str]:
    """The top-level comma-separated arguments of a call."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(args[start:i].strip())
            start = i + 1
    if args.strip():
        parts.append(args[start:].strip())
    return parts
