"""Numba's typing building blocks at the paths code written for other MLIR-based
Numba compilers imports them from (``cumlir.numba_cuda.typing.templates``,
``cumlir.numba_cuda.typeconv``)."""
