"""numba's error messages without terminal colours.

numba formats a message for every failed typing attempt, most of which are caught and
dropped (a template that does not apply, a variable that is not a constant). With colorama
installed each formatting wraps and unwraps the process's stdout and stderr, a tenth of
the typing time of an ordinary kernel. Kernels' typing errors also reach users of
cumlir, who read them in logs and notebooks, where the escape codes are noise.
"""

from numba.core import compiler_machinery, config, errors, ir, typeinfer
from numba.core.types import functions
from numba.core.typing import typeof


def install() -> None:
    """Make numba format its messages as plain text, unless colours were asked for
    (``NUMBA_COLOR_SCHEME``: its default theme only makes text bold)."""
    if config.COLOR_SCHEME == "no_color":  # type: ignore[attr-defined]
        plain = _Plain()
        errors._termcolor_inst = plain  # type: ignore[attr-defined]  # what errors.termcolor() gives from now on
        for module in (ir, typeinfer, compiler_machinery, functions, typeof):  # copies taken at import
            module._termcolor = plain  # type: ignore[attr-defined]


class _Plain:
    """numba's colour scheme interface, giving every message back unchanged."""

    def _same(self, msg: str) -> str:
        return msg

    code = errmsg = filename = indicate = highlight = reset = _same
