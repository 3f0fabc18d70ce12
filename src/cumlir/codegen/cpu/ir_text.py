"""What the CPU code generator's rewritings of LLVM IR text share: the error of an operation
the simulator cannot run, and the arguments of a call split."""

from __future__ import annotations

from ...text_parts import top_level_parts


class NotSimulated(NotImplementedError):
    """An operation of the kernel that the simulator cannot run."""


def split_args(args: str) -> list[str]:
    """The top-level comma-separated arguments of a call (LLVM's vector types hold commas
    inside angle brackets)."""
    return top_level_parts(args, "([{<")
