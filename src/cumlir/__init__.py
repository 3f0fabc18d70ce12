"""cumlir: a CUDA kernel compiler for Python built on MLIR.

``from cumlir import cuda`` gives a Numba-CUDA compatible namespace. Importing it
loads neither numba, MLIR nor the CUDA driver; each is loaded when first needed.
"""

import importlib as _importlib

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # ``import cumlir`` then ``cumlir.cuda.jit``, as ``import numba`` then ``numba.cuda.jit``
    if name == "cuda":  # the public namespace, loaded as `from cumlir import cuda` loads it
        return _importlib.import_module(f"{__name__}.cuda")
    # numba's literal_unroll, without importing numba with cumlir
    if name == "literal_unroll":
        from numba import literal_unroll  # numba: loaded when asked for, not with cumlir

        return literal_unroll
    # numba's arrays over pointers: NumPy arrays on the host, cuda.carray/cuda.farray in kernels
    if name in ("carray", "farray"):
        from numba.np import numpy_support  # numba: loaded when asked for, not with cumlir

        return getattr(numpy_support, name)
    # numba's spelling of GPU ufuncs: numba.vectorize(signatures, target="cuda")
    if name in ("vectorize", "guvectorize"):
        from .cuda import ufunc_api  # the public namespace is loaded on first use, as `cumlir.cuda`

        return getattr(ufunc_api, name)
    raise AttributeError(f"module 'cumlir' has no attribute {name!r}")
