"""cumlir: a CUDA kernel compiler for Python built on MLIR.

``from cumlir import cuda`` gives a Numba-CUDA compatible namespace. Importing it
loads neither numba, MLIR nor the CUDA driver; each is loaded when first needed.
"""

__version__ = "0.1.0"
