from numba.core.typeconv import Conversion  # noqa: F401
