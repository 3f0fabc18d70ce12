"""Typed Numba IR -> MLIR, one small lowering rule per operation (see registry.py)."""
