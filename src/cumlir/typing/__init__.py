"""The frontend: Python bytecode to typed Numba IR for the CUDA target."""
