"""The errors extensions raise and catch: numba's, under cumlir's name."""

from numba.core.errors import (  # noqa: F401
    ForceLiteralArg,
    LoweringError,
    NumbaError,
    TypingError,
    UnsupportedError,
)
