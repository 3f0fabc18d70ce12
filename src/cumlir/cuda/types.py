"""``from cumlir.cuda.types import int32``, as Numba-CUDA's ``numba.cuda.types`` is imported:
this module is ``cumlir.types`` (numba's types, bfloat16 and CUDA's vector types), the same
object as ``cuda.types``. Importing it loads numba; ``from cumlir import cuda`` does not."""

import sys

from .. import types

sys.modules[__name__] = types  # the import statement binds what this name holds once run
