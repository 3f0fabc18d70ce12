"""What the CPU code generator's rewritings of LLVM IR text share: the error of an operation
the simulator cannot run, the arguments of a call split, and a parameter's type."""

from __future__ import annotations

from ...text_parts import top_level_parts


class NotSimulated(NotImplementedError):
    """An operation of the kernel that the simulator cannot run."""


def split_args(args: str) -> list[str]:
    """The top-level comma-separated arguments of a call (LLVM's vector types hold commas
    inside angle brackets)."""
    return top_level_parts(args, "([{<")


_CLOSING = {"[": "]", "{": "}", "<": ">"}


def parameter_type(param: str) -> str:
    """The type of a function's parameter written ``TYPE [attributes] %name``: its first word,
    or a whole aggregate (``[3 x i32]``, ``{ i32, float }``) where it is one."""
    param = param.strip()
    closing = _CLOSING.get(param[:1])
    if closing is None:
        return param.split()[0]
    depth = 0
    for position, char in enumerate(param):
        if char in _CLOSING:
            depth += 1
        elif char in _CLOSING.values():
            depth -= 1
            if depth == 0:
                return param[: position + 1]
    return param
