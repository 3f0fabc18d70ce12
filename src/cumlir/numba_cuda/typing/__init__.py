from numba.core.typing import signature  # noqa: F401
