"""numba-cuda-mlir's name for ``cumlir.mlir.helpers`` (and ``lowering_utilities.type_conversions``
for ``cumlir.mlir.type_conversions``), for lowering callbacks written against it."""

import sys as _sys

from ..mlir import helpers as _helpers
from ..mlir import type_conversions

globals().update({name: value for name, value in vars(_helpers).items() if not name.startswith("__")})
_sys.modules[f"{__name__}.type_conversions"] = type_conversions
