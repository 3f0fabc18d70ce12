"""``cuda.In``, ``cuda.Out`` and ``cuda.InOut``: launch arguments wrapped to say which way
a NumPy array is copied around the launch."""

from __future__ import annotations

from typing import Any


class ArgHint:
    """A launch argument wrapped to say how a NumPy array is copied around the launch."""

    copy_in = copy_out = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"


class In(ArgHint):
    """A NumPy array copied to the device before the launch and not back."""

    copy_out = False


class Out(ArgHint):
    """A NumPy array copied back after the launch and not to the device before it."""

    copy_in = False


class InOut(ArgHint):
    """A NumPy array copied to the device and back (what a bare NumPy array gets)."""


def wrap_arg(value: Any, default: type[ArgHint] = InOut) -> ArgHint:
    """*value* as it is if it is wrapped already, else wrapped in *default* (Numba-CUDA's
    ``numba.cuda.args.wrap_arg``, which argument handlers use to choose the copies)."""
    return value if isinstance(value, ArgHint) else default(value)
