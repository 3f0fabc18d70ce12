"""The error raised when a module holds something the LLVM 7 printer cannot express."""


class Llvm7Error(NotImplementedError):
    """An op, intrinsic, type or attribute the "nvvm" code-generation path does not support."""
