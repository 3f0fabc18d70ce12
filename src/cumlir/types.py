"""Numba's types, as extensions of cumlir use them: ``from cumlir import types``.

New types subclass ``types.Type``; see docs/extending.md.
"""

from numba.core import types as _types
from numba.core.typeconv import Conversion  # noqa: F401

# every public name of numba.core.types (its __all__ leaves out the type classes)
globals().update({_name: _value for _name, _value in vars(_types).items() if not _name.startswith("_")})

from numba.np.numpy_support import as_dtype, from_dtype  # noqa: E402,F401  (NumPy dtype <-> Numba type)
