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


class _NumbaCudaNamespaces:
    """``from cumlir.numba_cuda import bf16``: Numba-CUDA's intrinsic namespaces (``numba.cuda.bf16``,
    ``fp16``, ``libdevice``) at the paths of its module tree, served by the public namespace's."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package != f"{__name__}.numba_cuda" or name.startswith("_"):
            return None
        # the public namespace is loaded only when such a module is asked for
        from .cuda import _NamespaceModules

        return _NamespaceModules.find_spec(f"{__name__}.cuda.{name}")


def _install_numba_cuda_namespaces():
    import sys  # noqa: PLC0415  (kept out of the package's namespace)

    if not any(finder is _NumbaCudaNamespaces for finder in sys.meta_path):
        sys.meta_path.append(_NumbaCudaNamespaces)


_install_numba_cuda_namespaces()
