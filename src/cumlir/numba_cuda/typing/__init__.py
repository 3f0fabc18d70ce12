from numba.core.typing import Signature, signature  # noqa: F401
from numba.core.typing.templates import fold_arguments, make_concrete_template  # noqa: F401
